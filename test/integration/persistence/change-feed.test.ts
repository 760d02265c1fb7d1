import { expect } from 'chai';
import type { ChangeListener } from '../../../domain/ports/change-feed';
import { createLogger } from '../../../infrastructure/logging/logger';
import { announceChange, MikroOrmTransactor } from '../../../infrastructure/persistence/mikro-orm-transactor';
import { migrate, openOrm, type Orm } from '../../../infrastructure/persistence/orm';
import { PostgresChangeFeed } from '../../../infrastructure/persistence/postgres-change-feed';
import { eventually } from '../../support/eventually';
import { createTestDatabase } from '../../support/test-infrastructure';

const logger = createLogger('silent');

/** What a listener heard, in order. */
function recorder() {
  const heard: string[] = [];
  const listener: ChangeListener = { onChange: (key) => heard.push(key), onReset: () => heard.push('(reset)') };
  return { heard, listener };
}

/** Two "processes" on one database: each its own pool, transactor and feed. */
describe('PostgresChangeFeed (changes announced to every process)', () => {
  let databaseUrl: string;
  let orms: Orm[] = [];
  let feeds: PostgresChangeFeed[] = [];

  before(async () => {
    databaseUrl = await createTestDatabase();
  });
  afterEach(async () => {
    for (const feed of feeds) await feed.stop();
    for (const orm of orms) await orm.close(true);
    feeds = [];
    orms = [];
  });

  async function process(url: string | null = databaseUrl) {
    const orm = await openOrm(databaseUrl, 2);
    await migrate(orm);
    const transactor = new MikroOrmTransactor(orm);
    const feed = new PostgresChangeFeed(transactor, url, logger);
    orms.push(orm);
    feeds.push(feed);
    return { orm, transactor, feed };
  }

  it('tells this process right after its commit, and another process once PostgreSQL delivers the notification', async () => {
    const a = await process();
    const b = await process();
    await a.feed.start();
    await b.feed.start();
    expect(a.feed.live).to.equal(true);
    const inA = recorder();
    const inB = recorder();
    a.feed.subscribe('api_keys', inA.listener);
    b.feed.subscribe('api_keys', inB.listener);

    await a.transactor.run((tx) => announceChange(tx, 'api_keys', 'key_1'));
    expect(inA.heard).to.include('key_1'); // synchronously after the commit, before the caller answers
    await eventually(() => inB.heard.length > 0);
    expect(inB.heard).to.deep.equal(['key_1']);
  });

  it('announces nothing when the transaction rolls back', async () => {
    const a = await process();
    const b = await process();
    await b.feed.start();
    const inA = recorder();
    const inB = recorder();
    a.feed.subscribe('api_keys', inA.listener);
    b.feed.subscribe('api_keys', inB.listener);

    await a.transactor
      .run(async (tx) => {
        await announceChange(tx, 'api_keys', 'key_rolled_back');
        throw new Error('rolled back');
      })
      .catch(() => undefined);
    await a.transactor.run((tx) => announceChange(tx, 'api_keys', 'key_committed'));
    await eventually(() => inB.heard.length > 0);
    expect(inB.heard).to.deep.equal(['key_committed']);
    expect(inA.heard).to.deep.equal(['key_committed']);
  });

  it('delivers a topic to its subscribers only', async () => {
    const a = await process();
    await a.feed.start();
    const keys = recorder();
    const accounts = recorder();
    a.feed.subscribe('api_keys', keys.listener);
    a.feed.subscribe('connector_accounts', accounts.listener);
    await a.transactor.run((tx) => announceChange(tx, 'connector_accounts', 'org_1:sandbox'));
    await eventually(() => accounts.heard.length === 2); // its own commit, then its own notification
    expect(accounts.heard).to.deep.equal(['org_1:sandbox', 'org_1:sandbox']);
    expect(keys.heard).to.deep.equal([]);
  });

  it('is not live until it listens, nor while its connection is lost; on listening again it resets its listeners', async () => {
    const a = await process();
    const b = await process();
    expect(b.feed.live).to.equal(false);
    await b.feed.start();
    const inB = recorder();
    b.feed.subscribe('api_keys', inB.listener);

    await a.orm.em.fork().execute(`select pg_terminate_backend(pid) from pg_stat_activity where query = 'listen payments_changes' and datname = current_database()`);
    await eventually(() => !b.feed.live);
    await eventually(() => b.feed.live);
    expect(inB.heard).to.deep.equal(['(reset)']);

    await a.transactor.run((tx) => announceChange(tx, 'api_keys', 'key_after_reconnect'));
    await eventually(() => inB.heard.length === 2);
    expect(inB.heard).to.deep.equal(['(reset)', 'key_after_reconnect']);
  });

  it('is live without a connection in embedded mode, where one process makes every change', async () => {
    const a = await process(null);
    await a.feed.start();
    expect(a.feed.live).to.equal(true);
  });
});
