import chai, { expect } from 'chai';
import chaiAsPromised from 'chai-as-promised';
import { randomBytes } from 'node:crypto';
import type { Transaction } from '../../../domain/ports/transactor';
import { AesGcmCredentialCipher } from '../../../infrastructure/crypto/aes-gcm-credential-cipher';
import { SqlConnectorAccountRepository } from '../../../infrastructure/persistence/connector-account.repository';
import { MikroOrmTransactor } from '../../../infrastructure/persistence/mikro-orm-transactor';
import { migrate, openOrm, type Orm } from '../../../infrastructure/persistence/orm';
import pg from 'pg';
import { RECENT_CALLS_WINDOW } from '../../../domain/connector-account/connector-account-health';
import { createTestDatabase } from '../../support/test-infrastructure';
import { sandboxAccount } from '../../support/builders/connector-account.builder';

chai.use(chaiAsPromised);

const scope = { organizationId: 'org_repo', environment: 'sandbox' as const };

const account = (id: string) => sandboxAccount(id, scope);

describe('connector account repository (PostgreSQL): sealed credentials and key rotation', () => {
  let orm: Orm;
  let transactor: MikroOrmTransactor;
  const keyA = randomBytes(32);
  const keyB = randomBytes(32);

  let databaseUrl: string;

  before(async () => {
    databaseUrl = await createTestDatabase();
    orm = await openOrm(databaseUrl, 2);
    await migrate(orm);
    transactor = new MikroOrmTransactor(orm);
  });
  after(() => orm.close(true));

  const run = <T>(work: (tx: Transaction) => Promise<T>) => transactor.run(work);

  it('re-seals rows of an old key with the current one; afterwards the old key is no longer needed', async () => {
    const withA = new SqlConnectorAccountRepository(new AesGcmCredentialCipher([keyA]));
    await run(async (tx) => {
      await withA.insert(tx, account('ca_r1'));
      await withA.insert(tx, account('ca_r2'));
    });

    const rotated = new SqlConnectorAccountRepository(new AesGcmCredentialCipher([keyB, keyA]));
    expect((await run((tx) => rotated.findById(tx, scope, 'ca_r1')))!.state.credentials.apiKey, 'old rows still open').to.equal('k-ca_r1');
    expect(await run((tx) => rotated.resealWithCurrentKey(tx, 1))).to.equal(2);
    expect(await run((tx) => rotated.countByKeyId(tx))).to.deep.equal({ [AesGcmCredentialCipher.keyIdOf(keyB)]: 2 });
    expect(await run((tx) => rotated.resealWithCurrentKey(tx))).to.equal(0);

    const onlyB = new SqlConnectorAccountRepository(new AesGcmCredentialCipher([keyB]));
    const accounts = await run((tx) => onlyB.list(tx, scope));
    expect(accounts.map((a) => a.state.credentials.merchantId)).to.deep.equal(['m-ca_r1', 'm-ca_r2']);
  });

  it('stores the inbound-notice token sealed, and still finds the account by it (and by nothing else)', async () => {
    const repo = new SqlConnectorAccountRepository(new AesGcmCredentialCipher([keyB]));
    await run((tx) => repo.insert(tx, account('ca_tok')));
    const [row] = await orm.em.fork({ useContext: false }).execute<Array<{ webhook_token: string }>>(`select webhook_token from connector_accounts where id = 'ca_tok'`);
    expect(row!.webhook_token).to.match(/^sealed:/).and.not.contain('tok-ca_tok');
    expect((await run((tx) => repo.findById(tx, scope, 'ca_tok')))!.state.webhookToken).to.equal('tok-ca_tok');
    expect((await run((tx) => repo.findByWebhookToken(tx, 'ca_tok', 'tok-ca_tok')))?.id).to.equal('ca_tok');
    expect(await run((tx) => repo.findByWebhookToken(tx, 'ca_tok', 'tok-ca_other'))).to.equal(null);
    expect(await run((tx) => repo.findByWebhookToken(tx, 'ca_tok', row!.webhook_token)), 'the stored form is no token').to.equal(null);
  });

  it('does not open a ciphertext copied onto another row', async () => {
    const repo = new SqlConnectorAccountRepository(new AesGcmCredentialCipher([keyB]));
    await run(async (tx) => {
      await repo.insert(tx, account('ca_r3'));
      await repo.insert(tx, account('ca_r4'));
    });
    await orm.em.fork({ useContext: false }).execute(
      `update connector_accounts set credentials_ciphertext = (select credentials_ciphertext from connector_accounts where id = 'ca_r3') where id = 'ca_r4'`,
    );
    await expect(run((tx) => repo.findById(tx, scope, 'ca_r4'))).to.be.rejected;
  });

  it('trims old call records without waiting for rows another transaction holds (no queue, no deadlock)', async function () {
    this.timeout(10_000);
    const repo = new SqlConnectorAccountRepository(new AesGcmCredentialCipher([keyB]));
    await run((tx) => repo.insert(tx, account('ca_trim')));
    const call = (n: number) => ({ outcome: 'approved' as const, operation: 'authorize', latencyMs: n, at: new Date(Date.UTC(2026, 10, 22, 10, 0, n)) });
    const record = async (n: number, trim: boolean) => {
      const random = Math.random;
      Math.random = () => (trim ? 0 : 0.999_999); // the repository trims on about one call in twenty
      try {
        await run((tx) => repo.recordCall(tx, scope, 'ca_trim', call(n)));
      } finally {
        Math.random = random;
      }
    };
    for (let n = 0; n < RECENT_CALLS_WINDOW * 3; n += 1) await record(n, false);
    const count = async () =>
      Number((await orm.em.fork({ useContext: false }).execute(`select count(*)::int as n from connector_account_health where account_id = 'ca_trim'`))[0].n);
    expect(await count()).to.equal(RECENT_CALLS_WINDOW * 3);

    // Another transaction (another payment's trim, in another group of commits) holds the five oldest rows.
    const other = new pg.Client({ connectionString: databaseUrl });
    await other.connect();
    try {
      await other.query('begin');
      await other.query(`delete from connector_account_health where id in (select id from connector_account_health where account_id = 'ca_trim' order by id limit 5)`);
      const trimmed = record(1_000, true);
      const waited = await Promise.race([trimmed.then(() => false), new Promise((resolve) => setTimeout(() => resolve(true), 2_000))]);
      expect(waited, 'the trim waited for the other transaction').to.equal(false);
      // Kept: the window plus slack, and the five rows the other transaction holds (its own to delete or keep).
      expect(await count()).to.equal(RECENT_CALLS_WINDOW * 2 + 5);
    } finally {
      await other.query('rollback');
      await other.end();
    }
  });
});
