import { expect } from 'chai';
import { startTestServiceWith, type Merchant, type TestService } from '../../support/test-service';
import { webhooksModule } from '../../../infrastructure/main/webhooks.module';
import { moduleList } from '../../../infrastructure/main/module';

/**
 * The event and delivery lists' date filters, through the REST edge: instants the date-time format admits but no
 * store holds (a leap second, year 0, year 10000 after the offset) are 422 naming the param, not a 500.
 */
describe('event and delivery lists: createdFrom / createdTo outside the storable instants', function () {
  this.timeout(60_000);
  let service: TestService;
  let merchant: Merchant;
  let endpointId: string;

  before(async () => {
    service = await startTestServiceWith(moduleList().with(webhooksModule()), { transport: 'in-process' });
    merchant = await service.merchant('List dates');
    const endpoint = await merchant.sandbox.post('/v1/webhooks', { url: 'https://hooks.example.com/list-dates', enabledEvents: ['payment.*'] });
    expect(endpoint.status, JSON.stringify(endpoint.body)).to.equal(201);
    endpointId = endpoint.body.id;
  });
  after(async () => {
    await service?.stop();
  });

  for (const value of ['2026-11-26T23:59:60Z', '0000-01-01T00:00:00Z', '9999-12-31T23:59:59-05:00']) {
    it(`${value} is 422 on /v1/events and on an endpoint's deliveries`, async () => {
      for (const base of ['/v1/events', `/v1/webhooks/${endpointId}/deliveries`]) {
        for (const param of ['createdFrom', 'createdTo']) {
          const r = await merchant.sandbox.get(`${base}?${param}=${encodeURIComponent(value)}`);
          expect(r.status, `${base} ${param}: ${JSON.stringify(r.body)}`).to.equal(422);
          expect(r.body.error).to.include({ code: 'validation_failed', param: `query.${param}` });
        }
      }
    });
  }

  it('an instant in range still filters', async () => {
    expect((await merchant.sandbox.get('/v1/events?createdFrom=0001-01-01T00:00:00Z&createdTo=9999-12-31T23:59:59.999Z')).status).to.equal(200);
    expect((await merchant.sandbox.get(`/v1/webhooks/${endpointId}/deliveries?createdFrom=2026-01-01T00:00:00Z`)).status).to.equal(200);
  });
});
