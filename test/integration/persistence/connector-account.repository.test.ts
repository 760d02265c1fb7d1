import chai, { expect } from 'chai';
import chaiAsPromised from 'chai-as-promised';
import { randomBytes } from 'node:crypto';
import { ConnectorAccount } from '../../../domain/connector-account/connector-account';
import type { Transaction } from '../../../domain/ports/transactor';
import { AesGcmCredentialCipher } from '../../../infrastructure/crypto/aes-gcm-credential-cipher';
import { SqlConnectorAccountRepository } from '../../../infrastructure/persistence/connector-account.repository';
import { MikroOrmTransactor } from '../../../infrastructure/persistence/mikro-orm-transactor';
import { migrate, openOrm, type Orm } from '../../../infrastructure/persistence/orm';
import { createTestDatabase } from '../../support/test-infrastructure';

chai.use(chaiAsPromised);

const scope = { organizationId: 'org_repo', environment: 'sandbox' as const };

function account(id: string) {
  return ConnectorAccount.create({
    id,
    scope,
    connectorSlug: 'sandbox',
    kind: 'acquirer',
    name: id,
    credentials: { merchantId: `m-${id}`, apiKey: `k-${id}` },
    config: {},
    costBasisPoints: null,
    enabled: true,
    webhookToken: `tok-${id}`,
    now: new Date('2026-11-22T10:00:00.000Z'),
  });
}

describe('connector account repository (PostgreSQL): sealed credentials and key rotation', () => {
  let orm: Orm;
  let transactor: MikroOrmTransactor;
  const keyA = randomBytes(32);
  const keyB = randomBytes(32);

  before(async () => {
    orm = await openOrm(await createTestDatabase(), 2);
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
});
