import type { CredentialCipher } from '../../../domain/ports/credential-cipher';

/**
 * The credentials cipher of the process applying migrations, for the data migrations that seal values: SQL has no
 * key, so `migrate` lends them its cipher for the run. Absent (a test database), such a migration only runs when
 * nothing needs sealing.
 */
let lent: CredentialCipher | null = null;

export async function withSealingCipher<T>(cipher: CredentialCipher | null, run: () => Promise<T>): Promise<T> {
  lent = cipher;
  try {
    return await run();
  } finally {
    lent = null;
  }
}

export function sealingCipher(migration: string): CredentialCipher {
  if (lent === null) throw new Error(`${migration} seals stored secrets and needs the credentials key (CREDENTIALS_KEY or the data directory's key file)`);
  return lent;
}
