import { randomBytes } from 'node:crypto';
import type { Transactor } from '../../domain/ports/transactor';
import { entityManager } from './mikro-orm-transactor';

/**
 * A named installation secret (token signing, pseudonymization) kept in the database when no SESSION_SECRET
 * is configured: every process of the installation reads the same value, and it survives restarts.
 */
export async function installationSecret(transactor: Transactor, name: string): Promise<string> {
  return transactor.run(async (tx) => {
    const em = entityManager(tx);
    await em.execute(`insert into identity_secrets (name, value) values (?, ?) on conflict (name) do nothing`, [name, randomBytes(48).toString('base64url')]);
    const rows = await em.execute<Array<{ value: string }>>(`select value from identity_secrets where name = ?`, [name]);
    return rows[0]!.value;
  });
}
