import { DomainError } from '../shared/domain-error';

import { SCOPES, isScope, type Scope } from '../api-key/scopes';

/** The canonical scope list lives with API keys (domain/api-key/scopes.ts); roles map onto it here. */
export { SCOPES, isScope, type Scope };

export const ROLES = ['owner', 'administrator', 'developer', 'analyst'] as const;
export type Role = (typeof ROLES)[number];

const READ_ONLY: readonly Scope[] = [
  'payments:read',
  'customers:read',
  'recipients:read',
  'subscriptions:read',
  'connectors:read',
  'flows:read',
  'webhooks:read',
  'events:read',
  'billing:read',
];

const OPERATIONS: readonly Scope[] = [
  ...READ_ONLY.filter((scope) => scope !== 'billing:read'),
  'payments:write',
  'customers:write',
  'recipients:write',
  'subscriptions:write',
  'connectors:write',
  'flows:write',
  'webhooks:write',
];

/**
 * Role to scope table. Owner and administrator hold every scope; what only the owner may do (brand
 * creation, plan subscription) is a role check on top of scopes, not a scope, so an API key can never do it.
 * Developers run the integration but cannot see billing, security or manage API keys; analysts only read.
 */
export const ROLE_SCOPES: Readonly<Record<Role, readonly Scope[]>> = {
  owner: SCOPES,
  administrator: SCOPES,
  developer: OPERATIONS,
  analyst: READ_ONLY,
};

export function scopesOfRole(role: Role): Scope[] {
  return [...ROLE_SCOPES[role]];
}

export function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value);
}

/** Owner or administrator: security incident actions and API key management need one of these sessions. */
export function isAccountAdmin(role: Role): boolean {
  return role === 'owner' || role === 'administrator';
}

export function hasScopes(granted: readonly string[], required: readonly string[]): boolean {
  return required.every((scope) => granted.includes(scope));
}

/** Scopes requested for a new API key: a subset of the known list, no duplicates; default every scope. */
export function normalizeRequestedScopes(requested: readonly string[] | undefined): Scope[] {
  if (requested === undefined) return [...SCOPES];
  const unknown = requested.filter((scope) => !isScope(scope));
  if (unknown.length > 0) {
    throw new DomainError('validation_failed', `Unknown scope: ${unknown[0]}`, { param: 'body.scopes' });
  }
  if (requested.length === 0) {
    throw new DomainError('validation_failed', 'At least one scope is required', { param: 'body.scopes' });
  }
  return SCOPES.filter((scope) => requested.includes(scope));
}
