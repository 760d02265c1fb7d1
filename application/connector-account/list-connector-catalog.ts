import type { ConnectorDescription, ConnectorKind } from '../../domain/ports/connector-description';
import type { ConnectorCatalog } from '../../domain/ports/connector-catalog';

/** GET /v1/connectors: the configured adapters' descriptions plus coming-soon entries, filterable. */
export class ListConnectorCatalog {
  constructor(private readonly catalog: ConnectorCatalog) {}

  async execute(filter: { kind?: ConnectorKind; capability?: string } = {}): Promise<ConnectorDescription[]> {
    const entries = await this.catalog.list();
    return entries.filter(
      (entry) =>
        (filter.kind === undefined || entry.kind === filter.kind) &&
        (filter.capability === undefined || entry.capabilities.includes(filter.capability)),
    );
  }
}
