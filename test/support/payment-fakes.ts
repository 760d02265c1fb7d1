/**
 * Hand-written fakes of the payment ports, for use-case unit tests with no I/O. The gateway is scripted per
 * account: each authorize call takes the next scripted answer and records what it was asked.
 */
import { Customer } from '../../domain/customer/customer';
import { SavedPaymentMethod } from '../../domain/customer/saved-payment-method';
import { Payment } from '../../domain/payment/payment';
import { Recipient } from '../../domain/recipient/recipient';
import type { AcquirerGateway, AuthorizeInput, AuthorizeOutput, CancelChargeInput, ChargeOutput, ChargeStatus, ChargeStatusOutput, CreateBoletoInput, CreatePixChargeInput, OperationOutput, QueryChargeInput, SandboxChargeSimulator, ZeroAuthInput, ZeroAuthOutput } from '../../domain/ports/acquirer-gateway';
import type { ClaimedFlowRunWait, FlowRunWait, FlowRunWaitRepository } from '../../domain/ports/flow-run-waits';
import type { Clock } from '../../domain/ports/clock';
import type { EventOutbox, NewEvent, StoredEvent } from '../../domain/ports/event-outbox';
import type { IdGenerator } from '../../domain/ports/id-generator';
import type { PaymentConnectorAccount, PaymentConnectors } from '../../domain/ports/payment-connectors';
import type { CustomerListQuery, CustomerRepository, OperationIntent, PaymentListQuery, PaymentQueries, PaymentVersion, SettlementSchedule, PaymentRepository, ProductionUsage, SavedPaymentMethodRepository } from '../../domain/ports/payment-repositories';
import type { RecipientRepository } from '../../domain/ports/recipient-repository';
import type { Transaction, Transactor } from '../../domain/ports/transactor';
import { ConnectorFailure } from '../../domain/shared/connector-failure';
import type { TenantScope } from '../../domain/shared/environment';
import type { PaymentDeps } from '../../application/payments/payment-deps';
import { recipientInput } from './builders/recipient.builder';

const TX = {} as Transaction;
const key = (scope: TenantScope, id: string) => `${scope.organizationId}/${scope.environment}/${id}`;

export class SteppingClock implements Clock {
  constructor(public current = new Date('2026-03-01T12:00:00.000Z'), private readonly stepMs = 0) {}
  now(): Date {
    const value = new Date(this.current);
    this.current = new Date(this.current.getTime() + this.stepMs);
    return value;
  }
}

export class SequentialIds implements IdGenerator {
  private n = 0;
  next(prefix: string): string {
    return `${prefix}${String(++this.n).padStart(4, '0')}`;
  }
}

/** Counts transactions so tests can assert no connector call happens inside one. */
export class FakeTransactor implements Transactor {
  open = 0;
  committed = 0;
  async run<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
    this.open += 1;
    try {
      const result = await work(TX);
      this.committed += 1;
      return result;
    } finally {
      this.open -= 1;
    }
  }
  async read<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
    return work(TX);
  }
}

export class FakeOutbox implements EventOutbox {
  readonly events: NewEvent[] = [];
  async append(_tx: Transaction, events: readonly NewEvent[]): Promise<StoredEvent[]> {
    this.events.push(...events);
    return [];
  }
  types(): string[] {
    return this.events.map((e) => e.type);
  }
}

/** What InMemoryPayments.updateIfUnchanged throws when the stored payment changed since it was read. */
export class PaymentChangedMeanwhileError extends Error {
  constructor(readonly paymentId: string) {
    super(`payment ${paymentId} changed since read`);
  }
}

export class InMemoryPayments implements PaymentRepository {
  readonly rows = new Map<string, ReturnType<Payment['toPrimitives']>>();
  async insert(_tx: Transaction, payment: Payment) {
    const p = payment.toPrimitives();
    this.rows.set(key(p, p.id), p);
  }
  async update(_tx: Transaction, payment: Payment) {
    const p = payment.toPrimitives();
    this.rows.set(key(p, p.id), p);
  }
  /** Called before a guarded update compares: a test changes the stored payment there, as another request would. */
  beforeGuardedUpdate: (() => void) | null = null;
  /**
   * Checks and writes at once, so a refused update throws before the unit's later writes run (FakeTransactor rolls
   * nothing back): as in PostgreSQL, nothing of the unit is kept.
   */
  async updateIfUnchanged(_tx: Transaction, payment: Payment, readAs: PaymentVersion) {
    this.beforeGuardedUpdate?.();
    const p = payment.toPrimitives();
    const stored = this.rows.get(key(p, p.id));
    const unchanged = stored && stored.status === readAs.status && stored.updatedAt === readAs.updatedAt && (stored.checkout?.attemptsUsed ?? 0) === readAs.checkoutAttemptsUsed;
    if (!unchanged) throw new PaymentChangedMeanwhileError(p.id);
    this.rows.set(key(p, p.id), p);
  }
  isChangedMeanwhile(error: unknown) {
    return error instanceof PaymentChangedMeanwhileError;
  }
  async find(_tx: Transaction, scope: TenantScope, id: string) {
    const p = this.rows.get(key(scope, id));
    return p ? Payment.fromPrimitives(p) : null;
  }
  readonly idempotencyKeys = new Map<string, { paymentId: string; at: Date }>();
  async bindIdempotencyKey(_tx: Transaction, scope: TenantScope, idempotencyKey: string, paymentId: string, at: Date) {
    this.idempotencyKeys.set(key(scope, idempotencyKey), { paymentId, at });
  }
  async findByIdempotencyKey(tx: Transaction, scope: TenantScope, idempotencyKey: string, since: Date) {
    const bound = this.idempotencyKeys.get(key(scope, idempotencyKey));
    return bound && bound.at >= since ? this.find(tx, scope, bound.paymentId) : null;
  }
  async findByAttemptId(_tx: Transaction, attemptId: string) {
    const p = [...this.rows.values()].find((r) => r.attempts.some((a) => a.id === attemptId));
    return p ? Payment.fromPrimitives(p) : null;
  }
  async findExpiringAuthorizations(_tx: Transaction, deadlineBefore: Date, limit: number) {
    return [...this.rows.values()]
      .filter((p) => p.status === 'authorized' && p.authorizationExpiresAt && !p.expiryNoticeAt && Date.parse(p.authorizationExpiresAt) <= deadlineBefore.getTime())
      .slice(0, limit)
      .map((p) => Payment.fromPrimitives(p));
  }
  async findUnfinishedExpiryActions(_tx: Transaction, now: Date, limit: number) {
    return [...this.rows.values()]
      .filter((p) => p.status === 'authorized' && p.capturedAmount === 0 && p.expiryNoticeAt && (p.expiryAction === 'capture' || p.expiryAction === 'void'))
      .filter((p) => p.authorizationExpiresAt && Date.parse(p.authorizationExpiresAt) > now.getTime())
      .slice(0, limit)
      .map((p) => Payment.fromPrimitives(p));
  }
  /** Pending money operations by payment, with the claim holding each (if any) and until when. */
  readonly operations = new Map<string, { intent: OperationIntent; claimId: string | null; until: number }>();
  async claimOperation(_tx: Transaction, scope: TenantScope, id: string, claim: { claimId: string; intent: OperationIntent; until: Date; now: Date }) {
    const held = this.operations.get(key(scope, id));
    if (held?.claimId && held.until >= claim.now.getTime()) return false;
    this.operations.set(key(scope, id), { intent: claim.intent, claimId: claim.claimId, until: claim.until.getTime() });
    return true;
  }
  async findWithPendingOperation(tx: Transaction, scope: TenantScope, id: string, options: { now: Date }) {
    const payment = await this.find(tx, scope, id);
    const pending = this.operations.get(key(scope, id));
    const active = !!pending?.claimId && pending.until >= options.now.getTime();
    return payment ? { payment, pending: pending ? { intent: pending.intent, active } : null } : null;
  }
  async settleOperation(_tx: Transaction, scope: TenantScope, id: string, which: { operationId: string } | { claimId: string }) {
    const pending = this.operations.get(key(scope, id));
    const matches = 'operationId' in which ? pending?.intent.operationId === which.operationId : pending?.claimId === which.claimId;
    if (matches) this.operations.delete(key(scope, id));
  }
  async releaseOperation(_tx: Transaction, scope: TenantScope, id: string, claimId: string, schedule: SettlementSchedule) {
    const pending = this.operations.get(key(scope, id));
    if (pending?.claimId !== claimId) return;
    this.operations.set(key(scope, id), { intent: withSchedule(pending.intent, schedule), claimId: null, until: 0 });
  }
  async postponeSettlement(_tx: Transaction, scope: TenantScope, id: string, operationId: string, schedule: SettlementSchedule) {
    const pending = this.operations.get(key(scope, id));
    if (pending?.intent.operationId === operationId) pending.intent = withSchedule(pending.intent, schedule);
  }
  async findUnsettledOperations(_tx: Transaction, now: Date, limit: number) {
    return [...this.operations.entries()]
      .filter(([, p]) => (!p.claimId || p.until < now.getTime()) && (p.intent.settleAfter ?? '') <= now.toISOString())
      .slice(0, limit)
      .map(([k, p]) => {
        const row = this.rows.get(k)!;
        return { scope: { organizationId: row.organizationId, environment: row.environment }, paymentId: row.id, intent: p.intent };
      });
  }
}

/**
 * The read side over InMemoryPayments: `list` pages as the SQL queries do (the scope's payments newest first, after
 * the cursor, one more than the limit, a total on the first page, the status filter); `timeline` answers what a
 * test put in `timelines` and records the related object ids it was asked for. Summaries are not faked.
 */
export class FakePaymentQueries implements PaymentQueries {
  readonly timelines = new Map<string, Array<{ id: string; type: string; createdAt: string; previousAttributes: Record<string, unknown> | null }>>();
  readonly timelineRequests: Array<{ paymentId: string; relatedObjectIds: readonly string[] }> = [];
  constructor(private readonly payments: InMemoryPayments) {}
  async list(_tx: Transaction, scope: TenantScope, query: PaymentListQuery) {
    const inScope = [...this.payments.rows.values()]
      .filter((p) => p.organizationId === scope.organizationId && p.environment === scope.environment)
      .filter((p) => !query.statuses?.length || query.statuses.includes(p.status))
      .sort((a, b) => (a.id < b.id ? 1 : -1));
    const rows = inScope.filter((p) => query.startingAfter === undefined || p.id < query.startingAfter).slice(0, query.limit + 1);
    return { rows, ...(query.startingAfter === undefined ? { totalCount: inScope.length } : {}) };
  }
  async timeline(_tx: Transaction, _scope: TenantScope, paymentId: string, relatedObjectIds: readonly string[] = []) {
    this.timelineRequests.push({ paymentId, relatedObjectIds: [...relatedObjectIds] });
    return this.timelines.get(paymentId) ?? [];
  }
  figures(): never {
    throw new Error('not faked');
  }
  series(): never {
    throw new Error('not faked');
  }
  perConnectorAccount(): never {
    throw new Error('not faked');
  }
}

function withSchedule(intent: OperationIntent, schedule: SettlementSchedule): OperationIntent {
  return { ...intent, settleAfter: schedule.settleAfter.toISOString(), settleTries: schedule.settleTries };
}

export class InMemoryCustomers implements CustomerRepository {
  readonly rows = new Map<string, Customer>();
  async insert(_tx: Transaction, c: Customer) {
    const p = c.toPrimitives();
    this.rows.set(key(p, p.id), Customer.fromPrimitives(p));
  }
  async update(tx: Transaction, c: Customer) {
    await this.insert(tx, c);
  }
  async find(_tx: Transaction, scope: TenantScope, id: string) {
    const c = this.rows.get(key(scope, id));
    return c ? Customer.fromPrimitives(c.toPrimitives()) : null;
  }
  /** As the SQL repository answers: the scope's customers, newest id first, after the cursor, one more than the limit. */
  async list(_tx: Transaction, scope: TenantScope, query: CustomerListQuery) {
    return [...this.rows.values()]
      .map((c) => c.toPrimitives())
      .filter((c) => c.organizationId === scope.organizationId && c.environment === scope.environment)
      .filter((c) => query.startingAfter === undefined || c.id < query.startingAfter)
      .filter((c) => !query.email || c.email === query.email.toLowerCase())
      .sort((a, b) => (a.id < b.id ? 1 : -1))
      .slice(0, query.limit + 1)
      .map((c) => Customer.fromPrimitives(c));
  }
}

export class InMemoryRecipients implements RecipientRepository {
  readonly rows = new Map<string, Recipient>();
  /** Each existingIds call, with the ids it asked for: a payment's splits are checked in one lookup. */
  readonly lookups: string[][] = [];
  async insert(_tx: Transaction, r: Recipient) {
    const p = r.toPrimitives();
    this.rows.set(key(p, p.id), Recipient.fromPrimitives(p));
  }
  async update(tx: Transaction, r: Recipient) {
    await this.insert(tx, r);
  }
  async find(_tx: Transaction, scope: TenantScope, id: string) {
    const r = this.rows.get(key(scope, id));
    return r ? Recipient.fromPrimitives(r.toPrimitives()) : null;
  }
  async list() {
    return [...this.rows.values()];
  }
  async existingIds(_tx: Transaction, scope: TenantScope, ids: readonly string[]) {
    this.lookups.push([...ids]);
    return new Set(ids.filter((id) => this.rows.has(key(scope, id))));
  }
  /** Seeds recipients of `scope` with these ids (valid bank data, no event). */
  add(scope: TenantScope, ...ids: string[]): this {
    for (const id of ids) {
      this.rows.set(
        key(scope, id),
        Recipient.create({ id, ...scope, ...recipientInput({ name: `Recipient ${id}` }), now: new Date('2026-03-01T12:00:00.000Z') }),
      );
    }
    return this;
  }
}

export class InMemoryPaymentMethods implements SavedPaymentMethodRepository {
  readonly rows = new Map<string, SavedPaymentMethod>();
  async insert(_tx: Transaction, m: SavedPaymentMethod) {
    const p = m.toPrimitives();
    this.rows.set(key(p, p.id), SavedPaymentMethod.fromPrimitives(p));
  }
  async update(tx: Transaction, m: SavedPaymentMethod) {
    await this.insert(tx, m);
  }
  async find(_tx: Transaction, scope: TenantScope, id: string) {
    const m = this.rows.get(key(scope, id));
    return m && !m.isDeleted ? SavedPaymentMethod.fromPrimitives(m.toPrimitives()) : null;
  }
  async listForCustomer(_tx: Transaction, _scope: TenantScope, customerId: string) {
    return [...this.rows.values()].filter((m) => m.customerId === customerId && !m.isDeleted);
  }
}

export class CountingUsage implements ProductionUsage {
  readonly counted: string[] = [];
  async countLivePayment(_tx: Transaction, _org: string, paymentId: string) {
    this.counted.push(paymentId);
  }
}

export type ScriptedAnswer = AuthorizeOutput | 'timeout' | 'technical';
/** `declined`: the acquirer refuses the operation and executes nothing. */
export type OperationAnswer = 'ok' | 'timeout' | 'technical' | 'declined';

/** One scripted acquirer per account; records calls and whether a transaction was open during them. */
export class ScriptedConnectors implements PaymentConnectors {
  readonly calls: Array<{ accountId: string; input: AuthorizeInput; insideTransaction: boolean }> = [];
  /** Money operations the acquirer executed (once per idempotency key), and every call made for one. */
  readonly operations: Array<{ accountId: string; kind: string; amount?: number; idempotencyKey: string }> = [];
  readonly operationCalls: Array<{ kind: string; idempotencyKey: string }> = [];
  private readonly scripts = new Map<string, ScriptedAnswer[]>();
  private readonly operationScripts = new Map<string, OperationAnswer[]>();
  private readonly executed = new Map<string, OperationOutput>();

  constructor(readonly list: PaymentConnectorAccount[], private readonly transactor: FakeTransactor) {}

  /** Zero-value authorizations (card verification), per account: answered by `scriptZeroAuth`, approved otherwise. */
  readonly zeroAuthCalls: Array<{ accountId: string; input: ZeroAuthInput }> = [];
  private readonly zeroAuthScripts = new Map<string, Array<ZeroAuthOutput | 'timeout' | 'technical'>>();

  scriptZeroAuth(accountId: string, ...answers: Array<ZeroAuthOutput | 'timeout' | 'technical'>): this {
    this.zeroAuthScripts.set(accountId, answers);
    return this;
  }

  script(accountId: string, ...answers: ScriptedAnswer[]): this {
    this.scripts.set(accountId, answers);
    return this;
  }

  /** How the next calls of a money operation end: `timeout` executes it and then gives no answer. */
  scriptOperation(kind: 'capture' | 'void' | 'refund', ...answers: OperationAnswer[]): this {
    this.operationScripts.set(kind, answers);
    return this;
  }

  async accounts() {
    return this.list;
  }

  /** Every account's Pix and boleto charges (one bank, as the tests need no more). */
  readonly bank = new FakeBank(() => this.transactor.open > 0);

  /** Accounts whose opening fails (credentials that cannot be read). */
  readonly unreadable = new Set<string>();

  async open(_scope: TenantScope, accountId: string) {
    const account = this.list.find((a) => a.id === accountId);
    if (!account) return null;
    if (this.unreadable.has(accountId)) throw new Error('credentials sealed under an unknown key');
    // Idempotent by key like a real acquirer: a repeated key answers the first execution and executes nothing.
    const op = (kind: string) => async (input: { idempotencyKey: string; amount?: number }): Promise<OperationOutput> => {
      this.operationCalls.push({ kind, idempotencyKey: input.idempotencyKey });
      const answer = this.operationScripts.get(kind)?.shift() ?? 'ok';
      if (answer === 'technical') throw new ConnectorFailure('technical', 'connection refused', { nothingSent: true });
      if (answer === 'declined') return { status: 'declined', rawCode: '57', message: 'operation refused' };
      let output = this.executed.get(input.idempotencyKey);
      if (!output) {
        this.operations.push({ accountId, kind, ...(input.amount !== undefined ? { amount: input.amount } : {}), idempotencyKey: input.idempotencyKey });
        output = { status: 'approved', amount: input.amount ?? 0, operationId: `acq_${kind}_${this.operations.length}`, rawCode: '00' };
        this.executed.set(input.idempotencyKey, output);
      }
      if (answer === 'timeout') throw new ConnectorFailure('timeout', 'deadline exceeded', { outcomeUnknown: true });
      return output;
    };
    const gateway = {
      authorize: async (input: AuthorizeInput) => {
        this.calls.push({ accountId, input, insideTransaction: this.transactor.open > 0 });
        const answer = this.scripts.get(accountId)?.shift() ?? approved();
        if (answer === 'timeout') throw new ConnectorFailure('timeout', 'deadline exceeded', { outcomeUnknown: true });
        if (answer === 'technical') throw new ConnectorFailure('technical', 'connection refused', { nothingSent: true });
        return answer;
      },
      zeroAuth: async (input: ZeroAuthInput) => {
        this.zeroAuthCalls.push({ accountId, input });
        const answer = this.zeroAuthScripts.get(accountId)?.shift() ?? { status: 'approved', rawCode: '00' };
        if (answer === 'timeout') throw new ConnectorFailure('timeout', 'deadline exceeded', { outcomeUnknown: true });
        if (answer === 'technical') throw new ConnectorFailure('technical', 'connection refused', { nothingSent: true });
        return answer;
      },
      capture: op('capture'),
      void: op('void'),
      refund: op('refund'),
      createPixCharge: (input: CreatePixChargeInput) => this.bank.createPixCharge(input),
      createBoleto: (input: CreateBoletoInput) => this.bank.createBoleto(input),
      queryCharge: (input: QueryChargeInput) => this.bank.queryCharge(input),
      cancelCharge: (input: CancelChargeInput) => this.bank.cancelCharge(input),
    } as unknown as AcquirerGateway;
    return { account, gateway, credentials: { values: { apiKey: 'k' }, config: {} } };
  }
}

export function approved(fraudReviewPending = false): Extract<AuthorizeOutput, { status: 'approved' }> {
  return { status: 'approved', rawCode: '00', message: 'ok', references: { nsu: '1', tid: 'T', authorizationCode: 'A', acquirerPaymentId: 'acq_1' }, fraudReviewPending, capturedAmount: 0 };
}

export function declined(rawCode: string): AuthorizeOutput {
  return { status: 'declined', rawCode, message: 'declined' };
}

export function account(id: string, costBasisPoints: number, overrides: Partial<PaymentConnectorAccount> = {}): PaymentConnectorAccount {
  return { id, name: id, connectorSlug: 'sandbox', enabled: true, capabilities: ['card'], costBasisPoints, createdAt: '2026-01-01T00:00:00.000Z', ...overrides };
}

export function paymentDeps(accounts: PaymentConnectorAccount[], clock: Clock = new SteppingClock()) {
  const transactor = new FakeTransactor();
  const connectors = new ScriptedConnectors(accounts, transactor);
  const outbox = new FakeOutbox();
  const payments = new InMemoryPayments();
  const usage = new CountingUsage();
  const recipients = new InMemoryRecipients();
  const queries = new FakePaymentQueries(payments);
  const deps: PaymentDeps = {
    transactor,
    outbox,
    clock,
    ids: new SequentialIds(),
    payments,
    queries,
    customers: new InMemoryCustomers(),
    paymentMethods: new InMemoryPaymentMethods(),
    recipients,
    connectors,
    usage,
  };
  return { deps, transactor, connectors, outbox, payments, queries, usage, recipients };
}

interface BankChargeRecord {
  readonly kind: 'pix' | 'boleto';
  readonly idempotencyKey: string;
  readonly amount: number;
  status: ChargeStatus;
  paidAt: string | null;
}

/**
 * A bank's Pix and boleto charges behind ScriptedConnectors' gateways: issued once per idempotency key, then paid or
 * lapsed as a test says (`pay`, `lapse`), removed by CancelCharge unless already paid. Records every call and whether
 * a transaction was open during it. `unreachable` makes queries and cancels fail as a bank that does not answer;
 * `payWhileRemoving` makes the next CancelCharge of a charge find the payer has just paid it.
 */
export class FakeBank {
  readonly charges = new Map<string, BankChargeRecord>();
  readonly calls: Array<{ kind: 'create_pix' | 'create_boleto' | 'query' | 'cancel'; key: string; insideTransaction: boolean }> = [];
  unreachable = false;
  readonly payWhileRemoving = new Set<string>();

  constructor(private readonly insideTransaction: () => boolean = () => false) {}

  pay(acquirerPaymentId: string, at = '2026-03-01T12:30:00.000Z'): void {
    const charge = this.charge(acquirerPaymentId);
    charge.status = 'paid';
    charge.paidAt = at;
  }

  lapse(acquirerPaymentId: string): void {
    this.charge(acquirerPaymentId).status = 'expired';
  }

  status(acquirerPaymentId: string): ChargeStatus {
    return this.charge(acquirerPaymentId).status;
  }

  /** The calls of one kind (e.g. 'cancel'), by the key they named. */
  callsOf(kind: FakeBank['calls'][number]['kind']): string[] {
    return this.calls.filter((c) => c.kind === kind).map((c) => c.key);
  }

  async createPixCharge(input: CreatePixChargeInput): Promise<ChargeOutput> {
    this.calls.push({ kind: 'create_pix', key: input.idempotencyKey, insideTransaction: this.insideTransaction() });
    const id = this.issue('pix', input.idempotencyKey, input.amount);
    return { acquirerPaymentId: id, status: this.charges.get(id)!.status, pix: { qrCode: `00020101BR.GOV.BCB.PIX/${id}` }, expiresAt: new Date(Date.parse('2026-03-01T12:00:00.000Z') + input.expiresInSeconds * 1000).toISOString() };
  }

  async createBoleto(input: CreateBoletoInput): Promise<ChargeOutput> {
    this.calls.push({ kind: 'create_boleto', key: input.idempotencyKey, insideTransaction: this.insideTransaction() });
    const id = this.issue('boleto', input.idempotencyKey, input.amount);
    return {
      acquirerPaymentId: id,
      status: this.charges.get(id)!.status,
      boleto: { digitableLine: '1'.repeat(47), barcode: '2'.repeat(44), pdfUrl: `https://bank.example/boletos/${id}` },
      expiresAt: `${input.dueDate}T23:59:59.000Z`,
    };
  }

  async queryCharge(input: QueryChargeInput): Promise<ChargeStatusOutput> {
    this.calls.push({ kind: 'query', key: input.acquirerPaymentId ?? input.idempotencyKey ?? '', insideTransaction: this.insideTransaction() });
    if (this.unreachable) throw new ConnectorFailure('timeout', 'deadline exceeded', { outcomeUnknown: true });
    const charge = input.acquirerPaymentId ? this.charges.get(input.acquirerPaymentId) : undefined;
    return charge ? this.statusOf(charge) : { status: 'not_found', paidAmount: 0, paidAt: null, rawCode: 'not_found' };
  }

  async cancelCharge(input: CancelChargeInput): Promise<ChargeStatusOutput> {
    this.calls.push({ kind: 'cancel', key: input.idempotencyKey, insideTransaction: this.insideTransaction() });
    if (this.unreachable) throw new ConnectorFailure('timeout', 'deadline exceeded', { outcomeUnknown: true });
    const charge = this.charge(input.acquirerPaymentId);
    if (this.payWhileRemoving.delete(input.acquirerPaymentId)) this.pay(input.acquirerPaymentId);
    if (charge.status === 'awaiting_payment') charge.status = 'canceled';
    return this.statusOf(charge);
  }

  private issue(kind: 'pix' | 'boleto', idempotencyKey: string, amount: number): string {
    const existing = [...this.charges.entries()].find(([, c]) => c.idempotencyKey === idempotencyKey);
    if (existing) return existing[0];
    const id = `chg_${kind}_${this.charges.size + 1}`;
    this.charges.set(id, { kind, idempotencyKey, amount, status: 'awaiting_payment', paidAt: null });
    return id;
  }

  private charge(acquirerPaymentId: string): BankChargeRecord {
    const charge = this.charges.get(acquirerPaymentId);
    if (!charge) throw new Error(`the fake bank issued no charge ${acquirerPaymentId}`);
    return charge;
  }

  private statusOf(charge: BankChargeRecord): ChargeStatusOutput {
    return { status: charge.status, paidAmount: charge.status === 'paid' ? charge.amount : 0, paidAt: charge.paidAt, rawCode: charge.status };
  }
}

/** The sandbox's simulate over a FakeBank: pays or lapses a charge still awaiting payment (applied false otherwise). */
export class FakeChargeSimulator implements SandboxChargeSimulator {
  constructor(private readonly bank: FakeBank) {}

  async simulateCharge(input: { acquirerPaymentId: string; outcome: 'paid' | 'expired' }) {
    const applied = this.bank.status(input.acquirerPaymentId) === 'awaiting_payment';
    if (applied && input.outcome === 'paid') this.bank.pay(input.acquirerPaymentId);
    if (applied && input.outcome === 'expired') this.bank.lapse(input.acquirerPaymentId);
    return { applied, charge: await this.bank.queryCharge({ credentials: { values: {}, config: {} }, acquirerPaymentId: input.acquirerPaymentId }) };
  }
}

/** Flow run waits in memory, leased as the SQL repository leases them (a claim holds a wait until its lease ends). */
export class InMemoryFlowRunWaits implements FlowRunWaitRepository {
  readonly rows = new Map<string, { wait: FlowRunWait; leaseOwner: string | null; leaseUntil: number }>();

  async park(_tx: Transaction, wait: FlowRunWait) {
    this.rows.set(wait.paymentId, { wait, leaseOwner: null, leaseUntil: 0 });
  }
  async find(_tx: Transaction, scope: TenantScope, paymentId: string) {
    const row = this.rows.get(paymentId);
    return row && row.wait.scope.organizationId === scope.organizationId && row.wait.scope.environment === scope.environment ? row.wait : null;
  }
  async release(_tx: Transaction, paymentId: string) {
    this.rows.delete(paymentId);
  }
  async claimDue(_tx: Transaction, input: { now: Date; leaseOwner: string; leaseUntil: Date; limit: number; kinds?: readonly FlowRunWait['kind'][] }): Promise<ClaimedFlowRunWait[]> {
    const due = [...this.rows.values()]
      .filter((r) => r.wait.dueAt && r.wait.dueAt.getTime() <= input.now.getTime() && r.leaseUntil < input.now.getTime())
      .filter((r) => !input.kinds || input.kinds.includes(r.wait.kind))
      .sort((a, b) => a.wait.dueAt!.getTime() - b.wait.dueAt!.getTime())
      .slice(0, input.limit);
    return due.map((r) => {
      r.leaseOwner = input.leaseOwner;
      r.leaseUntil = input.leaseUntil.getTime();
      const { request: _request, ...claimed } = r.wait;
      return { ...claimed, leaseOwner: input.leaseOwner };
    });
  }
  async postpone(_tx: Transaction, input: { paymentId: string; leaseOwner: string; dueAt: Date }) {
    const row = this.rows.get(input.paymentId);
    if (!row || row.leaseOwner !== input.leaseOwner) return false;
    this.rows.set(input.paymentId, { wait: { ...row.wait, dueAt: input.dueAt }, leaseOwner: null, leaseUntil: 0 });
    return true;
  }
}

/**
 * paymentDeps for Pix and boleto use cases: one account that issues both (at the FakeBank of `connectors.bank`),
 * flow run waits in memory, and a payer with a valid CPF and address in `scope` (`payerId`).
 */
export async function bankChargeDeps(clock: Clock = new SteppingClock()) {
  const built = paymentDeps([account('ca_bank', 100, { capabilities: ['pix', 'boleto'] })], clock);
  const waits = new InMemoryFlowRunWaits();
  const deps: PaymentDeps = { ...built.deps, waits };
  const scope: TenantScope = { organizationId: 'org_1', environment: 'sandbox' };
  const payer = Customer.create({
    id: 'cus_payer',
    ...scope,
    name: 'Paula Pagadora',
    document: '52998224725',
    address: { postalCode: '01310-100', line1: 'Av. Paulista', streetNumber: '1000', complement: null, neighborhood: 'Bela Vista', city: 'São Paulo', state: 'SP' },
    now: new Date('2026-03-01T12:00:00.000Z'),
  });
  await deps.customers.insert(TX, payer);
  return { ...built, deps, waits, scope, payerId: payer.id, bank: built.connectors.bank };
}
