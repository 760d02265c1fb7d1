import { expect } from 'chai';
import { createHmac } from 'node:crypto';
import { Hs256AccessTokens, sessionSecretsOf } from '../../../../infrastructure/crypto/hs256-access-tokens';
import { ScryptPasswordHasher } from '../../../../infrastructure/crypto/scrypt-password-hasher';

const now = new Date('2026-11-22T04:00:00.123Z');
const claims = { userId: 'usr_1', organizationId: 'org_1', sessionId: 'ses_1', issuedAt: now, expiresAt: new Date(now.getTime() + 900_000) };

describe('HS256 access tokens', () => {
  const tokens = new Hs256AccessTokens('s'.repeat(40));

  it('round-trips claims with millisecond issue time', () => {
    expect(tokens.verify(tokens.sign(claims), now)).to.deep.equal({ ...claims, expiresAt: new Date(Math.floor(claims.expiresAt.getTime() / 1000) * 1000) });
  });

  it('refuses expired, tampered, foreign-key and alg:none tokens', () => {
    const token = tokens.sign(claims);
    expect(tokens.verify(token, new Date(now.getTime() + 900_000))).to.equal(null);
    const [h, p, s] = token.split('.');
    const forged = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(p!, 'base64url').toString()), org: 'org_2' })).toString('base64url');
    expect(tokens.verify(`${h}.${forged}.${s}`, now)).to.equal(null);
    expect(new Hs256AccessTokens('t'.repeat(40)).verify(token, now)).to.equal(null);
    const none = Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url');
    expect(tokens.verify(`${none}.${p}.`, now)).to.equal(null);
    const raw = createHmac('sha256', 's'.repeat(40)).update(`${h}.${p}`).digest('base64url');
    expect(tokens.verify(`${h}.${p}.${raw}`, now), 'signed with the raw secret instead of the derived key').to.equal(null);
  });

  it('refuses short secrets', () => {
    expect(() => new Hs256AccessTokens('short')).to.throw();
    expect(() => new Hs256AccessTokens(['n'.repeat(40), 'short'])).to.throw(/each entry of SESSION_SECRET/);
    expect(() => new Hs256AccessTokens([])).to.throw();
  });

  describe('rotation: SESSION_SECRET=new,old', () => {
    const oldSecret = 'o'.repeat(40);
    const newSecret = 'n'.repeat(40);
    const before = new Hs256AccessTokens(oldSecret);
    const during = new Hs256AccessTokens(sessionSecretsOf(`${newSecret}, ${oldSecret}`));
    const after = new Hs256AccessTokens(newSecret);

    it('keeps accepting a token signed with the previous secret, listed after the current one', () => {
      const issuedBefore = before.sign(claims);
      expect(during.verify(issuedBefore, now)).to.deep.include({ userId: 'usr_1', sessionId: 'ses_1' });
      // It still expires when it says it does.
      expect(during.verify(issuedBefore, claims.expiresAt)).to.equal(null);
    });

    it('signs with the current (first) secret only', () => {
      const issuedDuring = during.sign(claims);
      expect(after.verify(issuedDuring, now)).to.deep.include({ userId: 'usr_1' });
      expect(before.verify(issuedDuring, now)).to.equal(null);
    });

    it('refuses the old secret\'s tokens once it is dropped from the list', () => {
      expect(after.verify(before.sign(claims), now)).to.equal(null);
    });

    it('reads the list comma-separated, current first, blanks ignored', () => {
      expect(sessionSecretsOf(` ${newSecret} ,${oldSecret},`)).to.deep.equal([newSecret, oldSecret]);
    });
  });
});

describe('scrypt password hasher', () => {
  const hasher = new ScryptPasswordHasher({ N: 2 ** 10, r: 8, p: 1 });

  it('verifies the right password only, with a fresh salt each time', async () => {
    const a = await hasher.hash('correct horse battery');
    const b = await hasher.hash('correct horse battery');
    expect(a).to.not.equal(b);
    expect(a).to.match(/^scrypt\$1024\$8\$1\$/);
    expect(await hasher.verify('correct horse battery', a)).to.equal(true);
    expect(await hasher.verify('correct horse batterY', a)).to.equal(false);
  });

  it('never throws on a malformed hash', async () => {
    expect(await hasher.verify('x', 'garbage')).to.equal(false);
    expect(await hasher.verify('x', 'scrypt$a$b$c$d$e')).to.equal(false);
  });

  it('keeps verifying hashes made with other parameters', async () => {
    const old = await new ScryptPasswordHasher({ N: 2 ** 11, r: 8, p: 1 }).hash('pw-123456789012');
    expect(await hasher.verify('pw-123456789012', old)).to.equal(true);
  });
});
