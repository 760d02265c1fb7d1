import { randomBytes } from 'node:crypto';
import { boletoCodes, pixBrCode } from './payment-codes';

/**
 * A stand-in for your acquirer's API, kept in memory. REPLACE THIS FILE with calls to your acquirer (HTTP, SOAP,
 * ISO 8583...) keeping the same shape: adapter.ts only translates between gRPC and these methods.
 *
 * Test tokens (the contract fixture names them): tok_test_insufficient_funds (51), tok_test_do_not_honor (05),
 * tok_test_processing_error (the acquirer fails), tok_test_timeout (never answers), tok_test_three_ds (challenge);
 * any other token approves. apiKey "invalid" is refused, apiKey "unreachable" cannot be reached.
 */

export interface PartnerCredentials {
  readonly merchantId: string;
  readonly apiKey: string;
}

/** The acquirer failed: refused the credentials, could not be reached, or did not process the request. */
export class PartnerFailure extends Error {
  constructor(
    readonly reason: 'unauthenticated' | 'unreachable' | 'processing_error',
    message: string,
  ) {
    super(message);
  }
}

export type Refusal = { readonly kind: 'declined'; readonly code: string; readonly message: string };
export type Done = { readonly kind: 'approved'; readonly amount: number; readonly operationId: string };

export interface CardPayment {
  readonly kind: 'card';
  readonly id: string;
  readonly reference: string;
  readonly nsu: string;
  readonly tid: string;
  readonly authorizationCode: string;
  readonly amount: number;
  status: 'authorized' | 'captured' | 'voided';
  captured: number;
  refunded: number;
}

export interface Charge {
  readonly kind: 'pix' | 'boleto';
  readonly id: string;
  readonly reference: string;
  readonly amount: number;
  readonly expiresAt: string;
  status: 'awaiting_payment' | 'paid' | 'expired' | 'canceled';
  paidAt?: string;
}

const DECLINES: Record<string, Refusal> = {
  tok_test_insufficient_funds: { kind: 'declined', code: '51', message: 'Insufficient funds' },
  tok_test_do_not_honor: { kind: 'declined', code: '05', message: 'Do not honor' },
};

const newId = (prefix: string) => `${prefix}_${randomBytes(8).toString('hex')}`;
const digits = (n: number) => String(randomBytes(4).readUInt32BE() % 10 ** n).padStart(n, '0');

export class PartnerAcquirer {
  /** Per merchant: payments and charges by id, and their ids by the merchant's reference (the idempotency key). */
  private readonly records = new Map<string, Map<string, CardPayment | Charge>>();
  private readonly byReference = new Map<string, string>();
  private readonly stalled = new Set<() => void>();

  /** Wakes calls stalled by the timeout token (shutdown). */
  wakeAll(): void {
    for (const wake of this.stalled) wake();
  }

  verify(credentials: PartnerCredentials): 'valid' | 'invalid' | 'unreachable' {
    if (credentials.apiKey === 'invalid') return 'invalid';
    if (credentials.apiKey === 'unreachable') return 'unreachable';
    return 'valid';
  }

  /** Every money call authenticates first, as a real API would. */
  private authenticate(credentials: PartnerCredentials): Map<string, CardPayment | Charge> {
    const verdict = this.verify(credentials);
    if (verdict === 'invalid') throw new PartnerFailure('unauthenticated', 'The acquirer refused the API key');
    if (verdict === 'unreachable') throw new PartnerFailure('unreachable', 'The acquirer could not be reached');
    let records = this.records.get(credentials.merchantId);
    if (!records) this.records.set(credentials.merchantId, (records = new Map()));
    return records;
  }

  /** Simulates the acquirer's test tokens that fail or hang; `signal` aborts when the core gives up. */
  private async misbehave(token: string, signal: AbortSignal): Promise<void> {
    if (token === 'tok_test_processing_error') throw new PartnerFailure('processing_error', 'The acquirer failed to process the request');
    if (token !== 'tok_test_timeout') return;
    await new Promise<void>((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.stalled.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, 30_000);
      this.stalled.add(wake);
      signal.addEventListener('abort', wake, { once: true });
    });
    throw new PartnerFailure('unreachable', 'The acquirer did not answer');
  }

  async authorize(
    credentials: PartnerCredentials,
    input: { reference: string; token: string; amount: number; capture: boolean; threeDsAuthenticationId: string },
    signal: AbortSignal,
    commit: () => void,
  ): Promise<CardPayment | Refusal | { kind: 'challenge'; url: string }> {
    const records = this.authenticate(credentials);
    await this.misbehave(input.token, signal);
    const decline = DECLINES[input.token];
    if (decline) return decline;
    if (input.token === 'tok_test_three_ds' && !input.threeDsAuthenticationId) {
      return { kind: 'challenge', url: `https://3ds.acquirer.example/challenge/${newId('auth')}` };
    }
    commit();
    const payment: CardPayment = {
      kind: 'card',
      id: newId('pay'),
      reference: input.reference,
      nsu: digits(6),
      tid: digits(10),
      authorizationCode: digits(6),
      amount: input.amount,
      status: input.capture ? 'captured' : 'authorized',
      captured: input.capture ? input.amount : 0,
      refunded: 0,
    };
    this.remember(credentials, records, payment);
    return payment;
  }

  async zeroAuth(credentials: PartnerCredentials, token: string, signal: AbortSignal): Promise<Refusal | { kind: 'approved' }> {
    this.authenticate(credentials);
    await this.misbehave(token, signal);
    return DECLINES[token] ?? { kind: 'approved' };
  }

  capture(credentials: PartnerCredentials, id: string, amount: number, commit: () => void): Done | Refusal {
    const payment = this.card(credentials, id);
    if (!payment) return { kind: 'declined', code: 'payment_not_found', message: 'Unknown payment' };
    if (payment.status !== 'authorized') return { kind: 'declined', code: 'invalid_state', message: `The payment is ${payment.status}` };
    if (amount <= 0 || amount > payment.amount) return { kind: 'declined', code: 'amount_exceeds_authorized', message: 'More than was authorized' };
    commit();
    payment.status = 'captured';
    payment.captured = amount;
    return { kind: 'approved', amount, operationId: newId('cap') };
  }

  void(credentials: PartnerCredentials, id: string, commit: () => void): Done | Refusal {
    const payment = this.card(credentials, id);
    if (!payment) return { kind: 'declined', code: 'payment_not_found', message: 'Unknown payment' };
    if (payment.status !== 'authorized') return { kind: 'declined', code: 'invalid_state', message: `The payment is ${payment.status}` };
    commit();
    payment.status = 'voided';
    return { kind: 'approved', amount: payment.amount, operationId: newId('void') };
  }

  refund(credentials: PartnerCredentials, id: string, amount: number, commit: () => void): Done | Refusal {
    const payment = this.card(credentials, id);
    if (!payment) return { kind: 'declined', code: 'payment_not_found', message: 'Unknown payment' };
    if (payment.status !== 'captured') return { kind: 'declined', code: 'invalid_state', message: `The payment is ${payment.status}` };
    if (amount <= 0 || amount > payment.captured - payment.refunded) return { kind: 'declined', code: 'amount_exceeds_captured', message: 'More than remains captured' };
    commit();
    payment.refunded += amount;
    return { kind: 'approved', amount, operationId: newId('ref') };
  }

  createPix(credentials: PartnerCredentials, input: { reference: string; amount: number; expiresInSeconds: number }, commit: () => void): Charge & { qrCode: string } {
    const records = this.authenticate(credentials);
    commit();
    const charge: Charge = {
      kind: 'pix',
      id: newId('pix'),
      reference: input.reference,
      amount: input.amount,
      expiresAt: new Date(Date.now() + (input.expiresInSeconds > 0 ? input.expiresInSeconds : 3600) * 1000).toISOString(),
      status: 'awaiting_payment',
    };
    this.remember(credentials, records, charge);
    return { ...charge, qrCode: pixBrCode(`${credentials.merchantId}@pix.example`.slice(0, 77), input.amount, charge.id) };
  }

  createBoleto(
    credentials: PartnerCredentials,
    input: { reference: string; amount: number; dueDate: string; daysAfterDue: number },
    commit: () => void,
  ): Charge & { barcode: string; digitableLine: string } {
    const records = this.authenticate(credentials);
    commit();
    const id = newId('bol');
    const expiresAt = new Date(Date.parse(`${input.dueDate}T23:59:59.999Z`) + input.daysAfterDue * 86_400_000).toISOString();
    const charge: Charge = { kind: 'boleto', id, reference: input.reference, amount: input.amount, expiresAt, status: 'awaiting_payment' };
    this.remember(credentials, records, charge);
    return { ...charge, ...boletoCodes(input.amount, input.dueDate, String(BigInt(`0x${id.slice(-12)}`))) };
  }

  /** A payment or charge by the acquirer's id or by the merchant's reference; undefined when unknown. */
  find(credentials: PartnerCredentials, query: { id?: string; reference?: string }): CardPayment | Charge | undefined {
    const records = this.authenticate(credentials);
    const id = query.id || this.byReference.get(`${credentials.merchantId}:${query.reference ?? ''}`);
    const record = id ? records.get(id) : undefined;
    if (record && record.kind !== 'card' && record.status === 'awaiting_payment' && Date.parse(record.expiresAt) < Date.now()) record.status = 'expired';
    return record;
  }

  cancelCharge(credentials: PartnerCredentials, id: string): Charge | undefined {
    const charge = this.find(credentials, { id });
    if (!charge || charge.kind === 'card') return undefined;
    if (charge.status === 'awaiting_payment') charge.status = 'canceled';
    return charge;
  }

  tokenizationSession(credentials: PartnerCredentials, ttlSeconds: number): { id: string; url: string; expiresAt: string } {
    this.authenticate(credentials);
    const id = newId('tks');
    return { id, url: `https://vault.acquirer.example/sessions/${id}/tokenize`, expiresAt: new Date(Date.now() + ttlSeconds * 1000).toISOString() };
  }

  async authenticate3ds(
    credentials: PartnerCredentials,
    input: { token: string; authenticationId: string },
    signal: AbortSignal,
  ): Promise<{ status: 'challenge'; id: string; url: string } | { status: 'authenticated'; id: string; eci: string; cavv: string }> {
    this.authenticate(credentials);
    await this.misbehave(input.token, signal);
    if (input.token === 'tok_test_three_ds' && !input.authenticationId) {
      const id = newId('auth');
      return { status: 'challenge', id, url: `https://3ds.acquirer.example/challenge/${id}` };
    }
    return { status: 'authenticated', id: input.authenticationId || newId('auth'), eci: '05', cavv: randomBytes(20).toString('base64') };
  }

  private card(credentials: PartnerCredentials, id: string): CardPayment | undefined {
    const record = this.find(credentials, { id });
    return record?.kind === 'card' ? record : undefined;
  }

  private remember(credentials: PartnerCredentials, records: Map<string, CardPayment | Charge>, record: CardPayment | Charge): void {
    records.set(record.id, record);
    this.byReference.set(`${credentials.merchantId}:${record.reference}`, record.id);
  }
}
