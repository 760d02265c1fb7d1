import type { AcquirerGateway, SandboxChargeSimulator } from '../../domain/ports/acquirer-gateway';
import type { AntifraudGateway } from '../../domain/ports/antifraud-gateway';
import type { ConnectorCatalog } from '../../domain/ports/connector-catalog';
import type {
  ConnectorDescription,
  ConnectorKind,
  VerifyCredentialsInput,
  VerifyCredentialsOutput,
} from '../../domain/ports/connector-description';
import { ConnectorFailure } from '../../domain/shared/connector-failure';
import { GrpcAcquirerGateway } from '../grpc/grpc-acquirer.gateway';
import { GrpcAntifraudGateway } from '../grpc/grpc-antifraud.gateway';
import { COMING_SOON_CONNECTORS } from './coming-soon';

export interface ConfiguredAdapter {
  readonly slug: string;
  /** host:port of the adapter's gRPC server. */
  readonly address: string;
}

interface AdapterEntry {
  readonly adapter: ConfiguredAdapter;
  acquirer?: GrpcAcquirerGateway;
  antifraud?: GrpcAntifraudGateway;
  description?: ConnectorDescription;
  describedAt?: number;
  pending?: Promise<ConnectorDescription | null>;
}

/**
 * The catalog over the configured gRPC adapters. Each adapter is asked Describe once (cached; asked again after
 * `refreshMs`, and at once after a failure), first as an AcquirerConnector and, if it does not implement that
 * service, as an AntifraudConnector. The configured slug is authoritative: it is the one line of configuration
 * that adds a partner. Coming-soon entries fill in slugs no adapter serves.
 */
export class GrpcConnectorCatalog implements ConnectorCatalog {
  private readonly entries = new Map<string, AdapterEntry>();

  constructor(
    adapters: readonly ConfiguredAdapter[],
    private readonly options: { deadlineMs: number; refreshMs?: number; comingSoon?: readonly ConnectorDescription[] } = { deadlineMs: 5_000 },
  ) {
    for (const adapter of adapters) this.entries.set(adapter.slug, { adapter });
  }

  get configuredSlugs(): string[] {
    return [...this.entries.keys()];
  }

  close(): void {
    for (const entry of this.entries.values()) {
      entry.acquirer?.close();
      entry.antifraud?.close();
    }
  }

  private acquirerOf(entry: AdapterEntry): GrpcAcquirerGateway {
    entry.acquirer ??= new GrpcAcquirerGateway(entry.adapter.address, { deadlineMs: this.options.deadlineMs, slug: entry.adapter.slug });
    return entry.acquirer;
  }

  private antifraudOf(entry: AdapterEntry): GrpcAntifraudGateway {
    entry.antifraud ??= new GrpcAntifraudGateway(entry.adapter.address, { deadlineMs: this.options.deadlineMs, slug: entry.adapter.slug });
    return entry.antifraud;
  }

  private async describeEntry(entry: AdapterEntry): Promise<ConnectorDescription | null> {
    const fresh = entry.describedAt !== undefined && Date.now() - entry.describedAt < (this.options.refreshMs ?? 60_000);
    if (entry.description && fresh) return entry.description;
    entry.pending ??= (async () => {
      try {
        let description: ConnectorDescription;
        try {
          description = await this.acquirerOf(entry).describe();
        } catch (error) {
          // An antifraud adapter does not serve AcquirerConnector: gRPC UNIMPLEMENTED.
          if (!(error instanceof ConnectorFailure) || error.transportCode !== 'UNIMPLEMENTED') throw error;
          description = await this.antifraudOf(entry).describe();
        }
        entry.description = { ...description, slug: entry.adapter.slug };
        entry.describedAt = Date.now();
        return entry.description;
      } catch {
        // Keep the last good description if there is one; an adapter restarting should not empty the catalog.
        return entry.description ?? null;
      } finally {
        entry.pending = undefined;
      }
    })();
    return entry.pending;
  }

  async list(): Promise<ConnectorDescription[]> {
    const described = (await Promise.all([...this.entries.values()].map((e) => this.describeEntry(e)))).filter(
      (d): d is ConnectorDescription => d !== null,
    );
    const served = new Set(this.entries.keys());
    return [...described, ...(this.options.comingSoon ?? COMING_SOON_CONNECTORS).filter((c) => !served.has(c.slug))];
  }

  async find(slug: string): Promise<ConnectorDescription | null> {
    const entry = this.entries.get(slug);
    if (entry) return this.describeEntry(entry);
    return (this.options.comingSoon ?? COMING_SOON_CONNECTORS).find((c) => c.slug === slug) ?? null;
  }

  private async kindOf(slug: string): Promise<ConnectorKind> {
    const description = await this.find(slug);
    if (!description || !this.entries.has(slug)) {
      throw new ConnectorFailure('technical', `Connector ${slug} is not configured`, { nothingSent: true, connectorSlug: slug });
    }
    return description.kind;
  }

  async verify(slug: string, input: VerifyCredentialsInput): Promise<VerifyCredentialsOutput> {
    const kind = await this.kindOf(slug);
    const entry = this.entries.get(slug)!;
    return kind === 'antifraud' ? this.antifraudOf(entry).verifyCredentials(input) : this.acquirerOf(entry).verifyCredentials(input);
  }

  acquirer(slug: string): AcquirerGateway {
    const entry = this.entries.get(slug);
    if (!entry || entry.description?.kind === 'antifraud') throw new Error(`${slug} is not a configured acquirer connector`);
    return this.acquirerOf(entry);
  }

  antifraud(slug: string): AntifraudGateway {
    const entry = this.entries.get(slug);
    if (!entry || entry.description?.kind === 'acquirer') throw new Error(`${slug} is not a configured antifraud connector`);
    return this.antifraudOf(entry);
  }

  sandboxSimulator(slug: string): SandboxChargeSimulator {
    const entry = this.entries.get(slug);
    if (!entry || slug !== 'sandbox') throw new Error(`${slug} is not the configured sandbox acquirer`);
    return this.acquirerOf(entry);
  }
}
