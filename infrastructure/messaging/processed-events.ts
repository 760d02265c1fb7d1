import type { Transaction } from '../../domain/ports/transactor';
import { entityManager } from '../persistence/mikro-orm-transactor';

/**
 * Consumer-side deduplication: a redelivered event (same id) is recognised and skipped. Call inside the
 * consumer's transaction, before its writes; false means this consumer already handled the event.
 */
export async function claimEventForConsumer(tx: Transaction, consumer: string, eventId: string): Promise<boolean> {
  const rows = await entityManager(tx).execute(
    `insert into processed_events (consumer, event_id) values (?, ?) on conflict do nothing returning event_id`,
    [consumer, eventId],
  );
  return rows.length === 1;
}
