import { DomainError } from '../shared/domain-error';
import type { Environment, TenantScope } from '../shared/environment';
import type { ConnectorKind } from '../ports/connector-description';
import { mergeConfig, mergeCredentials } from './credential-fields';

/**
 * A merchant's account at one partner connector, in one environment. Holds the credentials in clear only in
 * memory (the repository encrypts them); the public view never carries them.
 */
export interface ConnectorAccountState {
  readonly id: string;
  readonly organizationId: string;
  readonly environment: Environment;
  readonly connectorSlug: string;
  readonly kind: ConnectorKind;
  name: string;
  credentials: Readonly<Record<string, string>>;
  config: Readonly<Record<string, unknown>>;
  costBasisPoints: number | null;
  enabled: boolean;
  /** Secret path segment of the inbound notification address (webhookUrl). */
  readonly webhookToken: string;
  readonly createdAt: Date;
  updatedAt: Date;
  deletedAt: Date | null;
}

export interface NewConnectorAccount {
  readonly id: string;
  readonly scope: TenantScope;
  readonly connectorSlug: string;
  readonly kind: ConnectorKind;
  readonly name: string;
  readonly credentials: Readonly<Record<string, string>>;
  readonly config: Readonly<Record<string, unknown>>;
  readonly costBasisPoints: number | null;
  readonly enabled: boolean;
  readonly webhookToken: string;
  readonly now: Date;
}

export interface ConnectorAccountChanges {
  readonly name?: string;
  readonly credentials?: Readonly<Record<string, string>>;
  /** null values reset a key to the connector's default; null as a whole resets every key. */
  readonly config?: Readonly<Record<string, unknown>> | null;
  /** undefined: unchanged; null: cleared. */
  readonly costBasisPoints?: number | null;
  readonly enabled?: boolean;
}

/** Slugs of the service's own test connectors: allowed in live only on a local deployment (contract.md 5). */
export function isSandboxConnector(slug: string): boolean {
  return slug === 'sandbox' || slug.startsWith('sandbox-');
}

export function assertConnectorAllowed(slug: string, environment: Environment, deployment: 'local' | 'production'): void {
  if (environment === 'live' && isSandboxConnector(slug) && deployment !== 'local') {
    throw new DomainError(
      'connector_not_allowed_in_environment',
      `The ${slug} connector is for testing: live accounts of it exist only on a local deployment.`,
      { param: 'body.connectorSlug' },
    );
  }
}

function assertCost(cost: number | null): void {
  if (cost !== null && (!Number.isInteger(cost) || cost < 0 || cost > 10_000)) {
    throw new DomainError('validation_failed', 'costBasisPoints must be an integer from 0 to 10000', { param: 'body.costBasisPoints' });
  }
}

export class ConnectorAccount {
  private constructor(private readonly s: ConnectorAccountState) {}

  static create(input: NewConnectorAccount): ConnectorAccount {
    assertCost(input.costBasisPoints);
    return new ConnectorAccount({
      id: input.id,
      organizationId: input.scope.organizationId,
      environment: input.scope.environment,
      connectorSlug: input.connectorSlug,
      kind: input.kind,
      name: input.name,
      credentials: { ...input.credentials },
      config: { ...input.config },
      costBasisPoints: input.costBasisPoints,
      enabled: input.enabled,
      webhookToken: input.webhookToken,
      createdAt: input.now,
      updatedAt: input.now,
      deletedAt: null,
    });
  }

  static restore(state: ConnectorAccountState): ConnectorAccount {
    return new ConnectorAccount({ ...state });
  }

  get state(): Readonly<ConnectorAccountState> {
    return this.s;
  }
  get id(): string {
    return this.s.id;
  }
  get scope(): TenantScope {
    return { organizationId: this.s.organizationId, environment: this.s.environment };
  }

  /**
   * What the merged account would look like, without applying it: lets the caller validate the merged
   * credentials/config against the connector's schemas first. `credentialsChanged` says whether the health
   * history must be cleared.
   */
  preview(changes: ConnectorAccountChanges): {
    credentials: Record<string, string>;
    config: Record<string, unknown>;
    credentialsChanged: boolean;
  } {
    const { merged, changed } = mergeCredentials(this.s.credentials, changes.credentials);
    return { credentials: merged, config: mergeConfig(this.s.config, changes.config), credentialsChanged: changed };
  }

  /** Applies a PATCH; returns whether a credential changed (the caller then clears the health history). */
  apply(changes: ConnectorAccountChanges, now: Date): { credentialsChanged: boolean } {
    if (this.s.deletedAt) throw new DomainError('not_found', `No such connector account: ${this.s.id}`);
    const next = this.preview(changes);
    if (changes.costBasisPoints !== undefined) assertCost(changes.costBasisPoints);
    if (changes.name !== undefined) this.s.name = changes.name;
    this.s.credentials = next.credentials;
    this.s.config = next.config;
    if (changes.costBasisPoints !== undefined) this.s.costBasisPoints = changes.costBasisPoints;
    if (changes.enabled !== undefined) this.s.enabled = changes.enabled;
    this.s.updatedAt = now;
    return { credentialsChanged: next.credentialsChanged };
  }

  markDeleted(now: Date): void {
    this.s.deletedAt = now;
    this.s.enabled = false;
    this.s.updatedAt = now;
  }
}
