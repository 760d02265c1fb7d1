import { expect } from 'chai';
import { fork } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { localKeyFile } from '../../../infrastructure/crypto/local-key-file';

describe('local key file (embedded-mode keys under DATA_DIR)', () => {
  it('creates a 32-byte key with mode 0600 once and returns the same key afterwards', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'keys-'));
    try {
      const key = localKeyFile(dir, 'credentials');
      expect(Buffer.from(key, 'base64')).to.have.length(32);
      expect(fs.statSync(path.join(dir, 'credentials.key')).mode & 0o777).to.equal(0o600);
      expect(localKeyFile(dir, 'credentials')).to.equal(key);
      expect(fs.readdirSync(dir)).to.deep.equal(['credentials.key']);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('gives every process starting at the same moment the same whole key', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'keys-race-'));
    const script = path.join(dir, 'read-key.js');
    fs.writeFileSync(script, `require(${JSON.stringify(require.resolve('tsx/cjs'))}); const { localKeyFile } = require(${JSON.stringify(path.resolve(__dirname, '../../../infrastructure/crypto/local-key-file.ts'))}); process.send(localKeyFile(process.argv[2], 'credentials'));`);
    try {
      const keys = await Promise.all(
        Array.from({ length: 6 }, () => new Promise<string>((resolve, reject) => {
          const child = fork(script, [dir], { cwd: path.resolve(__dirname, '../../..') });
          child.once('message', (key) => resolve(String(key)));
          child.once('error', reject);
        })),
      );
      expect(new Set(keys).size).to.equal(1);
      expect(Buffer.from(keys[0], 'base64')).to.have.length(32);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
