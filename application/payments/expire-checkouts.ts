/**
 * The durable job that cancels transparent checkout payments whose deadline passed with no card approved (spec:
 * "payment expires in 24 hours"; payment.canceled). Each run claims a batch in one transaction with FOR UPDATE SKIP
 * LOCKED, cancels them and commits: several workers running it at once never cancel one payment twice (a row
 * another holds is skipped; once committed it no longer awaits a card). A payment whose confirm is in flight is
 * processing, so it is not touched; its outcome decides it.
 */
import type { CheckoutPayments } from '../../domain/ports/checkout-payments';
import type { PaymentDeps } from './payment-deps';
import { paymentEventToOutbox } from './payment-object';

const BATCH = 100;

export class ExpireCheckouts {
  constructor(
    private readonly deps: PaymentDeps,
    private readonly checkouts: CheckoutPayments,
  ) {}

  /** Cancels every checkout due now, batch after batch; returns how many this worker canceled. */
  async run(): Promise<number> {
    let total = 0;
    for (;;) {
      const canceled = await this.deps.transactor.run(async (tx) => {
        const now = this.deps.clock.now();
        const due = await this.checkouts.claimExpired(tx, now, BATCH);
        for (const payment of due) {
          payment.expireCheckout(now);
          await this.deps.payments.update(tx, payment);
          const events = payment.pullEvents().map(paymentEventToOutbox);
          if (events.length) await this.deps.outbox.append(tx, events);
        }
        return due.length;
      });
      total += canceled;
      if (canceled < BATCH) return total;
    }
  }
}
