/**
 * The canonical list of scopes. API keys carry a subset (default: all); dashboard sessions get theirs from
 * the user's role. Routes declare the scopes they need.
 */
export const SCOPES = [
  'payments:read', 'payments:write',
  'customers:read', 'customers:write',
  'connectors:read', 'connectors:write',
  'flows:read', 'flows:write',
  'webhooks:read', 'webhooks:write',
  'events:read',
  'recipients:read', 'recipients:write',
  'subscriptions:read', 'subscriptions:write',
  'billing:read', 'billing:write',
  'security:read', 'security:write',
  'api_keys:read', 'api_keys:write',
] as const;

export type Scope = (typeof SCOPES)[number];

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}
