import type { AcquirerGateway, SandboxChargeSimulator } from './acquirer-gateway';
import type { AntifraudGateway } from './antifraud-gateway';
import type { Transaction } from './transactor';
import type { TenantScope } from '../shared/environment';
import type { ConnectorDescription, VerifyCredentialsInput, VerifyCredentialsOutput } from './connector-description';

/**
 * The connectors this installation can use: the configured adapters (as described by their Describe) plus
 * catalog entries of partners not integrated yet (`available: false`). Adding a partner is configuration:
 * an adapter address, no code here.
 */
export interface ConnectorCatalog {
  /** Every entry, adapters first. An adapter that cannot be described right now is left out. */
  list(): Promise<ConnectorDescription[]>;
  /** The entry for a slug, or null when the slug is unknown (or its adapter is down). */
  find(slug: string): Promise<ConnectorDescription | null>;
  /** Light credential check at the partner, whatever its kind. */
  verify(slug: string, input: VerifyCredentialsInput): Promise<VerifyCredentialsOutput>;
  /** The gateway of an acquirer adapter; throws when the slug is not a configured acquirer. */
  acquirer(slug: string): AcquirerGateway;
  /** The gateway of an antifraud adapter; throws when the slug is not a configured antifraud provider. */
  antifraud(slug: string): AntifraudGateway;
  /** Bank simulation of the service's own sandbox acquirer (throws for any other slug). */
  sandboxSimulator(slug: string): SandboxChargeSimulator;
}

/** Published flows that cite accounts (provided by the flows capability). */
export interface ConnectorAccountUsage {
  /** By account id (accounts no published flow cites are absent); read in the caller's unit of work. */
  publishedFlowsUsing(tx: Transaction, scope: TenantScope, accountIds: readonly string[]): Promise<Map<string, Array<{ id: string; name: string }>>>;
}

/** Validates a value against a connector's JSON Schema; returns one entry per violation, empty when valid. */
export interface ConnectorSchemaValidator {
  validate(schema: object, value: unknown, paramPrefix: string): Array<{ param: string; message: string }>;
}
