/**
 * The signature scheme is Stripe's, so Stripe's own library verifies real deliveries: what a receiver gets on the
 * wire (raw body and Service-Signature header) passes `Stripe.webhooks.constructEvent` with the endpoint secret.
 * Differences from our verifier that the docs state (webhook-verifier/README.md) are pinned here too.
 */
import { expect } from 'chai';
import Stripe from 'stripe';
import { startTestServiceWith, type Merchant, type TestService } from '../../support/test-service';
import { WebhookReceiver, type ReceivedRequest } from '../../support/webhook-receiver';
import { webhooksModule } from '../../../infrastructure/main/webhooks.module';
import { verifyWebhook, WebhookVerificationError } from '../../../webhook-verifier/src';
import { moduleList } from '../../../infrastructure/main/module';

const { StripeSignatureVerificationError } = Stripe.errors;

describe('Stripe\'s library verifies webhook deliveries (PostgreSQL + JetStream)', function () {
  this.timeout(60_000);
  let service: TestService;
  let merchant: Merchant;
  let receiver: WebhookReceiver;
  let endpointId: string;
  let secret: string;

  const signatureOf = (request: ReceivedRequest) => request.headers['service-signature'] as string;
  const timestampOf = (request: ReceivedRequest) => Number(/(?:^|,)t=(\d+)/.exec(signatureOf(request))![1]);

  /** Sends a webhook_endpoint.test delivery through the real sender and returns the request the receiver got. */
  async function testDelivery(): Promise<ReceivedRequest> {
    const sent = await merchant.sandbox.post(`/v1/webhooks/${endpointId}/test`);
    expect(sent.status, JSON.stringify(sent.body)).to.equal(201);
    expect(sent.body.status).to.equal('succeeded');
    const eventId = sent.body.eventId as string;
    return receiver.forPath('/stripe').find((r) => r.headers['service-event-id'] === eventId)!;
  }

  before(async () => {
    receiver = await new WebhookReceiver().start();
    service = await startTestServiceWith(moduleList().with(webhooksModule({ pollIntervalMs: 100 })), {
      config: { deployment: 'local', webhookTimeoutMs: 5_000 },
    });
    merchant = await service.merchant();
    const created = await merchant.sandbox.post('/v1/webhooks', { url: receiver.url('/stripe'), enabledEvents: ['payment.captured'] });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    endpointId = created.body.id;
    secret = created.body.secret;
  });
  after(async () => {
    await service?.stop();
    await receiver?.stop();
  });

  it('constructEvent accepts a delivery as received, given the Service-Signature header and the whsec_ secret', async () => {
    const got = await testDelivery();
    const event = Stripe.webhooks.constructEvent(got.rawBody, signatureOf(got), secret);
    expect(event.id).to.equal(got.headers['service-event-id']);
    expect(event.type).to.equal('webhook_endpoint.test');
    // The same with the body as a string, and on a client instance as Stripe's docs write it.
    const stripe = new Stripe('sk_test_never_used_no_request_is_made');
    expect(stripe.webhooks.constructEvent(got.rawBody.toString('utf8'), signatureOf(got), secret).id).to.equal(event.id);
  });

  it('constructEvent refuses a changed body, a re-serialized body and another secret', async () => {
    const got = await testDelivery();
    const header = signatureOf(got);
    const changed = got.rawBody.toString('utf8').replace('webhook_endpoint.test', 'webhook_endpoint.tesT');
    expect(() => Stripe.webhooks.constructEvent(changed, header, secret)).to.throw(StripeSignatureVerificationError, /No signatures found matching/);
    const reserialized = JSON.stringify(JSON.parse(got.rawBody.toString('utf8')), null, 2);
    expect(() => Stripe.webhooks.constructEvent(reserialized, header, secret)).to.throw(StripeSignatureVerificationError);
    const other = (await merchant.sandbox.post('/v1/webhooks', { url: receiver.url('/other'), enabledEvents: ['payment.captured'] })).body.secret as string;
    expect(() => Stripe.webhooks.constructEvent(got.rawBody, header, other)).to.throw(StripeSignatureVerificationError);
  });

  it('constructEvent accepts an event delivered by the dispatcher, non-ASCII text included', async () => {
    const [event] = await service.core.transactor.run((tx) => service.core.outbox.append(tx, [{
      type: 'payment.captured',
      scope: { organizationId: merchant.organizationId, environment: 'sandbox' },
      object: { object: 'payment', id: 'pay_stripe_check', description: 'Café, açaí e pão de queijo ☕ — 100 %' },
    }]));
    await receiver.waitFor((rs) => rs.some((r) => r.headers['service-event-id'] === event.id), 30_000);
    const got = receiver.forPath('/stripe').find((r) => r.headers['service-event-id'] === event.id)!;
    expect(got.rawBody.toString('utf8')).to.contain('açaí');
    const verified = Stripe.webhooks.constructEvent(got.rawBody, signatureOf(got), secret);
    expect(verified.type).to.equal('payment.captured');
    expect((verified.data.object as unknown as { description: string }).description).to.equal('Café, açaí e pão de queijo ☕ — 100 %');
  });

  it('accepts both v1 values of a rotation grace window, with the old secret and with the new one', async () => {
    const rotated = await merchant.sandbox.post(`/v1/webhooks/${endpointId}/rotate-secret`);
    expect(rotated.status).to.equal(201);
    expect(rotated.body.secretRotation.previousSecretExpiresAt).to.be.a('string');
    const next = rotated.body.secret as string;
    const got = await testDelivery();
    expect(signatureOf(got).match(/v1=/g)).to.have.length(2);
    expect(Stripe.webhooks.constructEvent(got.rawBody, signatureOf(got), secret).id).to.equal(got.headers['service-event-id']);
    expect(Stripe.webhooks.constructEvent(got.rawBody, signatureOf(got), next).id).to.equal(got.headers['service-event-id']);
    secret = next;
  });

  it('applies Stripe\'s 300-second tolerance to the past only, where our verifier refuses both directions', async () => {
    const got = await testDelivery();
    const t = timestampOf(got);
    const stripeAt = (receivedAtSeconds: number) => () => Stripe.webhooks.constructEvent(got.rawBody, signatureOf(got), secret, undefined, undefined, receivedAtSeconds * 1000);
    expect(stripeAt(t + 300)).not.to.throw();
    expect(stripeAt(t + 301)).to.throw(StripeSignatureVerificationError, /Timestamp outside the tolerance zone/);
    // A signature timestamp an hour ahead of the receiver's clock: Stripe accepts it, our verifier does not.
    expect(stripeAt(t - 3600)).not.to.throw();
    expect(() => verifyWebhook({ rawBody: got.rawBody, signatureHeader: signatureOf(got), secret, now: t - 3600 }))
      .to.throw(WebhookVerificationError, /more than 300 seconds/);
  });
});
