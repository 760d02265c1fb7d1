import { EXPIRY_NOTICE_MS, type ExpiryAction } from '../../domain/payment/payment';
import type { TenantScope } from '../../domain/shared/environment';
import { CapturePayment } from './capture-payment';
import type { PaymentDeps } from './payment-deps';
import { paymentEventToOutbox } from './payment-object';
import { VoidPayment } from './void-payment';

const ACTIONS: readonly ExpiryAction[] = ['notify', 'capture', 'void'];

/**
 * Emits payment.authorization_expiring 24 hours before the capture deadline of each uncaptured pre-authorization,
 * then carries out the account's near-expiry action (`preAuthorizationExpiryAction` in the connector account
 * config; default notify): capture captures the authorized amount, void cancels it, both through the normal
 * operations. Several workers may run it: each payment is re-checked under its row lock, so the notice goes out
 * once.
 */
export class NotifyExpiringAuthorizations {
  constructor(private readonly deps: PaymentDeps) {}

  /** Handles up to `batch` due payments; returns how many were noticed. */
  async run(batch = 50): Promise<number> {
    const now = this.deps.clock.now();
    const due = await this.deps.transactor.read((tx) => this.deps.payments.findExpiringAuthorizations(tx, new Date(now.getTime() + EXPIRY_NOTICE_MS), batch));
    let noticed = 0;
    for (const candidate of due) {
      const c = candidate.toPrimitives();
      const scope: TenantScope = { organizationId: c.organizationId, environment: c.environment };
      const action = await this.actionFor(scope, c.connectorAccountId);
      const sent = await this.deps.transactor.run(async (tx) => {
        const payment = await this.deps.payments.find(tx, scope, c.id, { forUpdate: true });
        if (!payment?.isExpiryNoticeDue(now)) return false;
        payment.noticeAuthorizationExpiring({ now, expiryAction: action });
        await this.deps.payments.update(tx, payment);
        await this.deps.outbox.append(tx, payment.pullEvents().map(paymentEventToOutbox));
        return true;
      });
      if (!sent) continue;
      noticed += 1;
      try {
        if (action === 'capture') await new CapturePayment(this.deps).execute({ scope, paymentId: c.id });
        if (action === 'void') await new VoidPayment(this.deps).execute({ scope, paymentId: c.id });
      } catch {
        // the notice went out; the merchant can still act before the deadline
      }
    }
    return noticed;
  }

  private async actionFor(scope: TenantScope, accountId: string | null): Promise<ExpiryAction> {
    if (!accountId) return 'notify';
    const account = (await this.deps.connectors.accounts(scope)).find((a) => a.id === accountId);
    const configured = account?.config?.['preAuthorizationExpiryAction'];
    return ACTIONS.includes(configured as ExpiryAction) ? (configured as ExpiryAction) : 'notify';
  }
}
