import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { WebhookEndpoint } from '../../../domain/webhook/webhook-endpoint';
import { AesGcmCredentialCipher } from '../../../infrastructure/crypto/aes-gcm-credential-cipher';
import { installationSecret } from '../../../infrastructure/persistence/identity-secrets';
import { MikroOrmTransactor } from '../../../infrastructure/persistence/mikro-orm-transactor';
import { migrate, openOrm, type Orm } from '../../../infrastructure/persistence/orm';
import { SqlIdempotencyStore } from '../../../infrastructure/persistence/sql-idempotency-store';
import { SqlWebhookEndpointRepository } from '../../../infrastructure/persistence/webhook-endpoint.repository';
import { createTestDatabase } from '../../support/test-infrastructure';

const MIGRATION = 'Migration20261128000100SealSecretsAtRest';

/**
 * Rows written in clear before sealing began (issue 22, item 3) are sealed by the migration: an endpoint's signing
 * secret and extra header values, the Idempotency-Key answers kept for replay, and the installation secret that
 * signs dashboard tokens; all still read back in clear.
 */
describe(`${MIGRATION}: seals secrets stored in clear (PostgreSQL)`, () => {
  let orm: Orm;
  const cipher = new AesGcmCredentialCipher([randomBytes(32)]);
  const scope = { organizationId: 'org_legacy', environment: 'sandbox' as const };
  const now = new Date(Date.UTC(2026, 10, 26, 12));
  const rows = <T>(sql: string, params: unknown[] = []) => orm.em.fork({ useContext: false }).execute<T[]>(sql, params);

  before(async () => {
    orm = await openOrm(await createTestDatabase(), 2);
    const earlier = (await orm.getMigrator().getPendingMigrations()).map((m) => m.name).filter((name) => name < MIGRATION);
    await orm.getMigrator().up({ migrations: earlier });
  });
  after(() => orm?.close(true));

  it('seals legacy rows, refuses to run without the key, and leaves them readable through the repository and the store', async () => {
    const legacy = WebhookEndpoint.register({
      id: 'whe_legacy', ...scope, deployment: 'local', url: 'http://127.0.0.1:9/legacy', enabledEvents: ['*'],
      customHeaders: { Authorization: 'Bearer legacy-credential-1234', 'X-Looks': 'sealed:not:really' }, secret: 'whsec_legacysecret', now,
    });
    // The repository without a cipher writes what rows held before sealing began.
    await new MikroOrmTransactor(orm).run((tx) => new SqlWebhookEndpointRepository().insert(tx, legacy));
    const answer = { id: 'whe_legacy', secret: 'whsec_legacysecret' };
    await rows(
      `insert into idempotency_keys (organization_id, environment, route, key, request_hash, state, response_status, response_body, response_headers,
         created_at, locked_until, expires_at) values (?, ?, 'POST /v1/webhooks', 'legacy-key', 'h1', 'completed', 201, ?::jsonb, ?::jsonb, ?, ?, ?)`,
      [scope.organizationId, scope.environment, JSON.stringify(answer), JSON.stringify({ 'X-Kept': 'yes' }), now, now, new Date(now.getTime() + 86_400_000)],
    );

    await rows(`insert into identity_secrets (name, value) values ('session', 'legacy-signing-secret')`);

    await expect(migrate(orm)).to.be.rejectedWith(/needs the credentials key/);
    expect(await migrate(orm, { cipher })).to.include(MIGRATION);

    const [endpoint] = await rows<{ secret: string; custom_headers: Record<string, string> }>(`select secret, custom_headers from webhook_endpoints`);
    expect(endpoint!.secret).to.match(/^sealed:/);
    expect(Object.values(endpoint!.custom_headers).every((value) => value.startsWith('sealed:'))).to.equal(true);
    const [session] = await rows<{ value: string }>(`select value from identity_secrets where name = 'session'`);
    expect(session!.value).to.match(/^sealed:/).and.not.contain('legacy-signing-secret');
    expect(await installationSecret(new MikroOrmTransactor(orm), 'session', cipher)).to.equal('legacy-signing-secret');
    const [key] = await rows<{ stored: string }>(`select response_body::text || coalesce(response_headers::text, '') as stored from idempotency_keys`);
    expect(key!.stored).to.match(/^"sealed:/);
    for (const text of [JSON.stringify(endpoint), key!.stored]) {
      for (const clear of ['legacysecret', 'legacy-credential', 'not:really', 'X-Kept']) expect(text).not.to.contain(clear);
    }

    const read = await new MikroOrmTransactor(orm).read((tx) => new SqlWebhookEndpointRepository(cipher).find(tx, scope, 'whe_legacy'));
    expect(read!.state.secret).to.equal('whsec_legacysecret');
    expect(read!.state.customHeaders).to.deep.equal({ Authorization: 'Bearer legacy-credential-1234', 'X-Looks': 'sealed:not:really' });
    const replay = await new SqlIdempotencyStore(new MikroOrmTransactor(orm), cipher).begin(scope, 'POST /v1/webhooks', 'legacy-key', 'h1', now);
    expect(replay).to.deep.equal({ kind: 'replay', response: { status: 201, body: answer, headers: { 'X-Kept': 'yes' } } });
  });

  it('a new installation secret (dashboard token signing) is stored sealed and reads back the same', async () => {
    const transactor = new MikroOrmTransactor(orm);
    const first = await installationSecret(transactor, 'fresh', cipher);
    expect(await installationSecret(transactor, 'fresh', cipher)).to.equal(first);
    const [stored] = await rows<{ value: string }>(`select value from identity_secrets where name = 'fresh'`);
    expect(stored!.value).to.match(/^sealed:/).and.not.contain(first);
  });

  it('an answer sealed for one key does not open under another (the row it was copied to is refused, not replayed)', async () => {
    await rows(
      `insert into idempotency_keys (organization_id, environment, route, key, request_hash, state, response_status, response_body, created_at, locked_until, expires_at)
       select organization_id, environment, route, 'copied-key', request_hash, state, response_status, response_body, created_at, locked_until, expires_at
         from idempotency_keys where key = 'legacy-key'`,
    );
    await expect(new SqlIdempotencyStore(new MikroOrmTransactor(orm), cipher).begin(scope, 'POST /v1/webhooks', 'copied-key', 'h1', now)).to.be.rejected;
  });
});
