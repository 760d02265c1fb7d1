import { expect } from 'chai';
import { PostgresRateLimiter } from '../../../infrastructure/http/postgres-rate-limiter';
import { MikroOrmTransactor } from '../../../infrastructure/persistence/mikro-orm-transactor';
import { migrate, openOrm, type Orm } from '../../../infrastructure/persistence/orm';
import { recordRoundTrips } from '../../support/round-trip-recorder';
import { createTestDatabase } from '../../support/test-infrastructure';

describe('rate limits in PostgreSQL: counts of one turn in one statement', () => {
  let orm: Orm;
  let database: string;
  let transactor: MikroOrmTransactor;
  let now = Date.UTC(2026, 10, 26, 12, 0, 0);
  let limiter: PostgresRateLimiter;

  before(async () => {
    const url = await createTestDatabase();
    database = new URL(url).pathname.slice(1);
    orm = await openOrm(url, 2);
    await migrate(orm);
    transactor = new MikroOrmTransactor(orm, { preparedStatements: true });
    limiter = new PostgresRateLimiter(transactor, () => now);
  });
  after(async () => {
    await orm?.close(true);
  });

  it('seven arrivals at once under a limit of five: one round trip, each sees its own count, the last two refused', async () => {
    await limiter.consume('warm', 5, 3600); // a statement's first use prepares it in a round trip of its own
    const recorder = recordRoundTrips(database);
    let verdicts;
    try {
      verdicts = await Promise.all(Array.from({ length: 7 }, () => limiter.consume('confirm:pay_1', 5, 3600)));
      expect(recorder.statements, recorder.statements.join('\n')).to.have.length(1);
    } finally {
      recorder.stop();
    }
    expect(verdicts.map((v) => v.consumedPoints)).to.deep.equal([1, 2, 3, 4, 5, 6, 7]);
    expect(verdicts.map((v) => v.allowed)).to.deep.equal([true, true, true, true, true, false, false]);
    expect(verdicts[6]).to.deep.include({ retryAfterSeconds: 3600, resetsInSeconds: 3600 });
    expect(verdicts[0]!.retryAfterSeconds).to.equal(0);
  });

  it('subjects and limits count apart, in one batch too', async () => {
    const [a, b, c] = await Promise.all([limiter.consume('confirm:pay_2', 5, 3600), limiter.consume('confirm:pay_3', 5, 3600), limiter.consume('confirm:pay_2', 10, 3600)]);
    expect([a.consumedPoints, b.consumedPoints, c.consumedPoints]).to.deep.equal([1, 1, 1]);
  });

  it('a window that ended starts again; Retry-After counts down to its end', async () => {
    for (let i = 0; i < 2; i += 1) await limiter.consume('view:pay_4', 2, 60);
    now += 45_000;
    expect(await limiter.consume('view:pay_4', 2, 60)).to.deep.equal({ allowed: false, retryAfterSeconds: 15, consumedPoints: 3, resetsInSeconds: 15 });
    now += 15_000;
    expect(await limiter.consume('view:pay_4', 2, 60)).to.deep.equal({ allowed: true, retryAfterSeconds: 0, consumedPoints: 1, resetsInSeconds: 60 });
  });

  it('a refund gives one point back, also in the batch of the count it follows', async () => {
    await limiter.consume('login:ana', 3, 900);
    await limiter.refund('login:ana', 3, 900);
    const [counted] = await Promise.all([limiter.consume('login:ana', 3, 900), limiter.refund('login:ana', 3, 900)]);
    expect(counted.consumedPoints).to.equal(1);
    expect((await limiter.consume('login:ana', 3, 900)).consumedPoints).to.equal(1);
  });

  it('a subject too long for the column is counted under its digest, and the counts batched with it go through', async () => {
    const long = `confirm:${'x'.repeat(10_000)}`;
    const [a, b, c] = await Promise.all([limiter.consume(long, 5, 3600), limiter.consume('confirm:pay_5', 5, 3600), limiter.consume(long, 5, 3600)]);
    expect([a.consumedPoints, b.consumedPoints, c.consumedPoints]).to.deep.equal([1, 1, 2]);
    expect((await limiter.consume(`confirm:${'x'.repeat(9_999)}y`, 5, 3600)).consumedPoints, 'another long subject').to.equal(1);
  });
});
