import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { WebhookEndpoint } from '../../../domain/webhook/webhook-endpoint';
import { AesGcmCredentialCipher } from '../../../infrastructure/crypto/aes-gcm-credential-cipher';
import { SealedCheckoutSecrets } from '../../../infrastructure/crypto/checkout-client-secrets';
import { resealSealedValues } from '../../../infrastructure/persistence/credentials-reseal';
import { TotpSecretSealer } from '../../../infrastructure/persistence/identity.repository';
import { installationSecret } from '../../../infrastructure/persistence/identity-secrets';
import { MikroOrmTransactor } from '../../../infrastructure/persistence/mikro-orm-transactor';
import { migrate, openOrm, type Orm } from '../../../infrastructure/persistence/orm';
import { SqlIdempotencyStore } from '../../../infrastructure/persistence/sql-idempotency-store';
import { SqlWebhookEndpointRepository } from '../../../infrastructure/persistence/webhook-endpoint.repository';
import { createTestDatabase } from '../../support/test-infrastructure';

/**
 * CREDENTIALS_KEY rotation (`credentials reseal`, docs/operations.md): every value sealed with the old key is sealed
 * again with the new one, so the old key can then be removed from CREDENTIALS_KEY and everything still opens.
 */
describe('credentials reseal: every sealed value moves to the current key (PostgreSQL)', () => {
  let orm: Orm;
  let transactor: MikroOrmTransactor;
  const oldKey = randomBytes(32);
  const newKey = randomBytes(32);
  const oldCipher = new AesGcmCredentialCipher([oldKey]);
  const rotating = new AesGcmCredentialCipher([newKey, oldKey]);
  const newOnly = new AesGcmCredentialCipher([newKey]);
  const scope = { organizationId: 'org_reseal', environment: 'sandbox' as const };
  const now = new Date();
  const rows = <T>(sql: string, params: unknown[] = []) => orm.em.fork({ useContext: false }).execute<T[]>(sql, params);
  const checkoutSecret = new SealedCheckoutSecrets(oldCipher).issue('pay_checkout');
  const givenSecret = new SealedCheckoutSecrets(oldCipher).issue('pay_given');
  let sessionSecret: string;
  let pseudonymizationKey: string;

  before(async () => {
    orm = await openOrm(await createTestDatabase(), 2);
    await migrate(orm, { cipher: oldCipher });
    transactor = new MikroOrmTransactor(orm);

    // Written as the service writes them, under the old key.
    const endpoint = WebhookEndpoint.register({
      id: 'whe_reseal', ...scope, deployment: 'local', url: 'http://127.0.0.1:9/hook', enabledEvents: ['*'],
      customHeaders: { Authorization: 'Bearer receiver-token-1234' }, secret: 'whsec_resealsecret', now,
    });
    await transactor.run((tx) => new SqlWebhookEndpointRepository(oldCipher).insert(tx, endpoint));
    const store = new SqlIdempotencyStore(transactor, oldCipher);
    await store.begin(scope, 'POST /v1/webhooks', 'reseal-key', 'h1', now);
    await store.complete(scope, 'POST /v1/webhooks', 'reseal-key', { status: 201, body: { secret: 'whsec_answer' }, headers: { 'X-Kept': 'yes' } });
    sessionSecret = await installationSecret(transactor, 'session', oldCipher);
    pseudonymizationKey = await installationSecret(transactor, 'pseudonymization', oldCipher);
    const totp = new TotpSecretSealer(oldCipher);
    await rows(
      `insert into identity_users (id, name, email, phone, password_hash, totp_secret, tokens_valid_after, created_at) values ('usr_reseal', 'Ana', 'ana@example.com', '+5511999999999', 'x', ?, ?, ?)`,
      [totp.seal('JBSWY3DPEHPK3PXP', 'usr_reseal'), now, now],
    );
    await rows(
      `insert into identity_challenges (id, user_id, organization_id, token_hash, stage, purpose, pending_secret, failures, created_at, expires_at)
       values ('chl_reseal', 'usr_reseal', 'org_reseal', 'hash', 'enroll', 'login', ?, 0, ?, ?)`,
      [totp.seal('KRSXG5CTMVRXEZLU', 'usr_reseal'), now, now],
    );
    const insertPayment = (id: string, doc: unknown) =>
      rows(
        `insert into payments (id, organization_id, environment, status, amount, currency, method_type, capture_method, initiator, doc, created_at, updated_at)
         values (?, 'org_reseal', 'sandbox', 'requires_payment_method', 1000, 'BRL', 'card', 'automatic', 'customer', ?::jsonb, ?, ?)`,
        [id, JSON.stringify(doc), now, now],
      );
    await insertPayment('pay_checkout', { id: 'pay_checkout', note: 'kept', checkout: { secret: { sealed: checkoutSecret.sealed, sha256: checkoutSecret.sha256 } } });
    await insertPayment('pay_given', { id: 'pay_given', checkout: null, clientSecret: { sealed: givenSecret.sealed, sha256: givenSecret.sha256 } });
    await insertPayment('pay_plain', { id: 'pay_plain', checkout: null, clientSecret: null });
  });
  after(() => orm?.close(true));

  it('reseals each kind in batches, reports none left under the old key, and everything opens with the new key alone', async () => {
    const report = await resealSealedValues(transactor, rotating, 1);
    expect(report.resealed).to.deep.equal({
      webhook_endpoints: 1,
      idempotency_keys: 1,
      identity_secrets: 2,
      identity_users: 1,
      identity_challenges: 1,
      payments: 2,
    });
    expect(Object.values(report.remaining)).to.deep.equal([0, 0, 0, 0, 0, 0]);

    const endpoint = await transactor.read((tx) => new SqlWebhookEndpointRepository(newOnly).find(tx, scope, 'whe_reseal'));
    expect(endpoint!.state.secret).to.equal('whsec_resealsecret');
    expect(endpoint!.state.customHeaders).to.deep.equal({ Authorization: 'Bearer receiver-token-1234' });
    const replay = await new SqlIdempotencyStore(transactor, newOnly).begin(scope, 'POST /v1/webhooks', 'reseal-key', 'h1', now);
    expect(replay).to.deep.equal({ kind: 'replay', response: { status: 201, body: { secret: 'whsec_answer' }, headers: { 'X-Kept': 'yes' } } });
    expect(await installationSecret(transactor, 'session', newOnly)).to.equal(sessionSecret);
    expect(await installationSecret(transactor, 'pseudonymization', newOnly)).to.equal(pseudonymizationKey);
    const [user] = await rows<{ totp_secret: string }>(`select totp_secret from identity_users where id = 'usr_reseal'`);
    expect(new TotpSecretSealer(newOnly).open(user!.totp_secret, 'usr_reseal')).to.equal('JBSWY3DPEHPK3PXP');
    const [challenge] = await rows<{ pending_secret: string }>(`select pending_secret from identity_challenges where id = 'chl_reseal'`);
    expect(new TotpSecretSealer(newOnly).open(challenge!.pending_secret, 'usr_reseal')).to.equal('KRSXG5CTMVRXEZLU');

    const docs = Object.fromEntries(
      (await rows<{ id: string; doc: Record<string, any> }>(`select id, doc from payments order by id`)).map((row) => [row.id, row.doc]),
    );
    const checkout = new SealedCheckoutSecrets(newOnly);
    expect(checkout.reveal('pay_checkout', docs['pay_checkout']!.checkout.secret.sealed)).to.equal(checkoutSecret.secret);
    expect(checkout.reveal('pay_given', docs['pay_given']!.clientSecret.sealed)).to.equal(givenSecret.secret);
    // Only the sealed text changed: the rest of each document is as it was.
    expect(docs['pay_checkout']).to.deep.include({ note: 'kept' });
    expect(docs['pay_checkout']!.checkout.secret.sha256).to.equal(checkoutSecret.sha256);
    expect(docs['pay_plain']).to.deep.equal({ id: 'pay_plain', checkout: null, clientSecret: null });
  });

  it('a second run finds nothing to do', async () => {
    const report = await resealSealedValues(transactor, rotating);
    expect(Object.values(report.resealed).every((count) => count === 0), JSON.stringify(report.resealed)).to.equal(true);
  });
});
