/**
 * The API reference's response schemas hold for what the service really answers (issue 27 item 4: "a valid
 * example for every response"): a sample of operations across every module is called on the running service and
 * each success answer is validated against the schema the OpenAPI document gives that operation, `required` lists
 * included. A handler that adds, renames or drops a documented field fails here, so the reference and the typed
 * client (clients/typescript) cannot drift from the answers.
 */
import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { expect } from 'chai';
import { ManualClock } from '../../../infrastructure/clock/system-clock';
import { ApiClient, type ApiResult } from '../../support/api-client';
import { sharedTestService, type Merchant, type TestService } from '../../support/test-service';
import { registerAndEnroll, registration, type Enrolled } from '../identity/identity-support';

describe('API reference: documented response schemas match real answers', function () {
  this.timeout(120_000);
  let service: TestService;
  let document: Record<string, any>;
  let merchant: Merchant;
  let owner: Enrolled;
  let session: ApiClient;
  const validators = new Map<string, { status: number; validate: ValidateFunction }>();
  const checked = new Set<string>();

  before(async () => {
    service = await sharedTestService();
    document = (await service.client().get('/v1/openapi.json')).body;
    const ajv = new Ajv({ allErrors: true, strict: false });
    addFormats(ajv);
    for (const methods of Object.values(document.paths as Record<string, Record<string, any>>)) {
      for (const operation of Object.values(methods)) {
        const [status, success] = Object.entries(operation.responses as Record<string, any>).find(([code]) => code.startsWith('2'))!;
        const schema = success.content?.['application/json']?.schema;
        if (schema) validators.set(operation.operationId, { status: Number(status), validate: ajv.compile(schema) });
      }
    }
    merchant = await service.merchant('Response schemas');
    // TOTP codes are made for the real time: the shared service runs on the system clock.
    owner = await registerAndEnroll(service.client(), new ManualClock(new Date()));
    session = service.client(owner.accessToken);
  });

  /** The answer is the operation's success status and validates against its documented schema; returns its body. */
  function expectDocumented(operationId: string, answer: ApiResult): any {
    const documented = validators.get(operationId);
    expect(documented, `${operationId} has a JSON success schema`).to.not.equal(undefined);
    expect(answer.status, `${operationId}: ${answer.text.slice(0, 500)}`).to.equal(documented!.status);
    const valid = documented!.validate(answer.body);
    expect(valid, `${operationId}: ${JSON.stringify(documented!.validate.errors)}\n${answer.text.slice(0, 1000)}`).to.equal(true);
    checked.add(operationId);
    return answer.body;
  }

  const requestExample = (operationId: string): unknown => {
    for (const methods of Object.values(document.paths as Record<string, Record<string, any>>)) {
      for (const operation of Object.values(methods)) {
        if (operation.operationId === operationId) return operation.requestBody.content['application/json'].example;
      }
    }
    throw new Error(`no operation ${operationId}`);
  };

  it('health and installation', async () => {
    const api = service.client();
    expectDocumented('getLiveness', await api.get('/health/live'));
    expectDocumented('getReadiness', await api.get('/health/ready'));
    expectDocumented('getInstallation', await api.get('/health'));
  });

  it('dashboard authentication and the account', async () => {
    const api = service.client();
    const registered = expectDocumented('register', await api.post('/v1/auth/register', registration()));
    expectDocumented('mfaStatus', await api.post('/v1/auth/mfa/status', { challengeToken: registered.challengeToken }));
    expectDocumented('forgotPassword', await api.post('/v1/auth/forgot-password', { email: owner.email }));
    expectDocumented('getMe', await session.get('/v1/auth/me'));
    expectDocumented('getMe', await merchant.sandbox.get('/v1/auth/me'));
    expectDocumented('listAccounts', await session.get('/v1/auth/accounts'));
    expectDocumented('createBrand', await session.post('/v1/auth/accounts', { name: 'Second brand', website: 'https://brand.example.com' }));
    expectDocumented('countRecoveryCodes', await session.get('/v1/auth/mfa/recovery-codes'));
  });

  it('API keys, security and platform billing', async () => {
    const created = expectDocumented('createApiKey', await session.post('/v1/api-keys', { name: 'Reference', environment: 'sandbox' }));
    expectDocumented('listApiKeys', await session.get('/v1/api-keys'));
    expectDocumented('revokeApiKey', await session.delete(`/v1/api-keys/${created.id}`));
    expectDocumented('getSecurityPolicy', await session.get('/v1/security/policy'));
    expectDocumented('listSecurityIncidents', await merchant.sandbox.get('/v1/security/incidents'));
    expectDocumented('getPlatformBillingCatalog', await session.get('/v1/platform-billing/catalog'));
    expectDocumented('getPlatformBillingAccess', await session.get('/v1/platform-billing/access'));
    expectDocumented('getPlatformBillingOverview', await session.get('/v1/platform-billing/overview'));
    expectDocumented('listPlatformInvoices', await session.get('/v1/platform-billing/invoices'));
  });

  it('flows, connector accounts, customers and payments', async () => {
    expectDocumented('getFlowBuilderMetadata', await merchant.sandbox.get('/v1/flows/builder-metadata'));
    const draft = await merchant.sandbox.post('/v1/flows', requestExample('createFlow'));
    expect(draft.status, draft.text).to.equal(201);
    expectDocumented('deleteFlow', await merchant.sandbox.delete(`/v1/flows/${draft.body.id}`));

    const account = await merchant.sandbox.post('/v1/connector-accounts', { connectorSlug: 'sandbox', name: 'Reference', credentials: { merchantId: 'm_reference', apiKey: 'sandbox-key' } });
    expect(account.status, account.text).to.equal(201);
    const payment = expectDocumented('createPayment', await merchant.sandbox.post('/v1/payments', requestExample('createPayment')));
    expectDocumented('getPayment', await merchant.sandbox.get(`/v1/payments/${payment.id}`));
    expectDocumented('capturePayment', await merchant.sandbox.post(`/v1/payments/${payment.id}/capture`, {}));
    const spare = await merchant.sandbox.post('/v1/connector-accounts', { connectorSlug: 'sandbox', name: 'Spare', credentials: { merchantId: 'm_spare', apiKey: 'sandbox-key' } });
    expectDocumented('deleteConnectorAccount', await merchant.sandbox.delete(`/v1/connector-accounts/${spare.body.id}`));

    const customer = await merchant.sandbox.post('/v1/customers', { name: 'Maria Silva', email: 'maria@example.com' });
    expect(customer.status, customer.text).to.equal(201);
    expectDocumented('listCustomers', await merchant.sandbox.get('/v1/customers'));
    const method = expectDocumented('savePaymentMethod', await merchant.sandbox.post(`/v1/customers/${customer.body.id}/payment-methods`, requestExample('savePaymentMethod')));
    expectDocumented('listPaymentMethods', await merchant.sandbox.get(`/v1/customers/${customer.body.id}/payment-methods`));
    expectDocumented('deletePaymentMethod', await merchant.sandbox.delete(`/v1/payment-methods/${method.id}`));
  });

  it('webhooks', async () => {
    expectDocumented('listWebhookEventTypes', await merchant.sandbox.get('/v1/webhooks/event-types'));
    const endpoint = expectDocumented('createWebhookEndpoint', await merchant.sandbox.post('/v1/webhooks', { url: 'https://hooks.example.com/reference', enabledEvents: ['payment.*'] }));
    expectDocumented('listWebhookEndpoints', await merchant.sandbox.get('/v1/webhooks'));
    expectDocumented('getWebhookSummary', await merchant.sandbox.get('/v1/webhooks/summary'));
    expectDocumented('revealWebhookSecret', await merchant.sandbox.post(`/v1/webhooks/${endpoint.id}/reveal-secret`));
    expectDocumented('listWebhookDeliveries', await merchant.sandbox.get(`/v1/webhooks/${endpoint.id}/deliveries`));
    expectDocumented('deleteWebhookEndpoint', await merchant.sandbox.delete(`/v1/webhooks/${endpoint.id}`));
  });

  it('ends the session (logout) and covered a sample of every module', async () => {
    expectDocumented('logout', await session.post('/v1/auth/logout'));
    expect(checked.size).to.be.greaterThanOrEqual(35);
  });
});

