import { expect } from 'chai';
import type { CountedCard } from '../../../domain/ports/card-retry-counts';
import { SqlCardRetryCounts } from '../../../infrastructure/persistence/card-retry-count.repository';
import { MikroOrmTransactor } from '../../../infrastructure/persistence/mikro-orm-transactor';
import { migrate, openOrm, type Orm } from '../../../infrastructure/persistence/orm';
import { recordRoundTrips } from '../../support/round-trip-recorder';
import { createTestDatabase } from '../../support/test-infrastructure';

const T0 = new Date('2026-11-30T10:15:00.000Z');
const HOUR = 3_600_000;
const card: CountedCard = { scope: { organizationId: 'org_cnt', environment: 'sandbox' }, network: 'visa', fingerprint: '411111:1111:12/2030' };

describe('brand retry counts (PostgreSQL)', function () {
  this.timeout(60_000);
  let orm: Orm;
  let counts: SqlCardRetryCounts;
  let database: string;

  before(async () => {
    const url = await createTestDatabase();
    database = new URL(url).pathname.slice(1);
    orm = await openOrm(url, 8);
    await migrate(orm);
    counts = new SqlCardRetryCounts(new MikroOrmTransactor(orm, { preparedStatements: true }));
  });
  after(async () => {
    await orm?.close(true);
  });

  it('concurrent counts of one card add up, per hour, amount and kind, and survive another connection', async () => {
    await Promise.all(Array.from({ length: 24 }, () => counts.count(card, { kind: 'reversible_decline', amount: 1_000, at: T0 })));
    await counts.count(card, { kind: 'reversible_decline', amount: 1_000, at: new Date(T0.getTime() + 2 * HOUR) });
    await counts.count(card, { kind: 'failed_after_sending', amount: 500, at: T0 });
    // Another process: its own transactor over the same database.
    const other = new SqlCardRetryCounts(new MikroOrmTransactor(orm, { preparedStatements: false }));
    const history = await other.history(card, new Date(T0.getTime() - HOUR));
    const summary = history.map((b) => [b.kind, b.amount, b.hour.toISOString(), b.count]).sort();
    expect(summary).to.deep.equal([
      ['failed_after_sending', 500, '2026-11-30T10:00:00.000Z', 1],
      ['reversible_decline', 1_000, '2026-11-30T10:00:00.000Z', 24],
      ['reversible_decline', 1_000, '2026-11-30T12:00:00.000Z', 1],
    ].sort());
  });

  it('keeps cards, merchants and environments apart, and reads from the given hour on', async () => {
    await counts.count({ ...card, fingerprint: 'other' }, { kind: 'reversible_decline', amount: 1_000, at: T0 });
    await counts.count({ ...card, scope: { ...card.scope, environment: 'live' } }, { kind: 'reversible_decline', amount: 1_000, at: T0 });
    const later = await counts.history(card, new Date(T0.getTime() + HOUR));
    expect(later.map((b) => b.count)).to.deep.equal([1]);
  });

  it('drops a card\'s buckets older than the longest window as it counts new ones', async () => {
    const old = { ...card, fingerprint: 'old-card' };
    await counts.count(old, { kind: 'reversible_decline', amount: 1, at: T0 });
    await counts.count(old, { kind: 'reversible_decline', amount: 1, at: new Date(T0.getTime() + 32 * 24 * HOUR) });
    const history = await counts.history(old, new Date(0));
    expect(history.map((b) => b.hour.getTime())).to.deep.equal([new Date(T0.getTime() + 32 * 24 * HOUR - 15 * 60_000).getTime()]);
  });

  it('histories asked in the same turn (payments arriving together) are read in one round trip, each its own card\'s', async () => {
    const mastercard: CountedCard = { ...card, network: 'mastercard', fingerprint: 'batched-mc' };
    const liveVisa: CountedCard = { ...card, scope: { ...card.scope, environment: 'live' }, fingerprint: 'batched-visa' };
    await counts.count(mastercard, { kind: 'irreversible_decline', amount: 700, at: T0 });
    await counts.count(liveVisa, { kind: 'reversible_decline', amount: 900, at: T0 });
    await counts.count(liveVisa, { kind: 'reversible_decline', amount: 900, at: new Date(T0.getTime() + 3 * HOUR) });
    const recorder = recordRoundTrips(database);
    try {
      const [ofMastercard, ofVisaSince, ofNobody] = await Promise.all([
        counts.history(mastercard, new Date(0)),
        counts.history(liveVisa, new Date(T0.getTime() + HOUR)),
        counts.history({ ...card, fingerprint: 'never-counted' }, new Date(0)),
      ]);
      expect(recorder.statements, recorder.statements.join('\n')).to.have.length(1);
      expect(ofMastercard.map((b) => [b.kind, b.amount, b.count])).to.deep.equal([['irreversible_decline', 700, 1]]);
      expect(ofVisaSince.map((b) => [b.kind, b.amount, b.hour.toISOString()])).to.deep.equal([['reversible_decline', 900, '2026-11-30T13:00:00.000Z']]);
      expect(ofNobody).to.deep.equal([]);
    } finally {
      recorder.stop();
    }
  });
});
