import { randomBytes } from 'node:crypto';
import type { CredentialCipher } from '../../domain/ports/credential-cipher';
import type { Transactor } from '../../domain/ports/transactor';
import { isSealedText, openSealedText, sealText } from '../crypto/sealed-text';
import { entityManager } from './mikro-orm-transactor';

/**
 * A named installation secret (token signing, pseudonymization) kept in the database when no SESSION_SECRET
 * is configured: every process of the installation reads the same value, and it survives restarts. It signs
 * dashboard access tokens, so whoever reads it can forge one: it is sealed with the credentials key (bound to its
 * name). One stored in clear before sealing began is read as it is until the secrets-at-rest migration seals it.
 */
export async function installationSecret(transactor: Transactor, name: string, cipher: CredentialCipher): Promise<string> {
  return transactor.run(async (tx) => {
    const em = entityManager(tx);
    const fresh = sealText(cipher, randomBytes(48).toString('base64url'), installationSecretContext(name));
    await em.execute(`insert into identity_secrets (name, value) values (?, ?) on conflict (name) do nothing`, [name, fresh]);
    const rows = await em.execute<Array<{ value: string }>>(`select value from identity_secrets where name = ?`, [name]);
    const stored = rows[0]!.value;
    return isSealedText(stored) ? openSealedText(cipher, stored, installationSecretContext(name)) : stored;
  });
}

export const installationSecretContext = (name: string): string => `identity_secret:${name}`;
