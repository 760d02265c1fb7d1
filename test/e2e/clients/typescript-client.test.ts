/**
 * The typed TypeScript client (clients/typescript, issue 27 item 5): its committed OpenAPI document and generated
 * types are those of the running service (`make client` regenerates both), and it drives a payment through the
 * service end to end: create, read, capture, refund, list the payment's events, with typed fields.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { sharedTestService, type TestService } from '../../support/test-service';
import { eventually } from '../../support/eventually';
import { createApiClient, type ApiClient, type Event, type Payment, type PaymentView } from '../../../clients/typescript/src';

const CLIENT = path.resolve(__dirname, '../../../clients/typescript');
const REGENERATE = 'run `make client` and commit clients/typescript/openapi.json and clients/typescript/src/schema.ts';

function generateTypes(documentFile: string, output: string): Promise<void> {
  const cli = path.resolve(CLIENT, '../../node_modules/openapi-typescript/bin/cli.js');
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, documentFile, '--output', output], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`openapi-typescript failed: ${stderr}`))));
  });
}

describe('typed TypeScript client (clients/typescript)', function () {
  this.timeout(120_000);
  let service: TestService;

  before(async () => {
    service = await sharedTestService();
  });

  it('holds the OpenAPI document the service serves', async () => {
    const served = (await service.client().get('/v1/openapi.json')).body;
    const committed = JSON.parse(fs.readFileSync(path.join(CLIENT, 'openapi.json'), 'utf8'));
    expect(committed, `clients/typescript/openapi.json is out of date: ${REGENERATE}`).to.deep.equal(served);
  });

  it('holds the types openapi-typescript generates from that document', async () => {
    const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'client-types-'));
    try {
      const output = path.join(directory, 'schema.ts');
      await generateTypes(path.join(CLIENT, 'openapi.json'), output);
      const committed = fs.readFileSync(path.join(CLIENT, 'src/schema.ts'), 'utf8');
      expect(committed === fs.readFileSync(output, 'utf8'), `clients/typescript/src/schema.ts is out of date: ${REGENERATE}`).to.equal(true);
    } finally {
      fs.rmSync(directory, { recursive: true, force: true });
    }
  });

  describe('against the running service', () => {
    let api: ApiClient;

    before(async () => {
      const merchant = await service.merchant();
      api = createApiClient({ baseUrl: service.url, apiKey: merchant.sandboxKey });
      const account = await api.POST('/v1/connector-accounts', {
        body: { connectorSlug: 'sandbox', name: 'Typed client', credentials: { merchantId: 'm_typed_client', apiKey: 'sandbox-key' } },
      });
      expect(account.response.status, JSON.stringify(account.error)).to.equal(201);
    });

    it('creates, reads, captures and refunds a payment, and lists its events', async () => {
      const created = await api.POST('/v1/payments', {
        body: { amount: 2500, currency: 'BRL', card: { token: 'tok_sandbox_approved' }, captureMethod: 'manual' },
        headers: { 'Idempotency-Key': `typed-client-${Date.now()}` },
      });
      expect(created.response.status, JSON.stringify(created.error)).to.equal(201);
      const payment: Payment = created.data!;
      expect(payment.id).to.match(/^pay_/);
      expect(payment.status).to.equal('authorized');
      expect(payment.amount).to.equal(2500);
      const id = payment.id!;

      const read = await api.GET('/v1/payments/{id}', { params: { path: { id } } });
      const view: PaymentView = read.data!;
      expect(view.id).to.equal(id);
      expect(view.captureMethod).to.equal('manual');
      expect(view.allowedActions).to.include('capture');

      const captured = await api.POST('/v1/payments/{id}/capture', { params: { path: { id } }, body: { amount: 2500 } });
      expect(captured.response.status, JSON.stringify(captured.error)).to.equal(201);
      expect(captured.data!.status).to.equal('captured');
      expect(captured.data!.capturedAmount).to.equal(2500);

      const refunded = await api.POST('/v1/payments/{id}/refund', { params: { path: { id } }, body: { amount: 1000, reason: 'One item returned' } });
      expect(refunded.response.status, JSON.stringify(refunded.error)).to.equal(201);
      expect(refunded.data!.refundedAmount).to.equal(1000);
      expect(refunded.data!.refundStatus).to.equal('partial');

      // Events are written with each change and readable at once; polled, as the list is a read model.
      const events: Event[] = await eventually(async () => {
        const listed = await api.GET('/v1/events', { params: { query: { objectId: id, limit: 20 } } });
        const data = listed.data?.data ?? [];
        return data.some((event) => event.type === 'payment.partially_refunded') && data;
      }, 30_000);
      const types = events.map((event) => event.type);
      expect(types).to.include.members(['payment.authorized', 'payment.captured', 'payment.partially_refunded']);
      for (const event of events) {
        expect(event.id).to.match(/^evt_/);
        expect(event.environment).to.equal('sandbox');
        expect(Date.parse(event.createdAt)).to.not.be.NaN;
      }
    });

    it('answers a refusal as the contract\'s typed error body', async () => {
      const refused = await api.GET('/v1/payments/{id}', { params: { path: { id: 'pay_missing' } } });
      expect(refused.response.status).to.equal(404);
      expect(refused.error!.error.code).to.equal('not_found');
      expect(refused.error!.error.requestId).to.equal(refused.response.headers.get('request-id'));
    });
  });
});
