import { credentialsCipher } from './credentials-cipher';
import type { Core } from './core';
import { SqlConnectorAccountRepository } from '../persistence/connector-account.repository';
import { resealSealedValues } from '../persistence/credentials-reseal';

/**
 * CLI `credentials reseal` (docs/operations.md, rotating CREDENTIALS_KEY): after the new key is put first in
 * CREDENTIALS_KEY (old keys after it) on every process, re-seals with it everything sealed with the credentials key:
 * connector accounts (credentials and notice token), then the values of credentials-reseal.ts (webhook secrets and
 * header values, Idempotency-Key answers, installation secrets, TOTP secrets, payments' client secrets). `remaining`
 * counts, per table, the rows still sealed with another key: when every count is 0 the old keys can be removed.
 * Prints counts and key ids only, never a value.
 */
export async function resealCredentials(core: Core): Promise<string> {
  const cipher = credentialsCipher(core.config);
  const accounts = new SqlConnectorAccountRepository(cipher);
  const connectorAccounts = await core.transactor.run((tx) => accounts.resealWithCurrentKey(tx));
  const values = await resealSealedValues(core.transactor, cipher);
  const connectorAccountsByKeyId = await core.transactor.read((tx) => accounts.countByKeyId(tx));
  const connectorAccountsLeft = Object.entries(connectorAccountsByKeyId)
    .filter(([keyId]) => keyId !== cipher.currentKeyId)
    .reduce((sum, [, rows]) => sum + rows, 0);
  return JSON.stringify(
    {
      object: 'credentials_reseal',
      currentKeyId: cipher.currentKeyId,
      resealed: { connector_accounts: connectorAccounts, ...values.resealed },
      remaining: { connector_accounts: connectorAccountsLeft, ...values.remaining },
      connectorAccountsByKeyId,
    },
    null,
    2,
  );
}
