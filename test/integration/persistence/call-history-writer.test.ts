import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { RECENT_CALLS_WINDOW, type CallRecord } from '../../../domain/connector-account/connector-account-health';
import type { Transaction } from '../../../domain/ports/transactor';
import { AesGcmCredentialCipher } from '../../../infrastructure/crypto/aes-gcm-credential-cipher';
import { createLogger } from '../../../infrastructure/logging/logger';
import { CallHistoryWriter } from '../../../infrastructure/persistence/call-history-writer';
import { SqlConnectorAccountRepository } from '../../../infrastructure/persistence/connector-account.repository';
import { entityManager, MikroOrmTransactor } from '../../../infrastructure/persistence/mikro-orm-transactor';
import { migrate, openOrm, type Orm } from '../../../infrastructure/persistence/orm';
import { createTestDatabase } from '../../support/test-infrastructure';
import { sandboxAccount } from '../../support/builders/connector-account.builder';

const scope = { organizationId: 'org_calls', environment: 'sandbox' as const };

const account = (id: string, organizationId = scope.organizationId) => sandboxAccount(id, { ...scope, organizationId });

const call = (n: number, outcome: CallRecord['outcome'] = 'approved'): CallRecord => ({ outcome, operation: 'authorize', latencyMs: n, at: new Date(Date.UTC(2026, 10, 26, 10, 0, 0, n)) });

describe('connector call history written in batches off the payments\' units of work (PostgreSQL)', () => {
  let databaseUrl: string;
  let orm: Orm;
  let transactor: MikroOrmTransactor;
  let writer: CallHistoryWriter;
  let repo: SqlConnectorAccountRepository;
  let clock = 0;
  const cipher = new AesGcmCredentialCipher([randomBytes(32)]);
  const run = <T>(work: (tx: Transaction) => Promise<T>) => transactor.run(work);
  const rows = async (accountId: string): Promise<number> =>
    Number((await orm.em.fork({ useContext: false }).execute(`select count(*)::int as n from connector_account_health where account_id = ?`, [accountId]))[0].n);

  before(async () => {
    databaseUrl = await createTestDatabase();
    orm = await openOrm(databaseUrl, 4);
    await migrate(orm);
    transactor = new MikroOrmTransactor(orm);
    // Only explicit flushes write here (a timer firing mid-test would make the first assertion depend on the machine's speed).
    writer = new CallHistoryWriter(transactor, createLogger('silent'), { now: () => clock, flushEveryMs: 3_600_000 });
    repo = new SqlConnectorAccountRepository(cipher, writer);
    await run(async (tx) => {
      await repo.insert(tx, account('ca_one'));
      await repo.insert(tx, account('ca_two'));
      await repo.insert(tx, account('ca_other_org', 'org_someone_else'));
    });
  });
  after(async () => {
    await writer.stop();
    await orm.close(true);
  });

  it('a recorded call is not part of the caller\'s unit: it is written by the next flush, and a read shows it before', async () => {
    await run((tx) => repo.recordCall(tx, scope, 'ca_one', call(1, 'declined')));
    expect(await rows('ca_one'), 'the payment\'s own commit wrote no call row').to.equal(0);
    const health = await run((tx) => repo.healthOf(tx, ['ca_one']));
    expect(health.get('ca_one')!.recentCalls.map((c) => [c.outcome, c.latencyMs])).to.deep.equal([['declined', 1]]);
    expect(await rows('ca_one'), 'the read wrote nothing').to.equal(0);
    await writer.flush();
    const again = await run((tx) => repo.healthOf(tx, ['ca_one']));
    expect(again.get('ca_one')!.recentCalls.map((c) => c.latencyMs), 'written, and shown once').to.deep.equal([1]);
  });

  it('calls of several accounts leave as one batch, newest first as recorded, and a call naming another tenant\'s account is not kept', async () => {
    for (let n = 10; n < 15; n += 1) await run((tx) => repo.recordCall(tx, scope, n % 2 ? 'ca_one' : 'ca_two', call(n)));
    await run((tx) => repo.recordCall(tx, scope, 'ca_other_org', call(99)));
    await writer.flush();
    const health = await run((tx) => repo.healthOf(tx, ['ca_one', 'ca_two', 'ca_other_org']));
    expect(health.get('ca_one')!.recentCalls.map((c) => c.latencyMs)).to.deep.equal([13, 11, 1]);
    expect(health.get('ca_two')!.recentCalls.map((c) => c.latencyMs)).to.deep.equal([14, 12, 10]);
    expect(await rows('ca_other_org')).to.equal(0);
  });

  it('trims an account to twice the displayed window, at most once per trim interval', async () => {
    await run((tx) => repo.insert(tx, account('ca_busy')));
    clock += 60_000;
    for (let n = 0; n < RECENT_CALLS_WINDOW * 3; n += 1) writer.record(scope, 'ca_busy', call(n));
    await writer.flush();
    // Trimmed in the flush that inserted them (its first of the interval): the newest 2 x window are kept.
    expect(await rows('ca_busy')).to.equal(RECENT_CALLS_WINDOW * 2);
    for (let n = 0; n < RECENT_CALLS_WINDOW; n += 1) writer.record(scope, 'ca_busy', call(100 + n));
    await writer.flush();
    expect(await rows('ca_busy'), 'no second trim within the interval').to.equal(RECENT_CALLS_WINDOW * 3);
    clock += 60_000;
    writer.record(scope, 'ca_busy', call(500));
    await writer.flush();
    expect(await rows('ca_busy')).to.equal(RECENT_CALLS_WINDOW * 2);
    const newest = (await run((tx) => repo.healthOf(tx, ['ca_busy']))).get('ca_busy')!.recentCalls[0]!;
    expect(newest.latencyMs).to.equal(500);
  });

  it('a reader holding the only pooled connection sees the calls waiting and those in a batch being written, and does not wait for that batch', async () => {
    const single = await openOrm(databaseUrl, 1);
    try {
      const singleTransactor = new MikroOrmTransactor(single);
      const singleWriter = new CallHistoryWriter(singleTransactor, createLogger('silent'), { now: () => clock, flushEveryMs: 3_600_000 });
      const singleRepo = new SqlConnectorAccountRepository(cipher, singleWriter);
      singleWriter.record(scope, 'ca_one', call(801));
      let flushed: Promise<void> = Promise.resolve();
      const read = singleTransactor.run(async (tx) => {
        await entityManager(tx).execute('select 1'); // the unit now holds the pool's one connection
        flushed = singleWriter.flush(); // its batch waits for that connection
        singleWriter.record(scope, 'ca_one', call(802));
        return singleRepo.healthOf(tx, ['ca_one']);
      });
      let timer: NodeJS.Timeout | undefined;
      const stuck = new Promise<'stuck'>((resolve) => (timer = setTimeout(() => resolve('stuck'), 10_000)));
      const health = await Promise.race([read, stuck]).finally(() => clearTimeout(timer));
      expect(health, 'the read waited for the batch, which waited for the read\'s connection').not.to.equal('stuck');
      expect((health as Awaited<typeof read>).get('ca_one')!.recentCalls.map((c) => c.latencyMs)).to.deep.equal([802, 801, 13, 11, 1]);
      await flushed;
      await singleWriter.flush();
      const after = await singleTransactor.run((tx) => singleRepo.healthOf(tx, ['ca_one']));
      expect(after.get('ca_one')!.recentCalls.map((c) => c.latencyMs), 'each once, from their rows').to.deep.equal([802, 801, 13, 11, 1]);
    } finally {
      await single.close(true);
    }
  });

  it('writes what is pending when stopped (the service stops its modules before the database closes)', async () => {
    const stopping = new CallHistoryWriter(transactor, createLogger('silent'));
    stopping.record(scope, 'ca_two', call(700));
    await stopping.stop();
    expect((await run((tx) => repo.healthOf(tx, ['ca_two']))).get('ca_two')!.recentCalls[0]!.latencyMs).to.equal(700);
  });
});
