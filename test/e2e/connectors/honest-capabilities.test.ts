import { expect } from 'chai';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SUPPORTED_CAPABILITIES } from '../../../domain/connector-account/supported-capabilities';
import { SANDBOX_CAPABILITIES } from '../../../infrastructure/connectors/sandbox/scenarios';
import { startTestService, type Merchant } from '../../support/test-service';

const SUPPORTED: readonly string[] = SUPPORTED_CAPABILITIES;
/** What the sandbox adapter declares that the core does not process yet (empty once every one has landed). */
const NOT_YET_PROCESSED = SANDBOX_CAPABILITIES.filter((capability) => !SUPPORTED.includes(capability));

/**
 * Through REST, over the sandbox adapters: nothing outside SUPPORTED_CAPABILITIES is shown. That the narrowing
 * drops a declared capability the core does not list is tested on ProcessableConnectorCatalog itself
 * (test/unit/application/connector-account/processable-connector-catalog.test.ts): by now the sandbox declares
 * nothing the core does not process.
 */
describe('honest capabilities: the catalog, /health and effectiveCapabilities list only what the core processes', () => {
  let service: Awaited<ReturnType<typeof startTestService>>;
  let merchant: Merchant;

  before(async () => {
    service = await startTestService({
      config: { dataDir: mkdtempSync(path.join(tmpdir(), 'capabilities-e2e-')) },
      transport: 'in-process',
    });
    merchant = await service.merchant();
  });
  after(() => service.stop());

  it('GET /v1/connectors shows the sandbox acquirer with the supported capabilities only, and coming-soon entries too', async () => {
    const response = await merchant.sandbox.get('/v1/connectors');
    expect(response.status).to.equal(200);
    const sandbox = response.body.data.find((c: { slug: string }) => c.slug === 'sandbox');
    expect(sandbox.capabilities).to.deep.equal(SANDBOX_CAPABILITIES.filter((c) => SUPPORTED.includes(c)));
    expect(sandbox.capabilities).to.include('card');
    for (const entry of response.body.data as Array<{ slug: string; capabilities: string[] }>) {
      expect(entry.capabilities, entry.slug).to.satisfy((list: string[]) => list.every((c) => SUPPORTED.includes(c)));
    }
  });

  it('filtering the catalog by a capability not processed yet finds nothing; by card finds the sandbox', async () => {
    for (const capability of NOT_YET_PROCESSED) {
      const response = await merchant.sandbox.get(`/v1/connectors?capability=${capability}`);
      expect(response.status).to.equal(200);
      expect(response.body.data, capability).to.deep.equal([]);
    }
    const card = await merchant.sandbox.get('/v1/connectors?capability=card');
    expect(card.body.data.map((c: { slug: string }) => c.slug)).to.include('sandbox');
  });

  it('GET /health lists the loaded connectors with the supported capabilities only', async () => {
    const info = await service.client().get('/health');
    const sandbox = info.body.connectors.find((c: { slug: string }) => c.slug === 'sandbox');
    expect(sandbox.capabilities).to.include('card');
    expect(sandbox.capabilities.filter((c: string) => NOT_YET_PROCESSED.includes(c as never))).to.deep.equal([]);
    expect(sandbox.capabilities).to.satisfy((list: string[]) => list.every((c) => SUPPORTED.includes(c)));
    const antifraud = info.body.connectors.find((c: { slug: string }) => c.slug === 'sandbox-antifraud');
    expect(antifraud.capabilities).to.include('antifraud');
  });

  it("an account's effectiveCapabilities and the accounts' capability filter agree with the catalog", async () => {
    const created = await merchant.sandbox.post('/v1/connector-accounts', {
      connectorSlug: 'sandbox',
      name: 'Sandbox main',
      credentials: { merchantId: 'merchant-0042', apiKey: 'sk_partner_value' },
    });
    expect(created.status).to.equal(201);
    expect(created.body.effectiveCapabilities).to.include.members(['card', 'refund']);
    expect(created.body.effectiveCapabilities).to.satisfy((list: string[]) => list.every((c) => SUPPORTED.includes(c)));
    const read = await merchant.sandbox.get(`/v1/connector-accounts/${created.body.id}`);
    expect(read.body.effectiveCapabilities).to.deep.equal(created.body.effectiveCapabilities);
    // Every capability the core processes and the sandbox declares is offered, and found by the filter.
    const processed = SANDBOX_CAPABILITIES.filter((c) => SUPPORTED.includes(c));
    expect(created.body.effectiveCapabilities).to.have.members(processed);
    for (const capability of processed) {
      const found = await merchant.sandbox.get(`/v1/connector-accounts?capability=${capability}`);
      expect(found.body.data.map((a: { id: string }) => a.id), capability).to.deep.equal([created.body.id]);
    }
    for (const capability of NOT_YET_PROCESSED) {
      expect((await merchant.sandbox.get(`/v1/connector-accounts?capability=${capability}`)).body.data, capability).to.deep.equal([]);
    }
    expect((await merchant.sandbox.get('/v1/connector-accounts?capability=card')).body.data.map((a: { id: string }) => a.id)).to.deep.equal([created.body.id]);
  });
});
