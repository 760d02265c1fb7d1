import { SavedPaymentMethod } from '../../domain/customer/saved-payment-method';
import { directRouting } from '../../domain/payment/routing/direct-routing';
import type { Clock } from '../../domain/ports/clock';
import type { EventOutbox } from '../../domain/ports/event-outbox';
import type { IdGenerator } from '../../domain/ports/id-generator';
import type { PaymentConnectors } from '../../domain/ports/payment-connectors';
import type { CustomerRepository, SavedPaymentMethodRepository } from '../../domain/ports/payment-repositories';
import type { Transactor } from '../../domain/ports/transactor';
import { isConnectorFailure } from '../../domain/shared/connector-failure';
import { NotFoundError } from '../../domain/shared/domain-error';
import type { TenantScope } from '../../domain/shared/environment';
import { paymentMethodEventToOutbox, paymentMethodObject } from '../payments/payment-object';
import type { ConnectorCall, PaymentDeps } from '../payments/payment-deps';

export interface PaymentMethodDeps {
  readonly transactor: Transactor;
  readonly outbox: EventOutbox;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly customers: CustomerRepository;
  readonly paymentMethods: SavedPaymentMethodRepository;
  readonly connectors: PaymentConnectors;
  /** Feeds each zero-value authorization's outcome into its account's health, as payments' calls do. */
  readonly recordCall?: PaymentDeps['recordCall'];
}

/** A zero-value authorization's result, and the calls it made (one per account tried). */
interface Verification {
  readonly status: 'valid' | 'invalid' | 'unavailable';
  readonly rawCode: string | null;
  readonly connectorAccountId: string | null;
  readonly calls: ReadonlyArray<{ readonly accountId: string; readonly call: ConnectorCall }>;
}

export interface SaveCardCommand {
  readonly card: {
    readonly token: string;
    readonly isNetworkToken?: boolean;
    readonly brand?: string;
    readonly bin?: string;
    readonly last4?: string;
    readonly expMonth?: number;
    readonly expYear?: number;
    readonly holderName?: string;
    readonly connectorAccountId?: string;
  };
  readonly verify?: boolean;
}

/**
 * Saved payment methods of a customer. With verify, a zero-value authorization runs (outside any transaction)
 * on the account that would charge the card, and its result is recorded with payment_method.verified:
 * valid, invalid (issuer refused) or unavailable (no account, connector down: says nothing about the card).
 */
export class ManagePaymentMethods {
  constructor(private readonly deps: PaymentMethodDeps) {}

  async save(scope: TenantScope, customerId: string, command: SaveCardCommand) {
    const c = command.card;
    // A pinned account must be one of this environment's (spec, Errors: 404 for another environment's account).
    if (c.connectorAccountId && !(await this.deps.connectors.accounts(scope)).some((account) => account.id === c.connectorAccountId)) {
      throw new NotFoundError('connector account', c.connectorAccountId);
    }
    const method = SavedPaymentMethod.saveCard({
      id: this.deps.ids.next('pm_'),
      ...scope,
      customerId,
      card: { brand: c.brand ?? null, bin: c.bin ?? null, last4: c.last4 ?? null, expMonth: c.expMonth ?? null, expYear: c.expYear ?? null, holderName: c.holderName ?? null },
      token: c.token,
      isNetworkToken: c.isNetworkToken ?? false,
      connectorAccountId: c.connectorAccountId ?? null,
      now: this.deps.clock.now(),
    });
    await this.deps.transactor.run(async (tx) => {
      const customer = await this.deps.customers.find(tx, scope, customerId);
      if (!customer) throw new NotFoundError('customer', customerId);
      await this.deps.paymentMethods.insert(tx, method);
    });
    if (!command.verify) return paymentMethodObject(method.toPrimitives());

    const { calls, ...verification } = await this.zeroAuth(scope, method);
    const stored = await this.deps.transactor.run(async (tx) => {
      const current = await this.deps.paymentMethods.find(tx, scope, method.id, { forUpdate: true });
      if (!current) throw new NotFoundError('payment method', method.id);
      current.recordVerification({ ...verification, now: this.deps.clock.now() });
      for (const { accountId, call } of calls) await this.deps.recordCall?.(tx, scope, accountId, call);
      await this.deps.paymentMethods.update(tx, current);
      await this.deps.outbox.append(tx, current.pullEvents().map(paymentMethodEventToOutbox));
      return current;
    });
    return paymentMethodObject(stored.toPrimitives());
  }

  private async zeroAuth(scope: TenantScope, method: SavedPaymentMethod): Promise<Verification> {
    const m = method.toPrimitives();
    const accounts = await this.deps.connectors.accounts(scope);
    const decision = directRouting(
      { methodType: 'card', amount: 0, currency: 'BRL', installments: 1, hasSplits: false, pinnedConnectorAccountId: m.tokenReference.connectorAccountId },
      accounts,
    );
    if (!decision.ok) return { status: 'unavailable', rawCode: null, connectorAccountId: null, calls: [] };
    const calls: Array<{ accountId: string; call: ConnectorCall }> = [];
    for (const candidate of decision.accounts) {
      const opened = await this.deps.connectors.open(scope, candidate.id);
      if (!opened) continue;
      const started = this.deps.clock.now().getTime();
      const latencyMs = () => Math.max(0, this.deps.clock.now().getTime() - started);
      try {
        const card = m.card;
        const output = await opened.gateway.zeroAuth({
          credentials: opened.credentials,
          idempotencyKey: `${m.id}_verify`,
          source: {
            type: 'card',
            token: m.tokenReference.token,
            ...(card.brand ? { brand: card.brand } : {}),
            ...(card.bin ? { bin: card.bin } : {}),
            ...(card.last4 ? { last4: card.last4 } : {}),
            ...(card.expMonth ? { expMonth: card.expMonth } : {}),
            ...(card.expYear ? { expYear: card.expYear } : {}),
            ...(card.holderName ? { holderName: card.holderName } : {}),
          },
        });
        const approved = output.status === 'approved';
        calls.push({ accountId: candidate.id, call: { operation: 'zero_auth', outcome: approved ? 'approved' : 'declined', latencyMs: latencyMs() } });
        return { status: approved ? 'valid' : 'invalid', rawCode: output.rawCode, connectorAccountId: candidate.id, calls };
      } catch (error) {
        if (!isConnectorFailure(error)) throw error;
        // technical failure: try the next account; all down means unavailable
        calls.push({ accountId: candidate.id, call: { operation: 'zero_auth', outcome: error.kind === 'timeout' ? 'timeout' : 'technical_failure', latencyMs: latencyMs() } });
      }
    }
    return { status: 'unavailable', rawCode: null, connectorAccountId: null, calls };
  }

  async list(scope: TenantScope, customerId: string) {
    const rows = await this.deps.transactor.read(async (tx) => {
      const customer = await this.deps.customers.find(tx, scope, customerId);
      if (!customer) throw new NotFoundError('customer', customerId);
      return this.deps.paymentMethods.listForCustomer(tx, scope, customerId);
    });
    return { object: 'list' as const, data: rows.map((r) => paymentMethodObject(r.toPrimitives())), hasMore: false };
  }

  async remove(scope: TenantScope, id: string) {
    const removed = await this.deps.transactor.run(async (tx) => {
      const method = await this.deps.paymentMethods.find(tx, scope, id, { forUpdate: true });
      if (!method) throw new NotFoundError('payment method', id);
      method.delete(this.deps.clock.now());
      await this.deps.paymentMethods.update(tx, method);
      return method;
    });
    return { ...paymentMethodObject(removed.toPrimitives()), deleted: true };
  }
}
