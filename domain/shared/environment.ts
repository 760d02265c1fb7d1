export const ENVIRONMENTS = ['sandbox', 'live'] as const;
export type Environment = (typeof ENVIRONMENTS)[number];

/** Every tenant-owned record belongs to one organization and one environment; queries are always scoped by both. */
export interface TenantScope {
  readonly organizationId: string;
  readonly environment: Environment;
}
