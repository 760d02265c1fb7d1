import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { AesGcmCredentialCipher } from '../../../infrastructure/crypto/aes-gcm-credential-cipher';
import { SqlConnectorAccountRepository } from '../../../infrastructure/persistence/connector-account.repository';
import { MikroOrmTransactor } from '../../../infrastructure/persistence/mikro-orm-transactor';
import { migrate, openOrm, type Orm } from '../../../infrastructure/persistence/orm';
import { createTestDatabase } from '../../support/test-infrastructure';

const MIGRATION = 'Migration20261128000200SealConnectorWebhookTokens';

/** Accounts created before the inbound-notice token was sealed keep their token (their webhookUrl) after the migration. */
describe(`${MIGRATION}: seals inbound-notice tokens stored in clear (PostgreSQL)`, () => {
  let orm: Orm;
  const cipher = new AesGcmCredentialCipher([randomBytes(32)]);
  const scope = { organizationId: 'org_legacy_tokens', environment: 'sandbox' as const };

  before(async () => {
    orm = await openOrm(await createTestDatabase(), 2);
    const earlier = (await orm.getMigrator().getPendingMigrations()).map((m) => m.name).filter((name) => name < MIGRATION);
    await orm.getMigrator().up({ migrations: earlier });
  });
  after(() => orm?.close(true));

  it('seals a legacy token, which still authenticates notices and reads back in clear', async () => {
    const sealed = cipher.seal(JSON.stringify({ merchantId: 'm', apiKey: 'k' }), `connector_account:ca_legacy:${scope.organizationId}:${scope.environment}`);
    await orm.em.fork({ useContext: false }).execute(
      `insert into connector_accounts (id, organization_id, environment, connector_slug, kind, name, credentials_key_id, credentials_ciphertext, config,
         cost_basis_points, enabled, webhook_token, created_at, updated_at, deleted_at)
       values ('ca_legacy', ?, ?, 'sandbox', 'acquirer', 'legacy', ?, ?, '{}'::jsonb, null, true, 'legacy-clear-token', now(), now(), null)`,
      [scope.organizationId, scope.environment, sealed.keyId, sealed.ciphertext],
    );

    await expect(migrate(orm)).to.be.rejectedWith(/needs the credentials key/);
    expect(await migrate(orm, { cipher })).to.include(MIGRATION);

    const [row] = await orm.em.fork({ useContext: false }).execute<Array<{ webhook_token: string }>>(`select webhook_token from connector_accounts where id = 'ca_legacy'`);
    expect(row!.webhook_token).to.match(/^sealed:/).and.not.contain('legacy-clear-token');
    const repo = new SqlConnectorAccountRepository(cipher);
    const transactor = new MikroOrmTransactor(orm);
    expect((await transactor.read((tx) => repo.findById(tx, scope, 'ca_legacy')))!.state.webhookToken).to.equal('legacy-clear-token');
    expect((await transactor.read((tx) => repo.findByWebhookToken(tx, 'ca_legacy', 'legacy-clear-token')))?.id).to.equal('ca_legacy');
  });
});
