import { expect } from 'chai';
import { ulid } from 'ulidx';
import type { StoredEvent } from '../../../../domain/ports/event-outbox';
import { ServiceMetrics } from '../../../../infrastructure/metrics/service-metrics';

function paymentEvent(type: string, object: Record<string, unknown>, previousStatus: string | null = 'processing'): StoredEvent {
  return {
    id: `evt_${ulid()}`,
    type,
    apiVersion: '2026-01-01',
    createdAt: new Date().toISOString(),
    environment: 'sandbox',
    sequence: 1,
    organizationId: 'org_1',
    data: { object: { object: 'payment', id: 'pay_1', methodType: 'card', connector: 'sandbox', connectorAccountId: 'ca_up', attempts: [], ...object }, previousAttributes: previousStatus ? { status: previousStatus } : null },
  };
}

async function valueOf(metrics: ServiceMetrics, name: string, labels: Record<string, string> = {}): Promise<number> {
  const family = await metrics.registry.getSingleMetric(name)!.get();
  return family.values
    .filter((v) => Object.entries(labels).every(([k, value]) => String((v.labels as Record<string, unknown>)[k]) === value))
    .filter((v) => !('metricName' in v) || v.metricName === name || v.metricName === `${name}_count`)
    .reduce((sum, v) => sum + v.value, 0);
}

describe('ServiceMetrics', () => {
  describe('payment outcomes from published events', () => {
    it('an authorization or a first capture is one approval; a capture after an authorization is not another', async () => {
      const metrics = new ServiceMetrics();
      metrics.observePublished([
        paymentEvent('payment.authorized', {}),
        paymentEvent('payment.captured', {}, 'authorized'),
        paymentEvent('payment.captured', {}, 'processing'),
        paymentEvent('payment.refunded', {}, 'captured'),
      ]);
      expect(await valueOf(metrics, 'pos_payments_total', { outcome: 'approved', account: 'ca_up', method: 'card', connector: 'sandbox', decline_reason: '' })).to.equal(2);
      expect(await valueOf(metrics, 'pos_payments_total')).to.equal(2);
    });

    it('payment.failed is declined with its reason when it carries a decline, failed (technical) otherwise', async () => {
      const metrics = new ServiceMetrics();
      metrics.observePublished([
        paymentEvent('payment.failed', { decline: { reason: 'STOLEN_CARD' } }),
        paymentEvent('payment.failed', { decline: null, connector: null, connectorAccountId: null }),
        paymentEvent('payment.attempt_declined', { decline: { reason: 'INSUFFICIENT_FUNDS' } }, 'processing'),
      ]);
      expect(await valueOf(metrics, 'pos_payments_total', { outcome: 'declined', decline_reason: 'STOLEN_CARD' })).to.equal(1);
      expect(await valueOf(metrics, 'pos_payments_total', { outcome: 'failed', decline_reason: '', account: 'none', connector: 'none' })).to.equal(1);
      expect(await valueOf(metrics, 'pos_payments_total', { outcome: 'attempt_declined', decline_reason: 'INSUFFICIENT_FUNDS' })).to.equal(1);
    });

    it('counts a fallback for every attempt but the last, labelled by the account the payment left', async () => {
      const metrics = new ServiceMetrics();
      const attempts = [
        { connector: 'sandbox', connectorAccountId: 'ca_down' },
        { connector: 'sandbox', connectorAccountId: 'ca_slow' },
        { connector: 'sandbox', connectorAccountId: 'ca_up' },
      ];
      metrics.observePublished([paymentEvent('payment.authorized', { attempts }), paymentEvent('payment.authorized', { attempts: attempts.slice(2) })]);
      expect(await valueOf(metrics, 'pos_payment_fallbacks_total', { account: 'ca_down' })).to.equal(1);
      expect(await valueOf(metrics, 'pos_payment_fallbacks_total', { account: 'ca_slow' })).to.equal(1);
      expect(await valueOf(metrics, 'pos_payment_fallbacks_total', { account: 'ca_up' })).to.equal(0);
    });

    it('ignores events that are not payments', async () => {
      const metrics = new ServiceMetrics();
      metrics.observePublished([{ ...paymentEvent('refund.succeeded', {}), type: 'refund.succeeded' }]);
      expect(await valueOf(metrics, 'pos_payments_total')).to.equal(0);
    });
  });

  describe('webhook attempts', () => {
    it('observes delivery latency from the commit encoded in the event id, for successes only; counts retries', async () => {
      const metrics = new ServiceMetrics();
      const committedAt = Date.UTC(2026, 0, 1, 12, 0, 0);
      const eventId = `evt_${ulid(committedAt)}`;
      metrics.observeWebhookAttempt({ outcome: 'failed', attemptNumber: 1, eventId, finishedAt: committedAt + 1_000 });
      metrics.observeWebhookAttempt({ outcome: 'succeeded', attemptNumber: 2, eventId, finishedAt: committedAt + 61_500 });
      expect(await valueOf(metrics, 'pos_webhook_attempts_total', { outcome: 'failed' })).to.equal(1);
      expect(await valueOf(metrics, 'pos_webhook_attempts_total', { outcome: 'succeeded' })).to.equal(1);
      expect(await valueOf(metrics, 'pos_webhook_retries_total')).to.equal(1);
      const latency = await metrics.webhookDeliveryLatency.get();
      expect(latency.values.find((v) => v.metricName === 'pos_webhook_delivery_latency_seconds_sum')!.value).to.equal(61.5);
      expect(latency.values.find((v) => v.metricName === 'pos_webhook_delivery_latency_seconds_count')!.value).to.equal(1);
    });
  });

  describe('HTTP requests', () => {
    it('one series per route pattern, method and status, reused across requests', async () => {
      const metrics = new ServiceMetrics();
      metrics.observeRequest('/v1/payments/:id', 'GET', 200, 0.01);
      metrics.observeRequest('/v1/payments/:id', 'GET', 200, 0.02);
      metrics.observeRequest('/v1/payments/:id', 'GET', 404, 0.01);
      const values = (await metrics.httpRequestDuration.get()).values.filter((v) => v.metricName === 'pos_http_request_duration_seconds_count');
      expect(values.map((v) => [v.labels.status, v.value])).to.deep.equal([
        ['200', 2],
        ['404', 1],
      ]);
    });
  });
});
