import { Payment } from '../../domain/payment/payment';
import type { CheckoutPayments } from '../../domain/ports/checkout-payments';
import type { Transaction, Transactor } from '../../domain/ports/transactor';
import { entityManager, readBatchWindowOf } from './mikro-orm-transactor';
import { paymentFromDoc } from './payment.repository';
import { ReadBatch } from './read-batch';

/**
 * Checkout payments on PostgreSQL; the expiry claim uses payments_checkout_expiry (Migration20261129000100CheckoutExpiry).
 * The client secret checks of public requests arriving together read their payments in one statement (read-batch.ts).
 */
export class SqlCheckoutPayments implements CheckoutPayments {
  private readonly committed: ReadBatch<string, Payment | null>;

  constructor(private readonly transactor: Transactor) {
    this.committed = new ReadBatch((ids) => this.readCommitted(ids), { windowMs: readBatchWindowOf(transactor) });
  }

  findCommitted(paymentId: string): Promise<Payment | null> {
    return this.committed.read(paymentId);
  }

  private async readCommitted(ids: readonly string[]): Promise<Array<Payment | null>> {
    const rows = await this.transactor.read((tx) =>
      entityManager(tx).execute<Array<{ id: string; doc: unknown }>>(
        `select id, doc from payments where id = any(array(select jsonb_array_elements_text(?::jsonb)))`,
        [JSON.stringify(ids)],
      ),
    );
    const found = new Map(rows.map((r) => [r.id, r.doc]));
    return ids.map((id) => (found.has(id) ? Payment.fromPrimitives(paymentFromDoc(found.get(id))) : null));
  }
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
