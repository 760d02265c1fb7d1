/**
 * Hand-written in-memory fakes of the webhook ports, for application unit tests (no I/O). They keep aggregate
 * state the way the SQL repositories do (restore on read, so tests see what was saved, not shared objects).
 */
import type { WebhookDeps } from '../../../application/webhook/webhook-deps';
import type { EventOutbox, NewEvent, StoredEvent } from '../../../domain/ports/event-outbox';
import type { Transaction, Transactor } from '../../../domain/ports/transactor';
import type { DeliveryOutcomeWrite, NewAttemptRecord, WebhookDeliveryRepository, WebhookEndpointRepository } from '../../../domain/ports/webhook-repositories';
import type { WebhookRequest, WebhookResponse, WebhookSender } from '../../../domain/ports/webhook-sender';
import type { WebhookSigner } from '../../../domain/ports/webhook-signer';
import { DomainError } from '../../../domain/shared/domain-error';
import type { TenantScope } from '../../../domain/shared/environment';
import { DEFAULT_RETRY_POLICY } from '../../../domain/webhook/retry-policy';
import { WebhookDelivery, type DeliveryAttempt } from '../../../domain/webhook/webhook-delivery';
import { WebhookEndpoint } from '../../../domain/webhook/webhook-endpoint';
import { ManualClock } from '../../../infrastructure/clock/system-clock';

const TX = {} as Transaction;

export class FakeTransactor implements Transactor {
  commits = 0;
  async run<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
    const result = await work(TX);
    this.commits += 1;
    return result;
  }
  read<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
    return work(TX);
  }
}

export class InMemoryEndpoints implements WebhookEndpointRepository {
  readonly rows = new Map<string, WebhookEndpoint['state']>();
  private copy(state: WebhookEndpoint['state']): WebhookEndpoint {
    return WebhookEndpoint.restore({ ...state, enabledEvents: [...state.enabledEvents], customHeaders: { ...state.customHeaders } });
  }
  async insert(_tx: Transaction, endpoint: WebhookEndpoint): Promise<void> {
    const s = endpoint.state;
    for (const row of this.rows.values()) {
      if (row.deletedAt === null && row.organizationId === s.organizationId && row.environment === s.environment && row.url === s.url) {
        throw new DomainError('webhook_url_taken', 'taken');
      }
    }
    this.rows.set(s.id, { ...s });
  }
  async update(_tx: Transaction, endpoint: WebhookEndpoint): Promise<void> {
    this.rows.set(endpoint.id, { ...endpoint.state });
  }
  async find(_tx: Transaction, scope: TenantScope, id: string, options: { includeDeleted?: boolean } = {}): Promise<WebhookEndpoint | null> {
    const row = this.rows.get(id);
    if (!row || row.organizationId !== scope.organizationId || row.environment !== scope.environment) return null;
    if (row.deletedAt !== null && !options.includeDeleted) return null;
    return this.copy(row);
  }
  async findById(_tx: Transaction, id: string): Promise<WebhookEndpoint | null> {
    const row = this.rows.get(id);
    return row ? this.copy(row) : null;
  }
  async list(tx: Transaction, scope: TenantScope): Promise<WebhookEndpoint[]> {
    return [...this.rows.values()]
      .filter((r) => r.organizationId === scope.organizationId && r.environment === scope.environment && r.deletedAt === null)
      .map((r) => this.copy(r));
  }
  async countForUpdate(tx: Transaction, scope: TenantScope): Promise<number> {
    return (await this.list(tx, scope)).length;
  }
  async listReceiving(tx: Transaction, scopes: readonly TenantScope[]): Promise<WebhookEndpoint[]> {
    const lists = await Promise.all(scopes.map((scope) => this.list(tx, scope)));
    return lists.flat().filter((e) => e.receivesDeliveries());
  }
  async findByIds(_tx: Transaction, ids: readonly string[]): Promise<WebhookEndpoint[]> {
    return [...ids].sort().flatMap((id) => (this.rows.has(id) ? [this.copy(this.rows.get(id)!)] : []));
  }
  async recordHealth(_tx: Transaction, endpoints: readonly WebhookEndpoint[]): Promise<void> {
    for (const endpoint of endpoints) this.rows.set(endpoint.id, { ...endpoint.state });
  }
}

export class InMemoryDeliveries implements WebhookDeliveryRepository {
  readonly rows = new Map<string, WebhookDelivery['state']>();
  readonly attempts: Array<{ deliveryId: string; attempt: DeliveryAttempt }> = [];
  readonly leases = new Map<string, string>();
  readonly requestHeaders = new Map<string, Record<string, string> | null>();
  private copy(state: WebhookDelivery['state']): WebhookDelivery {
    return WebhookDelivery.restore({ ...state, attemptLog: [...state.attemptLog] });
  }
  async insertManyIfAbsent(tx: Transaction, rows: ReadonlyArray<{ delivery: WebhookDelivery; lease?: { owner: string; until: Date } }>): Promise<string[]> {
    const inserted: string[] = [];
    for (const { delivery, lease } of rows) if (await this.insertIfAbsent(tx, delivery, lease)) inserted.push(delivery.id);
    return inserted;
  }
  async insertIfAbsent(_tx: Transaction, delivery: WebhookDelivery, lease?: { owner: string; until: Date }): Promise<boolean> {
    const s = delivery.state;
    if ([...this.rows.values()].some((r) => r.eventId === s.eventId && r.endpointId === s.endpointId)) return false;
    this.rows.set(s.id, { ...s, attemptLog: [...s.attemptLog] });
    if (lease) this.leases.set(s.id, lease.owner);
    return true;
  }
  async update(_tx: Transaction, delivery: WebhookDelivery, requestHeaders?: Record<string, string> | null): Promise<void> {
    this.rows.set(delivery.id, { ...delivery.state, attemptLog: [...delivery.state.attemptLog] });
    if (requestHeaders !== undefined) this.requestHeaders.set(delivery.id, requestHeaders);
  }
  async recordOutcomes(_tx: Transaction, writes: readonly DeliveryOutcomeWrite[], attempts: readonly NewAttemptRecord[]): Promise<void> {
    for (const w of writes) {
      const stored = this.rows.get(w.delivery.id);
      const asClaimed = stored !== undefined && (stored.status === 'pending' || stored.status === 'failed') && (w.expectedAttempts === undefined || stored.attempts === w.expectedAttempts);
      if (w.moveState && asClaimed) {
        this.rows.set(w.delivery.id, { ...w.delivery.state, attemptLog: [...w.delivery.state.attemptLog] });
        if (w.requestHeaders !== undefined) this.requestHeaders.set(w.delivery.id, w.requestHeaders);
      }
      if (this.leases.get(w.delivery.id) === w.leaseOwner) this.leases.delete(w.delivery.id);
    }
    for (const record of attempts) this.attempts.push({ deliveryId: record.delivery.id, attempt: record.attempt });
  }
  async find(_tx: Transaction, scope: TenantScope, endpointId: string, id: string): Promise<WebhookDelivery | null> {
    const row = this.rows.get(id);
    if (!row || row.endpointId !== endpointId || row.organizationId !== scope.organizationId || row.environment !== scope.environment) return null;
    return this.copy(row);
  }
  async findById(_tx: Transaction, id: string): Promise<WebhookDelivery | null> {
    const row = this.rows.get(id);
    return row ? this.copy(row) : null;
  }
  async findByIds(_tx: Transaction, ids: readonly string[]): Promise<WebhookDelivery[]> {
    return [...ids].sort().flatMap((id) => (this.rows.has(id) ? [this.copy(this.rows.get(id)!)] : []));
  }
  async cancelQueued(_tx: Transaction, endpointId: string, now: Date): Promise<number> {
    let n = 0;
    for (const row of this.rows.values()) {
      if (row.endpointId !== endpointId) continue;
      const d = this.copy(row);
      if (d.cancelForSwitchedOffEndpoint(now)) {
        this.rows.set(d.id, { ...d.state });
        n += 1;
      }
    }
    return n;
  }

}

export class ScriptedSender implements WebhookSender {
  readonly sent: WebhookRequest[] = [];
  /** Runs while the request is "on the wire" (to change state mid-flight). */
  duringSend: (() => Promise<void> | void) | null = null;
  answer: (request: WebhookRequest) => Omit<WebhookResponse, 'startedAt' | 'durationMs'> = () => ({ status: 200, body: 'ok', error: null });
  constructor(private readonly clock: ManualClock) {}
  async send(request: WebhookRequest): Promise<WebhookResponse> {
    this.sent.push(request);
    if (this.duringSend) await this.duringSend();
    return { ...this.answer(request), startedAt: this.clock.now(), durationMs: 12 };
  }
}

/** Deterministic signer: the header names the secrets and timestamp so tests can read what was used. */
export class RecordingSigner implements WebhookSigner {
  private n = 0;
  sign(secrets: readonly string[], t: number): string {
    return `t=${t},${secrets.map((s) => `v1=${s}`).join(',')}`;
  }
  generateSecret(): string {
    return `whsec_test${++this.n}`;
  }
}

export class InMemoryOutbox implements EventOutbox {
  readonly events: StoredEvent[] = [];
  private seq = 0;
  constructor(private readonly clock: ManualClock) {}
  async append(_tx: Transaction, events: readonly NewEvent[]): Promise<StoredEvent[]> {
    const stored = events.map((e) => ({
      id: `evt_${++this.seq}`,
      type: e.type,
      apiVersion: '2026-01-01',
      createdAt: this.clock.now().toISOString(),
      environment: e.scope.environment,
      sequence: this.seq,
      data: { object: { ...e.object }, previousAttributes: e.previousAttributes ?? null },
      organizationId: e.scope.organizationId,
    }));
    this.events.push(...stored);
    return stored;
  }
}

export interface WebhookWorld {
  deps: WebhookDeps;
  clock: ManualClock;
  endpoints: InMemoryEndpoints;
  deliveries: InMemoryDeliveries;
  sender: ScriptedSender;
  outbox: InMemoryOutbox;
  dueNudges: number;
}

export function webhookWorld(start = new Date('2026-01-10T00:00:00.000Z')): WebhookWorld {
  const clock = new ManualClock(start);
  let ids = 0;
  const world = {
    clock,
    endpoints: new InMemoryEndpoints(),
    deliveries: new InMemoryDeliveries(),
    sender: new ScriptedSender(clock),
    outbox: new InMemoryOutbox(clock),
    dueNudges: 0,
  } as WebhookWorld;
  world.deps = {
    transactor: new FakeTransactor(),
    endpoints: world.endpoints,
    deliveries: world.deliveries,
    outbox: world.outbox,
    signer: new RecordingSigner(),
    sender: world.sender,
    clock,
    ids: { next: (prefix: string) => `${prefix}${String(++ids).padStart(4, '0')}` },
    settings: { deployment: 'production', retryPolicy: DEFAULT_RETRY_POLICY, timeoutMs: 10_000 },
    random: () => 0.5,
    onDeliveriesDue: () => {
      world.dueNudges += 1;
    },
  };
  return world;
}
