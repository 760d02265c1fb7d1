import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { AesGcmCredentialCipher, loadCredentialKeys, parseCredentialKey } from '../../../infrastructure/crypto/aes-gcm-credential-cipher';

describe('AES-256-GCM credential cipher', () => {
  const keyA = randomBytes(32);
  const keyB = randomBytes(32);

  it('round-trips, with a fresh IV per seal and the key id beside the ciphertext', () => {
    const cipher = new AesGcmCredentialCipher([keyA]);
    const first = cipher.seal('{"apiKey":"secret"}', 'ctx');
    const second = cipher.seal('{"apiKey":"secret"}', 'ctx');
    expect(first.keyId).to.equal(AesGcmCredentialCipher.keyIdOf(keyA));
    expect(first.ciphertext).to.not.equal(second.ciphertext);
    expect(first.ciphertext).to.not.include('secret');
    expect(cipher.open(first, 'ctx')).to.equal('{"apiKey":"secret"}');
  });

  it('rotates: the new key seals, old ciphertexts still open while the old key is listed after it', () => {
    const sealedWithA = new AesGcmCredentialCipher([keyA]).seal('v', 'ctx');
    const rotated = new AesGcmCredentialCipher([keyB, keyA]);
    expect(rotated.open(sealedWithA, 'ctx')).to.equal('v');
    expect(rotated.seal('v', 'ctx').keyId).to.equal(AesGcmCredentialCipher.keyIdOf(keyB));
    expect(() => new AesGcmCredentialCipher([keyB]).open(sealedWithA, 'ctx')).to.throw(/unknown key/);
  });

  it('refuses a ciphertext moved to another record (context is authenticated) or tampered with', () => {
    const cipher = new AesGcmCredentialCipher([keyA]);
    const sealed = cipher.seal('v', 'connector_account:ca_1');
    expect(() => cipher.open(sealed, 'connector_account:ca_2')).to.throw();
    const parts = sealed.ciphertext.split('.');
    parts[3] = Buffer.from('x').toString('base64url');
    expect(() => cipher.open({ ...sealed, ciphertext: parts.join('.') }, 'connector_account:ca_1')).to.throw();
  });

  it('reads CREDENTIALS_KEY as a comma-separated list (current first), base64 or hex', () => {
    const keys = loadCredentialKeys({
      credentialsKey: `${keyB.toString('base64')},${keyA.toString('hex')}`,
      dataDir: '/nonexistent',
      deployment: 'production',
      distributed: true,
    });
    expect(keys.map((k) => k.toString('hex'))).to.deep.equal([keyB.toString('hex'), keyA.toString('hex')]);
    expect(() => parseCredentialKey('c2hvcnQ=')).to.throw(/32 bytes/);
  });

  it('without CREDENTIALS_KEY keeps a 0600 key file in the data directory (same key on restart)', () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'cipher-'));
    const first = loadCredentialKeys({ credentialsKey: null, dataDir, deployment: 'local', distributed: false });
    const again = loadCredentialKeys({ credentialsKey: null, dataDir, deployment: 'local', distributed: false });
    expect(first[0]!.equals(again[0]!)).to.equal(true);
    expect(statSync(path.join(dataDir, 'credentials.key')).mode & 0o777).to.equal(0o600);
  });

  it('refuses to invent a per-machine key for a distributed production deployment', () => {
    expect(() => loadCredentialKeys({ credentialsKey: null, dataDir: '/tmp', deployment: 'production', distributed: true })).to.throw(
      /CREDENTIALS_KEY/,
    );
  });
});
