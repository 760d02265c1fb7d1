import type { CardRetryCounts, CountedCard } from '../../domain/ports/card-retry-counts';
import { hourOf, LONGEST_RETRY_WINDOW_HOURS, type CardAttemptBucket, type CountedAttemptKind } from '../../domain/payment/retry/brand-retry-rules';
import type { Transactor } from '../../domain/ports/transactor';
import { entityManager, readBatchWindowOf } from './mikro-orm-transactor';
import { ReadBatch } from './read-batch';

interface BucketRow {
  kind: CountedAttemptKind;
  amount: string | number;
  hour: Date | string;
  count: number;
}

/**
 * Brand retry counts on PostgreSQL (Migration20261130000100CardRetryCounts). Every card payment reads its card's
 * history before its first call: the histories asked in the same turn of the event loop are read by one statement
 * (read-batch.ts), so under load that read costs a fraction of a round trip per payment.
 */
export class SqlCardRetryCounts implements CardRetryCounts {
  private readonly histories: ReadBatch<{ card: CountedCard; since: Date }, CardAttemptBucket[]>;

  constructor(private readonly transactor: Transactor) {
    this.histories = new ReadBatch((asked) => this.readHistories(asked), { windowMs: readBatchWindowOf(transactor) });
  }

  async count(card: CountedCard, attempt: { kind: CountedAttemptKind; amount: number; at: Date }): Promise<void> {
    const { scope } = card;
    await this.transactor.run(async (tx) => {
      const em = entityManager(tx);
      // One statement: concurrent counts of the same bucket serialize on its row and each adds one.
      await em.execute(
        `insert into card_retry_counts (organization_id, environment, network, card_fingerprint, amount, kind, hour, count)
         values (?, ?, ?, ?, ?, ?, ?, 1)
         on conflict (organization_id, environment, network, card_fingerprint, hour, amount, kind)
         do update set count = card_retry_counts.count + 1`,
        [scope.organizationId, scope.environment, card.network, card.fingerprint, attempt.amount, attempt.kind, hourOf(attempt.at)],
      );
      // The card's buckets no rule reads any more (older than the longest window, with an hour to spare).
      const expired = new Date(hourOf(attempt.at).getTime() - (LONGEST_RETRY_WINDOW_HOURS + 1) * 3_600_000);
      await em.execute(
        `delete from card_retry_counts where organization_id = ? and environment = ? and network = ? and card_fingerprint = ? and hour < ?`,
        [scope.organizationId, scope.environment, card.network, card.fingerprint, expired],
      );
    });
  }

  history(card: CountedCard, since: Date): Promise<CardAttemptBucket[]> {
    return this.histories.read({ card, since });
  }

  /** The histories of several cards in one statement; `asked` (position) tells each row's card. */
  private async readHistories(asked: ReadonlyArray<{ card: CountedCard; since: Date }>): Promise<CardAttemptBucket[][]> {
    const keys = asked.map(({ card, since }, asked) => ({ asked, org: card.scope.organizationId, env: card.scope.environment, network: card.network, fingerprint: card.fingerprint, since: since.toISOString() }));
    const rows = await this.transactor.read((tx) =>
      entityManager(tx).execute<Array<BucketRow & { asked: number }>>(
        `select k.asked, c.kind, c.amount, c.hour, c.count
           from jsonb_to_recordset(?::jsonb) as k(asked int, org text, env text, network text, fingerprint text, since timestamptz)
           join card_retry_counts c
             on c.organization_id = k.org and c.environment = k.env and c.network = k.network and c.card_fingerprint = k.fingerprint and c.hour >= k.since`,
        [JSON.stringify(keys)],
      ),
    );
    const histories: CardAttemptBucket[][] = asked.map(() => []);
    for (const r of rows) histories[Number(r.asked)]!.push({ kind: r.kind, amount: Number(r.amount), hour: new Date(r.hour), count: Number(r.count) });
    return histories;
  }
}
