import { DomainError } from '../shared/domain-error';
import type { Environment } from '../shared/environment';

export const API_KEY_PREFIX: Record<Environment, string> = { sandbox: 'sk_sandbox_', live: 'sk_live_' };

/** An API key as stored: the secret itself is never kept, only its hash and last four characters. */
export interface ApiKey {
  readonly id: string;
  readonly organizationId: string;
  readonly environment: Environment;
  readonly name: string;
  readonly scopes: readonly string[];
  readonly secretHash: string;
  readonly last4: string;
  readonly createdAt: Date;
  readonly revokedAt: Date | null;
}

/** The environment a presented key claims by its prefix, or null when it is not an API key at all. */
export function environmentOfKey(secret: string): Environment | null {
  if (secret.startsWith(API_KEY_PREFIX.sandbox)) return 'sandbox';
  if (secret.startsWith(API_KEY_PREFIX.live)) return 'live';
  return null;
}

export function assertKeyName(name: string): void {
  if (name.length < 1 || name.length > 120) throw new DomainError('validation_failed', 'name must be 1 to 120 characters', { param: 'body.name' });
}
