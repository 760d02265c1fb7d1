import type { Config } from '../config/config';
import { AesGcmCredentialCipher, loadCredentialKeys } from '../crypto/aes-gcm-credential-cipher';

/** The credentials key's cipher as the configuration gives it (CREDENTIALS_KEY, or embedded mode's key file). */
export function credentialsCipher(config: Config): AesGcmCredentialCipher {
  return new AesGcmCredentialCipher(
    loadCredentialKeys({
      credentialsKey: config.credentialsKey,
      dataDir: config.dataDir,
      deployment: config.deployment,
      distributed: config.databaseUrl !== null,
    }),
  );
}
