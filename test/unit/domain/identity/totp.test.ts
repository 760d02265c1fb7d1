import { expect } from 'chai';
import { authenticator } from 'otplib';
import { base32Decode, base32Encode, hotp, otpauthUrl, timeStep, totpAt, verifyTotp } from '../../../../domain/identity/totp';

const SECRET = base32Encode(Buffer.from('12345678901234567890'));

describe('TOTP (RFC 6238, SHA-1, 6 digits, 30 s)', () => {
  it('matches the RFC 6238 SHA-1 test vectors (last 6 digits)', () => {
    const vectors: Array<[number, string]> = [
      [59, '287082'],
      [1111111109, '081804'],
      [1111111111, '050471'],
      [1234567890, '005924'],
      [2000000000, '279037'],
    ];
    for (const [seconds, code] of vectors) expect(totpAt(SECRET, new Date(seconds * 1000))).to.equal(code);
  });

  it('agrees with otplib, as an authenticator app computes it', () => {
    const secret = authenticator.generateSecret(20);
    const at = new Date('2026-11-22T04:00:10Z');
    authenticator.options = { epoch: at.getTime() };
    try {
      expect(totpAt(secret, at)).to.equal(authenticator.generate(secret));
    } finally {
      authenticator.resetOptions();
    }
  });

  it('round-trips base32', () => {
    const bytes = Buffer.from([0, 1, 2, 250, 251, 252, 253, 254, 255, 7]);
    expect(base32Decode(base32Encode(bytes)).equals(bytes)).to.equal(true);
  });

  it('accepts the current step and one step either side, not two', () => {
    const at = new Date('2026-11-22T04:00:00Z');
    const step = timeStep(at);
    const secret = base32Decode(SECRET);
    expect(verifyTotp(SECRET, hotp(secret, step), at, null)).to.deep.equal({ ok: true, step });
    expect(verifyTotp(SECRET, hotp(secret, step - 1), at, null)).to.deep.equal({ ok: true, step: step - 1 });
    expect(verifyTotp(SECRET, hotp(secret, step + 1), at, null)).to.deep.equal({ ok: true, step: step + 1 });
    expect(verifyTotp(SECRET, hotp(secret, step - 2), at, null).ok).to.equal(false);
  });

  it('refuses a code already used in its window, and any older one', () => {
    const at = new Date('2026-11-22T04:00:00Z');
    const code = totpAt(SECRET, at);
    const first = verifyTotp(SECRET, code, at, null);
    expect(first.ok).to.equal(true);
    const used = first.ok ? first.step : -1;
    expect(verifyTotp(SECRET, code, new Date(at.getTime() + 5000), used)).to.deep.equal({ ok: false, reason: 'replayed' });
    const previous = totpAt(SECRET, new Date(at.getTime() - 30000));
    expect(verifyTotp(SECRET, previous, at, used)).to.deep.equal({ ok: false, reason: 'replayed' });
    const next = totpAt(SECRET, new Date(at.getTime() + 30000));
    expect(verifyTotp(SECRET, next, new Date(at.getTime() + 30000), used).ok).to.equal(true);
  });

  it('refuses malformed codes', () => {
    expect(verifyTotp(SECRET, '12345', new Date(), null).ok).to.equal(false);
    expect(verifyTotp(SECRET, 'abcdef', new Date(), null).ok).to.equal(false);
  });

  it('builds an otpauth URL authenticator apps read', () => {
    const url = otpauthUrl(SECRET, 'ana@example.com', 'Payments');
    expect(url).to.match(/^otpauth:\/\/totp\/Payments:ana%40example\.com\?/);
    expect(url).to.contain(`secret=${SECRET}`).and.contain('digits=6').and.contain('period=30').and.contain('algorithm=SHA1');
  });
});
