import type { AuthenticateApiKey } from '../../application/api-key/authenticate-api-key';
import type { BearerAuthenticator } from '../http/principal';

/** Bearer values shaped like API keys (sk_sandbox_..., sk_live_...) resolve to their key's principal. */
export function apiKeyAuthenticator(authenticate: AuthenticateApiKey): BearerAuthenticator {
  return async (token) => {
    const key = await authenticate.execute(token);
    if (!key) return null;
    return { kind: 'api_key', organizationId: key.organizationId, environment: key.environment, scopes: new Set(key.scopes), apiKeyId: key.id };
  };
}
