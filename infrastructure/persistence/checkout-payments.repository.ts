import { Payment } from '../../domain/payment/payment';
import type { CheckoutPayments } from '../../domain/ports/checkout-payments';
import type { Transaction } from '../../domain/ports/transactor';
import { entityManager } from './mikro-orm-transactor';
import { paymentFromDoc } from './payment.repository';

/** Checkout payments on PostgreSQL; the expiry claim uses payments_checkout_expiry (Migration20261129000100CheckoutExpiry). */
export class SqlCheckoutPayments implements CheckoutPayments {
  async findById(tx: Transaction, paymentId: string, options: { forUpdate?: boolean } = {}): Promise<Payment | null> {
    const rows = await entityManager(tx).execute<Array<{ doc: unknown }>>(
      `select doc from payments where id = ?${options.forUpdate ? ' for update' : ''}`,
      [paymentId],
    );
    return rows[0] ? Payment.fromPrimitives(paymentFromDoc(rows[0].doc)) : null;
  }

  async claimExpired(tx: Transaction, now: Date, limit: number): Promise<Payment[]> {
    // ISO 8601 UTC timestamps with milliseconds order as text, so the deadline compares (and is indexed) as stored.
    const rows = await entityManager(tx).execute<Array<{ doc: unknown }>>(
      `select doc from payments
        where status = 'requires_payment_method' and doc->'checkout'->>'expiresAt' <= ?
        order by doc->'checkout'->>'expiresAt'
        limit ?
        for update skip locked`,
      [now.toISOString(), limit],
    );
    return rows.map((r) => Payment.fromPrimitives(paymentFromDoc(r.doc)));
  }
}
