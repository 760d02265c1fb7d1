import type { AcquirerGateway, SandboxChargeSimulator } from '../../domain/ports/acquirer-gateway';
import type { AntifraudGateway } from '../../domain/ports/antifraud-gateway';
import type { ConnectorCatalog } from '../../domain/ports/connector-catalog';
import type { ConnectorDescription, VerifyCredentialsInput, VerifyCredentialsOutput } from '../../domain/ports/connector-description';
import { processableCapabilities } from '../../domain/connector-account/supported-capabilities';

/**
 * The catalog as the rest of the service reads it: every entry's capabilities narrowed to what the core can
 * process (SUPPORTED_CAPABILITIES). The catalog route, GET /health, effectiveCapabilities and routing all read
 * descriptions through it, so they agree and grow together when a capability lands.
 */
export class ProcessableConnectorCatalog implements ConnectorCatalog {
  constructor(private readonly declared: ConnectorCatalog) {}

  async list(): Promise<ConnectorDescription[]> {
    return (await this.declared.list()).map(narrowed);
  }

  async find(slug: string): Promise<ConnectorDescription | null> {
    const description = await this.declared.find(slug);
    return description && narrowed(description);
  }

  verify(slug: string, input: VerifyCredentialsInput): Promise<VerifyCredentialsOutput> {
    return this.declared.verify(slug, input);
  }

  acquirer(slug: string): AcquirerGateway {
    return this.declared.acquirer(slug);
  }

  antifraud(slug: string): AntifraudGateway {
    return this.declared.antifraud(slug);
  }

  sandboxSimulator(slug: string): SandboxChargeSimulator {
    return this.declared.sandboxSimulator(slug);
  }
}

function narrowed(description: ConnectorDescription): ConnectorDescription {
  return { ...description, capabilities: processableCapabilities(description.capabilities) };
}
