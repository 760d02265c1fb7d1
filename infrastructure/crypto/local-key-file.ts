import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/**
 * A 32-byte key kept in a file of the data directory with mode 0600 (contract.md section 6: embedded mode
 * creates the credentials key there). Created on first use; the same key afterwards, so stored ciphertexts
 * stay readable across restarts. Returned base64-encoded, the format CREDENTIALS_KEY uses.
 */
export function localKeyFile(dataDir: string, name: string): string {
  const file = path.join(dataDir, `${name}.key`);
  try {
    return fs.readFileSync(file, 'utf8').trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const key = randomBytes(32).toString('base64');
  // Written whole under a private name, then linked into place: another process starting at the same
  // moment either wins the link (and we read its key) or never sees a half-written file.
  const temporary = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  fs.writeFileSync(temporary, key, { mode: 0o600 });
  try {
    fs.linkSync(temporary, file);
    return key;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return fs.readFileSync(file, 'utf8').trim();
    throw error;
  } finally {
    fs.rmSync(temporary, { force: true });
  }
}
