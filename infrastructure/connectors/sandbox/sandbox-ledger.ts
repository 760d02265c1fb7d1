import {
  ChargeStatus,
  Outcome,
  type AcquirerReferences,
  type OperationResponse,
} from '../../grpc/generated/connector/v1/connector';
import { RandomPool } from '../../crypto/random-pool';

/**
 * The sandbox acquirer's memory: authorizations and bank charges per merchant, and the first answer given to
 * each idempotency key. It enforces what a real acquirer enforces (capture up to the authorization, refund up
 * to the capture, no void after capture) and answers refusals as DECLINED data with a raw code.
 */
export type CardStatus = 'authorized' | 'captured' | 'voided';
export type FraudReviewState = 'none' | 'pending' | 'accepted' | 'rejected';

export interface CardRecord {
  readonly kind: 'card';
  readonly id: string;
  readonly merchantId: string;
  readonly idempotencyKey: string;
  readonly amount: number;
  readonly currency: string;
  status: CardStatus;
  capturedAmount: number;
  refundedAmount: number;
  fraudReview: FraudReviewState;
  readonly references: AcquirerReferences;
}

export type ChargeState = 'awaiting_payment' | 'paid' | 'expired' | 'canceled';

export interface ChargeRecord {
  readonly kind: 'pix' | 'boleto';
  readonly id: string;
  readonly merchantId: string;
  readonly idempotencyKey: string;
  readonly amount: number;
  status: ChargeState;
  paidAt?: string;
  readonly expiresAt: string;
  /** Pix only: returned to the payer so far (devolução), minor units. */
  refundedAmount?: number;
  /** Boleto only: what its printable page shows. */
  readonly printable?: { readonly digitableLine: string; readonly barcode: string; readonly dueDate: string; readonly payerName: string; readonly instructions: string };
}



/** Raw codes of the sandbox's own refusals (issuer codes come from the scenario table). */
export const SANDBOX_OPERATION_CODES = {
  ok: '00',
  notFound: 'payment_not_found',
  invalidState: 'invalid_state',
  exceedsAuthorized: 'amount_exceeds_authorized',
  exceedsCaptured: 'amount_exceeds_captured',
  refundNotSupported: 'refund_not_supported',
} as const;

const random = new RandomPool();

export function sandboxId(prefix: string): string {
  return `${prefix}_${random.hex(12)}`;
}

export function newReferences(): AcquirerReferences {
  return {
    acquirerPaymentId: sandboxId('sbx'),
    nsu: random.digits(9),
    tid: random.digits(20),
    authorizationCode: random.hex(3).toUpperCase(),
  };
}

function declined(rawCode: string, message: string): OperationResponse {
  return { outcome: Outcome.DECLINED, rawCode, message, amount: 0, operationId: '' };
}

function approved(amount: number): OperationResponse {
  return { outcome: Outcome.APPROVED, rawCode: SANDBOX_OPERATION_CODES.ok, message: 'Approved', amount, operationId: sandboxId('op') };
}

/** How many authorizations, charges and idempotent answers the sandbox remembers by default, each. */
export const SANDBOX_LEDGER_CAPACITY = 50_000;

/**
 * Keeps at most `capacity` entries, forgetting the oldest first: the sandbox's memory is test data, and a sandbox
 * that runs for days (embedded in `make run`, or as an adapter process) must not grow without end.
 */
class BoundedMap<K, V> {
  private readonly entries = new Map<K, V>();

  constructor(
    private readonly capacity: number,
    private readonly onForget: (key: K, value: V) => void = () => undefined,
  ) {}

  get(key: K): V | undefined {
    return this.entries.get(key);
  }

  set(key: K, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    while (this.entries.size > this.capacity) {
      const [oldest, forgotten] = this.entries.entries().next().value as [K, V];
      this.entries.delete(oldest);
      this.onForget(oldest, forgotten);
    }
  }

  delete(key: K): void {
    this.entries.delete(key);
  }
}

const byKey = (merchantId: string, idempotencyKey: string) => `${merchantId}\u0000${idempotencyKey}`;

export class SandboxLedger {
  private readonly cardIds: BoundedMap<string, string>;
  private readonly chargeIds: BoundedMap<string, string>;
  private readonly cards: BoundedMap<string, CardRecord>;
  private readonly charges: BoundedMap<string, ChargeRecord>;
  private readonly answers: BoundedMap<string, Promise<unknown>>;

  /**
   * Remembers the latest `capacity` authorizations, the latest `capacity` Pix/boleto charges and the first answers
   * to the latest `capacity` idempotency keys; older ones are forgotten (an operation on them answers
   * `payment_not_found`).
   */
  constructor(options: { capacity?: number } = {}) {
    const capacity = options.capacity ?? SANDBOX_LEDGER_CAPACITY;
    this.cardIds = new BoundedMap(capacity);
    this.chargeIds = new BoundedMap(capacity);
    this.cards = new BoundedMap(capacity, (_id, record) => this.cardIds.delete(byKey(record.merchantId, record.idempotencyKey)));
    this.charges = new BoundedMap(capacity, (_id, record) => this.chargeIds.delete(byKey(record.merchantId, record.idempotencyKey)));
    this.answers = new BoundedMap(capacity);
  }

  /** Returns the first answer for (rpc, merchant, key), computing and storing it on first use. */
  async once<T>(rpc: string, merchantId: string, idempotencyKey: string, compute: () => Promise<T> | T): Promise<T> {
    if (!idempotencyKey) return compute();
    const key = `${rpc}\u0000${merchantId}\u0000${idempotencyKey}`;
    const known = this.answers.get(key);
    if (known) return known as Promise<T>;
    // The promise is stored, not the value, so a concurrent retry waits for the first call instead of acting twice.
    // A failure (processing error, timeout) is not an answer: it is forgotten so a retry acts.
    const answer = Promise.resolve().then(compute);
    this.answers.set(key, answer);
    answer.catch(() => this.answers.delete(key));
    return answer;
  }

  addCard(record: CardRecord): void {
    this.cards.set(record.id, record);
    this.cardIds.set(byKey(record.merchantId, record.idempotencyKey), record.id);
  }

  card(merchantId: string, id: string): CardRecord | undefined {
    const record = this.cards.get(id);
    return record && record.merchantId === merchantId ? record : undefined;
  }

  cardByKey(merchantId: string, idempotencyKey: string): CardRecord | undefined {
    const id = this.cardIds.get(byKey(merchantId, idempotencyKey));
    return id === undefined ? undefined : this.card(merchantId, id);
  }

  addCharge(record: ChargeRecord): void {
    this.charges.set(record.id, record);
    this.chargeIds.set(byKey(record.merchantId, record.idempotencyKey), record.id);
  }

  charge(merchantId: string, id: string): ChargeRecord | undefined {
    const record = this.charges.get(id);
    return record && record.merchantId === merchantId ? record : undefined;
  }

  /** A charge by id alone, whatever its merchant: a boleto's printable page is reached by its id, as a bank's boleto link. */
  anyCharge(id: string): ChargeRecord | undefined {
    return this.charges.get(id);
  }

  chargeByKey(merchantId: string, idempotencyKey: string): ChargeRecord | undefined {
    const id = this.chargeIds.get(byKey(merchantId, idempotencyKey));
    return id === undefined ? undefined : this.charge(merchantId, id);
  }

  /** amount 0 captures the whole authorization; a partial capture releases the rest. */
  capture(merchantId: string, id: string, amount: number): OperationResponse {
    const record = this.card(merchantId, id);
    if (!record) return declined(SANDBOX_OPERATION_CODES.notFound, 'No such authorization');
    if (record.status !== 'authorized') return declined(SANDBOX_OPERATION_CODES.invalidState, `The payment is ${record.status}`);
    const toCapture = amount === 0 ? record.amount : amount;
    if (toCapture <= 0 || toCapture > record.amount) {
      return declined(SANDBOX_OPERATION_CODES.exceedsAuthorized, 'Capture amount exceeds the authorized amount');
    }
    record.status = 'captured';
    record.capturedAmount = toCapture;
    if (record.fraudReview === 'pending') record.fraudReview = 'accepted';
    return approved(toCapture);
  }

  void(merchantId: string, id: string, amount: number): OperationResponse {
    const record = this.card(merchantId, id);
    if (!record) return declined(SANDBOX_OPERATION_CODES.notFound, 'No such authorization');
    if (record.status !== 'authorized') return declined(SANDBOX_OPERATION_CODES.invalidState, `The payment is ${record.status}`);
    if (amount < 0 || amount > record.amount) {
      return declined(SANDBOX_OPERATION_CODES.exceedsAuthorized, 'Void amount exceeds the authorized amount');
    }
    record.status = 'voided';
    if (record.fraudReview === 'pending') record.fraudReview = 'rejected';
    return approved(record.amount);
  }

  /**
   * amount 0 refunds what remains of the capture; several partial refunds may add up to it. A paid Pix charge is
   * returned to the payer the same way (devolução); a boleto cannot be: the bank has no way back to the payer.
   */
  refund(merchantId: string, id: string, amount: number): OperationResponse {
    const charge = this.charge(merchantId, id);
    if (charge) return this.refundCharge(charge, amount);
    const record = this.card(merchantId, id);
    if (!record) return declined(SANDBOX_OPERATION_CODES.notFound, 'No such payment');
    if (record.status !== 'captured') return declined(SANDBOX_OPERATION_CODES.invalidState, `The payment is ${record.status}`);
    const remaining = record.capturedAmount - record.refundedAmount;
    const toRefund = amount === 0 ? remaining : amount;
    if (toRefund <= 0 || toRefund > remaining) {
      return declined(SANDBOX_OPERATION_CODES.exceedsCaptured, 'Refund amount exceeds what remains of the capture');
    }
    record.refundedAmount += toRefund;
    return approved(toRefund);
  }

  private refundCharge(charge: ChargeRecord, amount: number): OperationResponse {
    if (charge.kind === 'boleto') return declined(SANDBOX_OPERATION_CODES.refundNotSupported, 'A boleto cannot be refunded through the bank');
    if (charge.status !== 'paid') return declined(SANDBOX_OPERATION_CODES.invalidState, `The charge is ${charge.status}`);
    const remaining = charge.amount - (charge.refundedAmount ?? 0);
    const toRefund = amount === 0 ? remaining : amount;
    if (toRefund <= 0 || toRefund > remaining) return declined(SANDBOX_OPERATION_CODES.exceedsCaptured, 'Refund amount exceeds what remains of the Pix');
    charge.refundedAmount = (charge.refundedAmount ?? 0) + toRefund;
    return approved(toRefund);
  }

  static chargeStatusOfCard(record: CardRecord): ChargeStatus {
    return record.status === 'authorized' ? ChargeStatus.AUTHORIZED : record.status === 'captured' ? ChargeStatus.CAPTURED : ChargeStatus.VOIDED;
  }

  static chargeStatusOf(record: ChargeRecord): ChargeStatus {
    switch (record.status) {
      case 'awaiting_payment':
        return ChargeStatus.AWAITING_PAYMENT;
      case 'paid':
        return ChargeStatus.PAID;
      case 'expired':
        return ChargeStatus.EXPIRED;
      case 'canceled':
        return ChargeStatus.CANCELED;
    }
  }
}
