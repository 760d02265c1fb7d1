import { randomBytes } from 'node:crypto';
import type { CredentialCipher } from '../../domain/ports/credential-cipher';
import type { Transactor } from '../../domain/ports/transactor';
import { isSealedText, openSealedText, sealText } from '../crypto/sealed-text';
import { entityManager } from './mikro-orm-transactor';

/**
 * A named installation secret kept in the database, generated on first use: every process of the installation
 * reads the same value, and it survives restarts. `session` signs dashboard access tokens when no SESSION_SECRET is
 * configured (whoever reads it can forge one); `pseudonymization` keys the card-testing pseudonyms, independent of
 * SESSION_SECRET so rotating that keeps blocks and counting windows. Each is sealed with the credentials key (bound to
 * its name). One stored in clear before sealing began is read as it is until the secrets-at-rest migration seals it.
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
