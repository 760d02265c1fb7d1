import { EXPIRY_NOTICE_MS, type ExpiryAction } from '../../domain/payment/payment';
import { DomainError } from '../../domain/shared/domain-error';
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
 * operations, retried at every scan until done or until the deadline, unless the acquirer refused it (recorded on
 * the payment, shown by GET as expiryActionRefusal). Several workers may run it: each payment is re-checked under
 * its row lock, so the notice goes out once, and an operation's claim keeps two workers' captures from both
 * reaching the acquirer.
 */
export class NotifyExpiringAuthorizations {
  constructor(private readonly deps: PaymentDeps) {}

  /**
   * Notices up to `batch` due payments, then carries out the near-expiry actions not done yet (those just noticed,
   * and those whose capture or void failed before: retried at every scan until the deadline); returns how many
   * were noticed.
   */
  async run(batch = 50): Promise<number> {
    const now = this.deps.clock.now();
    const due = await this.deps.transactor.read((tx) => this.deps.payments.findExpiringAuthorizations(tx, new Date(now.getTime() + EXPIRY_NOTICE_MS), batch));
    let noticed = 0;
    for (const candidate of due) {
      const c = candidate.view();
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
      if (sent) noticed += 1;
    }
    await this.carryOutActions(now, batch);
    return noticed;
  }

  /**
   * Captures or voids, through the normal operations, each noticed payment whose action has not happened. A failure
   * is left for the next scan: an acquirer that did not answer is settled under the same operation (a repeated
   * capture resumes it), one that was down is asked again, until the deadline.
   */
  private async carryOutActions(now: Date, batch: number): Promise<void> {
    const due = await this.deps.transactor.read((tx) => this.deps.payments.findUnfinishedExpiryActions(tx, now, batch));
    await Promise.allSettled(
      due.map(async (payment) => {
        const p = payment.view();
        const scope: TenantScope = { organizationId: p.organizationId, environment: p.environment };
        try {
          await (p.expiryAction === 'capture'
            ? new CapturePayment(this.deps).execute({ scope, paymentId: p.id })
            : new VoidPayment(this.deps).execute({ scope, paymentId: p.id }));
        } catch (error) {
          // A refusal is the acquirer's answer: asking again every scan until the deadline would not change it.
          if (error instanceof DomainError && error.code === 'operation_declined') await this.recordRefusal(scope, p.id, error.message);
          throw error;
        }
      }),
    );
  }

  private async recordRefusal(scope: TenantScope, paymentId: string, message: string): Promise<void> {
    await this.deps.transactor.run(async (tx) => {
      const payment = await this.deps.payments.find(tx, scope, paymentId, { forUpdate: true });
      if (!payment || payment.view().status !== 'authorized') return;
      payment.recordExpiryActionRefused({ now: this.deps.clock.now(), message });
      await this.deps.payments.update(tx, payment);
    });
  }

  private async actionFor(scope: TenantScope, accountId: string | null): Promise<ExpiryAction> {
    if (!accountId) return 'notify';
    const account = (await this.deps.connectors.accounts(scope)).find((a) => a.id === accountId);
    return expiryActionOf(account);
  }
}

/**
 * The near-expiry action an account's config sets (`preAuthorizationExpiryAction`), notify when none or unknown.
 * Shown on an authorization from the moment it is approved, and read again when the notice is due (the account's
 * setting then is the one carried out).
 */
export function expiryActionOf(account: { readonly config?: Readonly<Record<string, unknown>> } | undefined): ExpiryAction {
  const configured = account?.config?.['preAuthorizationExpiryAction'];
  return ACTIONS.includes(configured as ExpiryAction) ? (configured as ExpiryAction) : 'notify';
}
