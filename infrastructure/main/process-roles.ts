/**
 * The roles `node dist/infrastructure/main/main.js <role>` accepts. Kept apart from main.ts (which starts a process
 * when loaded) so the deployment files' tests can check that every role they start is one of these.
 */

/** Roles of the service itself: they share the database, the event transport and the modules. */
export const SERVICE_ROLES = ['all', 'edge', 'worker', 'migrate'] as const;
export type ServiceRole = (typeof SERVICE_ROLES)[number];

/** Roles that run one adapter alone, named by its slug: `connector sandbox`, `antifraud sandbox-antifraud`. */
export const ADAPTER_ROLES = ['connector', 'antifraud'] as const;
export type AdapterRole = (typeof ADAPTER_ROLES)[number];

export function isServiceRole(role: string): role is ServiceRole {
  return (SERVICE_ROLES as readonly string[]).includes(role);
}

export function isAdapterRole(role: string): role is AdapterRole {
  return (ADAPTER_ROLES as readonly string[]).includes(role);
}
