import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CONNECTORS_MODULE } from '../../../infrastructure/main/connectors.module';
import { FLOWS_MODULE } from '../../../infrastructure/main/flows.module';
import { CLI_COMMANDS } from '../../../infrastructure/main/cli';
import { AesGcmCredentialCipher } from '../../../infrastructure/crypto/aes-gcm-credential-cipher';
import { startTestServiceWith, type Merchant, type TestService } from '../../support/test-service';
import { moduleList } from '../../../infrastructure/main/module';
import { NO_FLOWS_MODULE } from '../../support/no-flows-module';
import type { ConnectorsServices } from '../../../infrastructure/main/connectors.module';

const SANDBOX_CREDENTIALS = { merchantId: 'merchant-0042-abcdef', apiKey: 'sk_partner_super_secret_value' };

const newDataDir = () => mkdtempSync(path.join(tmpdir(), 'connectors-e2e-'));

describe('connectors: catalog and accounts through the REST edge (PostgreSQL, sandbox adapters over gRPC)', () => {
  let service: TestService<ConnectorsServices>;
  let merchant: Merchant;

  before(async () => {
    service = await startTestServiceWith(moduleList().with(FLOWS_MODULE).with(CONNECTORS_MODULE), { config: { dataDir: newDataDir() }, transport: 'in-process' });
    merchant = await service.merchant();
  });
  after(() => service.stop());

  const createSandboxAccount = (m: Merchant = merchant, body: Record<string, unknown> = {}, env: 'sandbox' | 'live' = 'sandbox') =>
    m[env].post('/v1/connector-accounts', { connectorSlug: 'sandbox', name: 'Sandbox main', credentials: SANDBOX_CREDENTIALS, ...body });

  describe('GET /v1/connectors', () => {
    it('lists the configured adapters from their Describe, with JSON Schemas marking secret fields', async () => {
      const response = await merchant.sandbox.get('/v1/connectors');
      expect(response.status).to.equal(200);
      expect(response.body).to.include({ object: 'list', hasMore: false });
      const sandbox = response.body.data.find((c: { slug: string }) => c.slug === 'sandbox');
      expect(sandbox).to.include({ kind: 'acquirer', available: true, name: 'Sandbox Acquirer' });
      // Narrowed to what the core processes (domain/connector-account/supported-capabilities.ts; honest-capabilities.test.ts).
      expect(sandbox.capabilities).to.include.members(['card', 'split', 'refund']);
      expect(sandbox.credentialSchema.required).to.have.members(['merchantId', 'apiKey']);
      expect(sandbox.credentialSchema.properties.apiKey['x-secret']).to.equal(true);
      expect(sandbox.configSchema).to.have.property('properties');
      const antifraud = response.body.data.find((c: { slug: string }) => c.slug === 'sandbox-antifraud');
      expect(antifraud).to.include({ kind: 'antifraud', available: true });
    });

    it('includes coming-soon partners as available:false', async () => {
      const response = await merchant.sandbox.get('/v1/connectors');
      const unavailable = response.body.data.filter((c: { available: boolean }) => !c.available);
      expect(unavailable.length).to.be.greaterThan(0);
      expect(unavailable.map((c: { slug: string }) => c.slug)).to.include('cielo');
    });

    it('filters by kind and by capability', async () => {
      const antifraud = await merchant.sandbox.get('/v1/connectors?kind=antifraud');
      expect(antifraud.body.data.length).to.be.greaterThan(0);
      expect(antifraud.body.data.every((c: { kind: string }) => c.kind === 'antifraud')).to.equal(true);
      const split = await merchant.sandbox.get('/v1/connectors?capability=split');
      expect(split.body.data.map((c: { slug: string }) => c.slug)).to.include('sandbox').and.not.include('sandbox-antifraud');
      expect((await merchant.sandbox.get('/v1/connectors?kind=bank')).status).to.equal(422);
    });
  });

  describe('health', () => {
    it('GET /health lists the loaded connectors; /health/ready checks each adapter over gRPC health', async () => {
      const info = await service.client().get('/health');
      expect(info.status).to.equal(200);
      expect(info.body.connectors.map((c: { slug: string }) => c.slug)).to.include.members(['sandbox', 'sandbox-antifraud']);
      const ready = await service.client().get('/health/ready');
      expect(ready.body.checks).to.include({ 'connector:sandbox': 'up', 'connector:sandbox-antifraud': 'up' });
    });
  });

  describe('POST /v1/connector-accounts', () => {
    it('creates an account whose reads never carry credentials: only filled flags and masked previews of non-secret fields', async () => {
      const response = await createSandboxAccount(merchant, { costBasisPoints: 150 });
      expect(response.status).to.equal(201);
      const account = response.body;
      expect(account.id).to.match(/^ca_/);
      expect(account).to.include({ object: 'connector_account', connectorSlug: 'sandbox', kind: 'acquirer', environment: 'sandbox', enabled: true, costBasisPoints: 150 });
      expect(account.credentials.apiKey).to.deep.equal({ filled: true });
      expect(account.credentials.merchantId.filled).to.equal(true);
      expect(account.credentials.merchantId.preview).to.match(/^••••.{1,4}$/);
      expect(SANDBOX_CREDENTIALS.merchantId.endsWith(account.credentials.merchantId.preview.replace('••••', ''))).to.equal(true);
      expect(response.text).to.not.include(SANDBOX_CREDENTIALS.apiKey);
      expect(response.text).to.not.include(SANDBOX_CREDENTIALS.merchantId);
      expect(account.effectiveCapabilities).to.include.members(['card', 'pix', 'boleto']);
      expect(account.usedByFlows).to.deep.equal([]);
      expect(account.webhookUrl).to.match(new RegExp(`/v1/connector-webhooks/${account.id}/[A-Za-z0-9_-]{20,}$`));
      expect(account.health.status).to.equal('unknown');

      const read = await merchant.sandbox.get(`/v1/connector-accounts/${account.id}`);
      expect(read.status).to.equal(200);
      expect(read.text).to.not.include(SANDBOX_CREDENTIALS.apiKey);
    });

    it('stores credentials sealed with AES-256-GCM under a key id, never in clear', async () => {
      const created = await createSandboxAccount();
      const rows = await service.core.orm.em
        .fork({ useContext: false })
        .execute(`select * from connector_accounts where id = ?`, [created.body.id]);
      const stored = JSON.stringify(rows[0]);
      expect(stored).to.not.include(SANDBOX_CREDENTIALS.apiKey);
      expect(stored).to.not.include(SANDBOX_CREDENTIALS.merchantId);
      expect(rows[0].credentials_key_id).to.match(/^[0-9a-f]{16}$/);
      expect(rows[0].credentials_ciphertext).to.match(/^v1\./);
    });

    it("validates credentials and config against the connector's schemas", async () => {
      const missing = await merchant.sandbox.post('/v1/connector-accounts', { connectorSlug: 'sandbox', name: 'x', credentials: { merchantId: 'm' } });
      expect(missing.status).to.equal(422);
      expect(missing.body.error).to.include({ code: 'validation_failed', param: 'body.credentials.apiKey' });

      const unknownField = await createSandboxAccount(merchant, { credentials: { ...SANDBOX_CREDENTIALS, password: 'x' } });
      expect(unknownField.status).to.equal(422);
      expect(unknownField.body.error.param).to.equal('body.credentials.password');

      const badConfig = await createSandboxAccount(merchant, { config: { captureDeadlineDays: 99 } });
      expect(badConfig.status).to.equal(422);
      expect(badConfig.body.error.param).to.equal('body.config.captureDeadlineDays');

      const tooLong = await createSandboxAccount(merchant, { credentials: { ...SANDBOX_CREDENTIALS, apiKey: 'x'.repeat(8193) } });
      expect(tooLong.status).to.equal(422);

      const unknownBodyField = await createSandboxAccount(merchant, { secretSauce: true });
      expect(unknownBodyField.status).to.equal(422);
      expect(unknownBodyField.body.error.param).to.equal('body.secretSauce');
    });

    it('refuses unknown connectors and coming-soon ones', async () => {
      const unknown = await merchant.sandbox.post('/v1/connector-accounts', { connectorSlug: 'nope', name: 'x', credentials: {} });
      expect(unknown.status).to.equal(422);
      expect(unknown.body.error.param).to.equal('body.connectorSlug');
      const soon = await merchant.sandbox.post('/v1/connector-accounts', { connectorSlug: 'cielo', name: 'x', credentials: {} });
      expect(soon.status).to.equal(422);
      expect(soon.body.error.code).to.equal('connector_not_available');
    });

    it('with verify, tests first and saves nothing when the partner refuses', async () => {
      const other = await service.merchant('Verify first');
      const refused = await createSandboxAccount(other, { verify: true, credentials: { merchantId: 'm1', apiKey: 'invalid' } });
      expect(refused.status).to.equal(422);
      expect(refused.body.error.code).to.equal('connector_verification_failed');
      const unreachable = await createSandboxAccount(other, { verify: true, credentials: { merchantId: 'm1', apiKey: 'unreachable' } });
      expect(unreachable.status).to.equal(422);
      expect((await other.sandbox.get('/v1/connector-accounts')).body.data).to.deep.equal([]);

      const verified = await createSandboxAccount(other, { verify: true });
      expect(verified.status).to.equal(201);
      expect(verified.body.health.lastVerification.result).to.equal('valid');
      expect(verified.body.health.status).to.equal('healthy');
    });
  });

  describe('environments', () => {
    it("answers 404 for another environment's account on every route", async () => {
      const created = await createSandboxAccount();
      const id = created.body.id;
      expect((await merchant.live.get(`/v1/connector-accounts/${id}`)).status).to.equal(404);
      expect((await merchant.live.patch(`/v1/connector-accounts/${id}`, { name: 'x' })).status).to.equal(404);
      expect((await merchant.live.post(`/v1/connector-accounts/${id}/verify`)).status).to.equal(404);
      expect((await merchant.live.delete(`/v1/connector-accounts/${id}`)).status).to.equal(404);
      expect((await merchant.live.get('/v1/connector-accounts')).body.data.map((a: { id: string }) => a.id)).to.not.include(id);
      const stranger = await service.merchant('Stranger');
      expect((await stranger.sandbox.get(`/v1/connector-accounts/${id}`)).status).to.equal(404);
    });

    it('accepts a live sandbox account on a local deployment', async () => {
      const created = await createSandboxAccount(merchant, {}, 'live');
      expect(created.status).to.equal(201);
      expect(created.body.environment).to.equal('live');
    });

    it('refuses a live sandbox account on a production deployment (sandbox environment still allowed)', async () => {
      const production = await startTestServiceWith(moduleList().with(NO_FLOWS_MODULE).with(CONNECTORS_MODULE), {
        config: { deployment: 'production', dataDir: newDataDir(), credentialsKey: randomBytes(32).toString('base64') },
        transport: 'in-process',
      });
      try {
        const m = await production.merchant();
        const live = await createSandboxAccount(m, {}, 'live');
        expect(live.status).to.equal(422);
        expect(live.body.error.code).to.equal('connector_not_allowed_in_environment');
        expect((await createSandboxAccount(m, {}, 'sandbox')).status).to.equal(201);
      } finally {
        await production.stop();
      }
    });
  });

  describe('GET /v1/connector-accounts', () => {
    it('filters on effectiveCapabilities', async () => {
      const m = await service.merchant('Filters');
      const acquirer = await createSandboxAccount(m);
      const antifraud = await m.sandbox.post('/v1/connector-accounts', {
        connectorSlug: 'sandbox-antifraud',
        name: 'Fraud',
        credentials: { merchantId: 'af', apiKey: 'k' },
      });
      expect(antifraud.status).to.equal(201);
      expect(antifraud.body.kind).to.equal('antifraud');
      const all = await m.sandbox.get('/v1/connector-accounts');
      expect(all.body.data.map((a: { id: string }) => a.id)).to.deep.equal([acquirer.body.id, antifraud.body.id]);
      const split = await m.sandbox.get('/v1/connector-accounts?capability=split');
      expect(split.body.data.map((a: { id: string }) => a.id)).to.deep.equal([acquirer.body.id]);
      const fraud = await m.sandbox.get('/v1/connector-accounts?capability=antifraud');
      expect(fraud.body.data.map((a: { id: string }) => a.id)).to.deep.equal([antifraud.body.id]);
    });
  });

  describe('PATCH /v1/connector-accounts/{id}', () => {
    it('keeps omitted and empty credentials, merges config (null resets a key), updates cost and enabled', async () => {
      const created = await createSandboxAccount(merchant, { config: { softDescriptor: 'SHOP', antifraudEnabled: true }, costBasisPoints: 100 });
      const id = created.body.id;
      const patched = await merchant.sandbox.patch(`/v1/connector-accounts/${id}`, {
        name: 'Renamed',
        credentials: { apiKey: '' },
        config: { softDescriptor: null, captureDeadlineDays: 5 },
        costBasisPoints: null,
        enabled: false,
      });
      expect(patched.status).to.equal(200);
      expect(patched.body).to.include({ name: 'Renamed', costBasisPoints: null, enabled: false });
      expect(patched.body.config).to.deep.equal({ antifraudEnabled: true, captureDeadlineDays: 5 });
      expect(patched.body.credentials.apiKey).to.deep.equal({ filled: true });

      const directory = service.services.connectorAccounts;
      const opened = await directory.open({ organizationId: merchant.organizationId, environment: 'sandbox' }, id);
      expect(opened!.credentials.values).to.deep.equal(SANDBOX_CREDENTIALS);
    });

    it('validates the merged result against the schemas', async () => {
      const created = await createSandboxAccount();
      const bad = await merchant.sandbox.patch(`/v1/connector-accounts/${created.body.id}`, { config: { antifraudEnabled: 'yes' } });
      expect(bad.status).to.equal(422);
      expect(bad.body.error.param).to.equal('body.config.antifraudEnabled');
      const unknown = await merchant.sandbox.patch(`/v1/connector-accounts/${created.body.id}`, { credentials: { token: 'x' } });
      expect(unknown.status).to.equal(422);
    });

    it('a changed credential clears the health history; other changes keep it', async () => {
      const created = await createSandboxAccount(merchant, { credentials: { merchantId: 'm-health', apiKey: 'invalid' } });
      const id = created.body.id;
      const verification = await merchant.sandbox.post(`/v1/connector-accounts/${id}/verify`);
      expect(verification.status).to.equal(201);
      expect(verification.body).to.include({ object: 'connector_verification', connectorAccountId: id, result: 'invalid' });
      expect(verification.body.health.status).to.equal('failing');

      const renamed = await merchant.sandbox.patch(`/v1/connector-accounts/${id}`, { name: 'Still failing', credentials: { apiKey: 'invalid' } });
      expect(renamed.body.health.lastVerification.result, 'same value is no change').to.equal('invalid');

      const fixed = await merchant.sandbox.patch(`/v1/connector-accounts/${id}`, { credentials: { apiKey: 'a-good-key' } });
      expect(fixed.body.health).to.include({ status: 'unknown', lastVerification: null });
      const again = await merchant.sandbox.post(`/v1/connector-accounts/${id}/verify`);
      expect(again.body.result).to.equal('valid');
      expect((await merchant.sandbox.get(`/v1/connector-accounts/${id}`)).body.health.lastVerification.result).to.equal('valid');
    });
  });

  describe('DELETE /v1/connector-accounts/{id}', () => {
    it('is refused with 409 while a published flow cites the account, which GET shows in usedByFlows', async () => {
      const created = await createSandboxAccount();
      const id = created.body.id as string;
      expect(created.body.usedByFlows).to.deep.equal([]);
      const graph = {
        nodes: [
          { id: 'trigger', type: 'trigger', position: { x: 0, y: 0 } },
          { id: 'acquirer', type: 'acquirer', position: { x: 0, y: 100 }, data: { connectorAccountId: id } },
          { id: 'approve', type: 'approve', position: { x: 0, y: 200 } },
        ],
        edges: [{ source: 'trigger', target: 'acquirer' }, { source: 'acquirer', target: 'approve', sourcePort: 'approved' }],
      };
      const flow = await merchant.sandbox.post('/v1/flows', { name: 'Checkout routing', graph });
      expect((await merchant.sandbox.post(`/v1/flows/${flow.body.id}/publish`, {})).status).to.equal(200);
      expect((await merchant.sandbox.get(`/v1/connector-accounts/${id}`)).body.usedByFlows).to.deep.equal([{ id: flow.body.id, name: 'Checkout routing' }]);
      const refused = await merchant.sandbox.delete(`/v1/connector-accounts/${id}`);
      expect(refused.status).to.equal(409);
      expect(refused.body.error.code).to.equal('connector_account_in_use');
      expect(refused.body.error.message).to.contain(flow.body.id);
      expect((await merchant.sandbox.get(`/v1/connector-accounts/${id}`)).status).to.equal(200);
      expect((await merchant.sandbox.post(`/v1/flows/${flow.body.id}/unpublish`, {})).status).to.equal(200);
      expect((await merchant.sandbox.delete(`/v1/connector-accounts/${id}`)).status).to.equal(200);
    });

    it('removes the account from reads', async () => {
      const created = await createSandboxAccount();
      const deleted = await merchant.sandbox.delete(`/v1/connector-accounts/${created.body.id}`);
      expect(deleted.status).to.equal(200);
      expect(deleted.body).to.deep.equal({ object: 'connector_account', id: created.body.id, deleted: true });
      expect((await merchant.sandbox.get(`/v1/connector-accounts/${created.body.id}`)).status).to.equal(404);
      expect((await merchant.sandbox.delete(`/v1/connector-accounts/${created.body.id}`)).status).to.equal(404);
    });
  });

  describe('POST /v1/connectors/{slug}/verify', () => {
    it('answers valid, invalid or unreachable without saving anything', async () => {
      const m = await service.merchant('Verifier');
      const verify = (credentials: Record<string, string>) => m.sandbox.post('/v1/connectors/sandbox/verify', { credentials });
      const valid = await verify(SANDBOX_CREDENTIALS);
      expect(valid.status).to.equal(201);
      expect(valid.body).to.include({ object: 'connector_verification', connectorSlug: 'sandbox', result: 'valid', connectorAccountId: null });
      expect((await verify({ merchantId: 'm', apiKey: 'invalid' })).body.result).to.equal('invalid');
      expect((await verify({ merchantId: 'm', apiKey: 'unreachable' })).body.result).to.equal('unreachable');
      const incomplete = await verify({ merchantId: 'm' });
      expect(incomplete.status).to.equal(201);
      expect(incomplete.body.result).to.equal('invalid');
      expect((await m.sandbox.get('/v1/connector-accounts')).body.data).to.deep.equal([]);
      expect((await m.sandbox.post('/v1/connectors/nope/verify', { credentials: {} })).status).to.equal(404);
      const soon = await m.sandbox.post('/v1/connectors/cielo/verify', { credentials: {} });
      expect(soon.status).to.equal(422);
      expect(soon.body.error.code).to.equal('connector_not_available');
      const antifraud = await m.sandbox.post('/v1/connectors/sandbox-antifraud/verify', { credentials: { merchantId: 'm', apiKey: 'unreachable' } });
      expect(antifraud.body).to.include({ connectorSlug: 'sandbox-antifraud', result: 'unreachable' });
    });

    it('allows 20 tests per minute per organization, then 429 with Retry-After', async () => {
      const m = await service.merchant('Rate limited');
      const statuses: number[] = [];
      for (let i = 0; i < 20; i++) statuses.push((await m.sandbox.post('/v1/connectors/sandbox/verify', { credentials: SANDBOX_CREDENTIALS })).status);
      expect(statuses.every((s) => s === 201)).to.equal(true);
      const limited = await m.live.post('/v1/connectors/sandbox/verify', { credentials: SANDBOX_CREDENTIALS });
      expect(limited.status, 'the limit is per organization, whatever the environment').to.equal(429);
      expect(limited.headers.get('retry-after')).to.match(/^\d+$/);
      const neighbour = await service.merchant('Neighbour');
      expect((await neighbour.sandbox.post('/v1/connectors/sandbox/verify', { credentials: SANDBOX_CREDENTIALS })).status).to.equal(201);
    });

    it('a create with verify counts as a test (it saves nothing when refused); a create without verify does not', async () => {
      const m = await service.merchant('Create and verify');
      const create = (apiKey: string, verify: boolean) =>
        m.sandbox.post('/v1/connector-accounts', { connectorSlug: 'sandbox', name: `Try ${apiKey}`, credentials: { merchantId: 'm', apiKey }, verify });
      for (let i = 0; i < 20; i++) expect((await create('invalid', true)).status).to.equal(422);
      const limited = await create('invalid', true);
      expect(limited.status).to.equal(429);
      expect(limited.headers.get('retry-after')).to.match(/^\d+$/);
      expect((await m.sandbox.post('/v1/connectors/sandbox/verify', { credentials: SANDBOX_CREDENTIALS })).status, 'one budget for both').to.equal(429);
      expect((await create('sk_test', false)).status).to.equal(201);
      expect((await m.sandbox.get('/v1/connector-accounts')).body.data).to.have.length(1);
    });

    it("a stored account's verify counts as a test too: the same 20 per minute per organization", async () => {
      const m = await service.merchant('Stored account verify');
      const account = (await createSandboxAccount(m)).body;
      const verifyStored = () => m.sandbox.post(`/v1/connector-accounts/${account.id}/verify`, {});
      for (let i = 0; i < 20; i++) expect((await verifyStored()).status).to.equal(201);
      const limited = await verifyStored();
      expect(limited.status).to.equal(429);
      expect(limited.body.error.code).to.equal('rate_limited');
      expect(limited.headers.get('retry-after')).to.match(/^\d+$/);
      expect((await m.sandbox.post('/v1/connectors/sandbox/verify', { credentials: SANDBOX_CREDENTIALS })).status, 'one budget for all').to.equal(429);
    });
  });

  describe('ConnectorAccountDirectory (service connectorAccounts)', () => {
    it('lists enabled accounts with decrypted credentials for routing and feeds recorded call outcomes into health', async () => {
      const m = await service.merchant('Routing');
      const scope = { organizationId: m.organizationId, environment: 'sandbox' as const };
      const enabled = await createSandboxAccount(m, { costBasisPoints: 90 });
      await createSandboxAccount(m, { name: 'Off', enabled: false });
      const directory = service.services.connectorAccounts;

      const routable = await directory.listEnabledWithCredentials(scope, { kind: 'acquirer', capability: 'card' });
      expect(routable.map((r) => r.account.id)).to.deep.equal([enabled.body.id]);
      expect(routable[0]!.credentials.values).to.deep.equal(SANDBOX_CREDENTIALS);
      expect(routable[0]!.account).to.include({ connectorSlug: 'sandbox', costBasisPoints: 90, enabled: true });
      expect((await directory.list(scope)).length).to.equal(2);
      expect(await directory.open({ ...scope, environment: 'live' }, enabled.body.id)).to.equal(null);

      const gateway = directory.acquirerGateway('sandbox');
      const result = await gateway.authorize({
        credentials: routable[0]!.credentials,
        idempotencyKey: 'att_directory_1',
        paymentId: 'pay_directory',
        source: { type: 'card', token: 'tok_sandbox_approved' },
        amount: 1000,
        currency: 'BRL',
        capture: true,
      });
      expect(result.status).to.equal('approved');

      await service.core.transactor.run(async (tx) => {
        await directory.recordCallOutcome(tx, scope, enabled.body.id, { operation: 'authorize', outcome: 'approved', latencyMs: 12 });
        await directory.recordCallOutcome(tx, scope, enabled.body.id, { operation: 'authorize', outcome: 'timeout', latencyMs: 5000 });
      });
      const health = (await m.sandbox.get(`/v1/connector-accounts/${enabled.body.id}`)).body.health;
      expect(health.status).to.equal('degraded');
      expect(health.recentCalls).to.include({ total: 2, approved: 1, timeouts: 1 });

      const webhookUrl: string = enabled.body.webhookUrl;
      const token = webhookUrl.split('/').pop()!;
      const found = await directory.findByWebhookToken(enabled.body.id, token);
      expect(found?.scope).to.deep.equal(scope);
      expect(await directory.findByWebhookToken(enabled.body.id, `${token}x`)).to.equal(null);
    });
  });

  describe('key rotation (CLI credentials reseal)', () => {
    it('re-seals every account with the new key put first in CREDENTIALS_KEY; reads keep working', async () => {
      const oldKey = randomBytes(32).toString('base64');
      const newKey = randomBytes(32).toString('base64');
      const rotating = await startTestServiceWith(moduleList().with(NO_FLOWS_MODULE).with(CONNECTORS_MODULE), {
        config: { dataDir: newDataDir(), credentialsKey: oldKey },
        transport: 'in-process',
      });
      try {
        const m = await rotating.merchant();
        const created = await createSandboxAccount(m);
        expect(created.status).to.equal(201);
        const rotatedCore = { ...rotating.core, config: { ...rotating.core.config, credentialsKey: `${newKey},${oldKey}` } };
        const report = JSON.parse(await CLI_COMMANDS['credentials reseal']!(rotatedCore, {}));
        const newKeyId = AesGcmCredentialCipher.keyIdOf(Buffer.from(newKey, 'base64'));
        expect(report).to.deep.include({ currentKeyId: newKeyId, connectorAccountsByKeyId: { [newKeyId]: 1 } });
        expect(report.resealed).to.include({ connector_accounts: 1 });
        expect(Object.values(report.remaining).every((left) => left === 0), JSON.stringify(report.remaining)).to.equal(true);
      } finally {
        await rotating.stop();
      }
    });
  });
});
