import type { ConnectorCapabilities } from '../../domain/ports/connector-capabilities';
import type { ConnectorCatalog } from '../../domain/ports/connector-catalog';
import { effectiveCapabilities } from './connector-account-view';

/**
 * Capabilities as connector accounts show them (effectiveCapabilities), read from the catalog the accounts use: its
 * Describe answers are cached, shared by concurrent callers and bounded by the connector deadline, and an adapter that
 * cannot be described is left out of `list()`, so its connector is absent here (unknown) rather than capable of nothing.
 */
export class CatalogConnectorCapabilities implements ConnectorCapabilities {
  constructor(private readonly catalog: Pick<ConnectorCatalog, 'list'>) {}

  async known(): Promise<ReadonlyMap<string, readonly string[]>> {
    return new Map((await this.catalog.list()).map((description) => [description.slug, effectiveCapabilities(description)]));
  }
}
