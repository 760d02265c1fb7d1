import type { CardRetryCounts, CountedCard } from '../../domain/ports/card-retry-counts';
import { hourOf, LONGEST_RETRY_WINDOW_HOURS, type CardAttemptBucket, type CountedAttemptKind } from '../../domain/payment/retry/brand-retry-rules';
import type { Transactor } from '../../domain/ports/transactor';
import { entityManager } from './mikro-orm-transactor';

interface BucketRow {
  kind: CountedAttemptKind;
  amount: string | number;
  hour: Date | string;
  count: number;
}

/** Brand retry counts on PostgreSQL (Migration20261130000100CardRetryCounts). */
export class SqlCardRetryCounts implements CardRetryCounts {
  constructor(private readonly transactor: Transactor) {}

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

  async history(card: CountedCard, since: Date): Promise<CardAttemptBucket[]> {
    const { scope } = card;
    const rows = await this.transactor.read((tx) =>
      entityManager(tx).execute<BucketRow[]>(
        `select kind, amount, hour, count from card_retry_counts
          where organization_id = ? and environment = ? and network = ? and card_fingerprint = ? and hour >= ?`,
        [scope.organizationId, scope.environment, card.network, card.fingerprint, since],
      ),
    );
    return rows.map((r) => ({ kind: r.kind, amount: Number(r.amount), hour: new Date(r.hour), count: Number(r.count) }));
  }
}
