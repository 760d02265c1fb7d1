import type { ConnectorAccountDeps } from '../../application/connector-account/connector-account-deps';
import type { ConnectorAccount } from '../../domain/connector-account/connector-account';
import type { CallRecord, HealthHistory, VerificationRecord } from '../../domain/connector-account/connector-account-health';
import type { AcquirerGateway, SandboxChargeSimulator } from '../../domain/ports/acquirer-gateway';
import type { AntifraudGateway } from '../../domain/ports/antifraud-gateway';
import type { ConnectorAccountRepository } from '../../domain/ports/connector-account-repository';
import type { ConnectorAccountUsage, ConnectorCatalog } from '../../domain/ports/connector-catalog';
import type { ConnectorDescription, VerifyCredentialsInput, VerifyCredentialsOutput } from '../../domain/ports/connector-description';
import type { Transaction } from '../../domain/ports/transactor';
import type { TenantScope } from '../../domain/shared/environment';
import { AjvConnectorSchemaValidator } from '../../infrastructure/connectors/ajv-connector-schema-validator';

/** Hand-written fakes of the connector-account ports, with intention-revealing asserts. */
export class InMemoryConnectorAccounts implements ConnectorAccountRepository {
  readonly rows = new Map<string, ConnectorAccount>();
  readonly health = new Map<string, { verification: VerificationRecord | null; calls: CallRecord[] }>();

  async insert(_tx: Transaction, account: ConnectorAccount) {
    this.rows.set(account.id, account);
  }
  async update(_tx: Transaction, account: ConnectorAccount) {
    this.rows.set(account.id, account);
  }
  async findById(_tx: Transaction, scope: TenantScope, id: string) {
    const a = this.rows.get(id);
    return a && !a.state.deletedAt && a.state.organizationId === scope.organizationId && a.state.environment === scope.environment ? a : null;
  }
  async list(_tx: Transaction, scope: TenantScope) {
    return [...this.rows.values()].filter(
      (a) => !a.state.deletedAt && a.state.organizationId === scope.organizationId && a.state.environment === scope.environment,
    );
  }
  async findByWebhookToken(_tx: Transaction, id: string, token: string) {
    const a = this.rows.get(id);
    return a && !a.state.deletedAt && a.state.webhookToken === token ? a : null;
  }
  private entry(id: string) {
    let e = this.health.get(id);
    if (!e) this.health.set(id, (e = { verification: null, calls: [] }));
    return e;
  }
  async recordVerification(_tx: Transaction, id: string, record: VerificationRecord) {
    this.entry(id).verification = record;
  }
  async recordCall(_tx: Transaction, _scope: unknown, id: string, record: CallRecord) {
    this.entry(id).calls.unshift(record);
  }
  async clearHealth(_tx: Transaction, id: string) {
    this.health.delete(id);
  }
  async healthOf(_tx: Transaction, ids: readonly string[]) {
    return new Map<string, HealthHistory>(ids.map((id) => [id, { lastVerification: this.health.get(id)?.verification ?? null, recentCalls: this.health.get(id)?.calls ?? [] }]));
  }
  hasVerification(id: string): boolean {
    return Boolean(this.health.get(id)?.verification);
  }
}

export const FAKE_SANDBOX: ConnectorDescription = {
  slug: 'sandbox',
  name: 'Sandbox Acquirer',
  kind: 'acquirer',
  capabilities: ['card', 'pix'],
  credentialSchema: {
    type: 'object',
    properties: { merchantId: { type: 'string', minLength: 1 }, apiKey: { type: 'string', minLength: 1, 'x-secret': true } },
    required: ['merchantId', 'apiKey'],
    additionalProperties: false,
  },
  configSchema: { type: 'object', properties: { softDescriptor: { type: 'string', maxLength: 22 } }, additionalProperties: false },
  available: true,
};

export class FakeConnectorCatalog implements ConnectorCatalog {
  readonly verifications: VerifyCredentialsInput[] = [];
  nextVerification: VerifyCredentialsOutput | Error = { result: 'valid', message: 'ok' };
  entries: ConnectorDescription[] = [FAKE_SANDBOX];

  async list() {
    return this.entries;
  }
  async find(slug: string) {
    return this.entries.find((e) => e.slug === slug) ?? null;
  }
  async verify(_slug: string, input: VerifyCredentialsInput) {
    this.verifications.push(input);
    if (this.nextVerification instanceof Error) throw this.nextVerification;
    return this.nextVerification;
  }
  acquirer(): AcquirerGateway {
    throw new Error('not used');
  }
  antifraud(): AntifraudGateway {
    throw new Error('not used');
  }
  sandboxSimulator(): SandboxChargeSimulator {
    throw new Error('not used');
  }
  /** The adapter went away: no description any more. */
  adapterDown(): void {
    this.entries = [];
  }
}

export function connectorAccountDeps(overrides: Partial<ConnectorAccountDeps> = {}) {
  const accounts = new InMemoryConnectorAccounts();
  const catalog = new FakeConnectorCatalog();
  let counter = 0;
  const usage: { current: ConnectorAccountUsage | undefined } = { current: undefined };
  const deps: ConnectorAccountDeps = {
    transactor: { run: (work) => work({} as Transaction), read: (work) => work({} as Transaction) },
    accounts,
    catalog,
    validator: new AjvConnectorSchemaValidator(),
    clock: { now: () => new Date('2026-11-22T12:00:00.000Z') },
    ids: { next: (prefix) => `${prefix}${String(++counter).padStart(4, '0')}` },
    random: { bytes: (n) => new Uint8Array(n).fill(7) },
    deployment: 'local',
    publicBaseUrl: 'https://api.example.com/',
    usage: () => usage.current,
    ...overrides,
  };
  return { deps, accounts, catalog, usage };
}
