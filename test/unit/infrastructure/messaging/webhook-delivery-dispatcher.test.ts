import { expect } from 'chai';
import type { AttemptDelivery, PendingRecord } from '../../../../application/webhook/attempt-delivery';
import type { WebhookDelivery } from '../../../../domain/webhook/webhook-delivery';
import type { WebhookEndpoint } from '../../../../domain/webhook/webhook-endpoint';
import { ManualClock } from '../../../../infrastructure/clock/system-clock';
import { createLogger } from '../../../../infrastructure/logging/logger';
import { WebhookDeliveryDispatcher } from '../../../../infrastructure/messaging/webhook-delivery-dispatcher';
import type { Orm } from '../../../../infrastructure/persistence/orm';
import { eventually } from '../../../support/eventually';

/**
 * Handovers from fan-out (`reserve`) are bounded per endpoint by the HTTP requests still open, not by the leases
 * still waiting for the group commit: a fast endpoint whose outcomes wait to be recorded is not busy.
 * No database: claims find nothing (an empty queue), and the attempt's send and record are controlled here.
 */
describe('webhook delivery dispatcher: handover limits', () => {
  function setUp(limits: { perEndpoint: number; failingPerEndpoint?: number } = { perEndpoint: 1 }) {
    const answers: Array<(status?: number | null) => void> = [];
    const records: Array<{ batch: readonly PendingRecord[]; done: () => void }> = [];
    const attempt = {
      // Each send stays open until the test answers it: with an HTTP status (null: no answer), or as not sent.
      send: (delivery: WebhookDelivery) =>
        new Promise<PendingRecord>((resolve) =>
          answers.push((status) =>
            resolve(
              status === undefined
                ? { kind: 'skipped', delivery, leaseOwner: 'w1', cancel: false }
                : {
                    kind: 'sent',
                    delivery,
                    leaseOwner: 'w1',
                    attemptNumber: 1,
                    headerInput: { eventId: 'evt_1', eventType: 'payment.captured', attempt: 1, apiVersion: '', customHeaders: {} },
                    result: { startedAt: new Date(), durationMs: 1, responseStatus: status, responseBody: null, error: status === null ? 'ETIMEDOUT' : null },
                  },
            ),
          ),
        ),
      // Each group commit stays open until the test completes it.
      record: (batch: readonly PendingRecord[]) => new Promise<void>((done) => records.push({ batch, done })),
      endpointsOf: async () => new Map(),
    } as unknown as AttemptDelivery;
    const emptyQueue = { em: { fork: () => ({ execute: async () => [] }) } } as unknown as Orm;
    const dispatcher = new WebhookDeliveryDispatcher(emptyQueue, attempt, new ManualClock(new Date('2026-11-25T00:00:00Z')), createLogger('silent'), {
      workerId: 'w1',
      ...limits,
      maxConcurrent: 8,
      pollIntervalMs: 60_000,
      leaseMs: 15_000,
    });
    let n = 0;
    const delivery = (endpointId: string) => ({ id: `whd_${(n += 1)}`, state: { endpointId } }) as unknown as WebhookDelivery;
    const endpoint = {} as WebhookEndpoint;
    /** Hands one delivery over to this endpoint and waits until its request is open. */
    const sendOne = async (endpointId: string) => {
      const open = answers.length;
      const slot = await eventually(() => dispatcher.reserve(endpointId));
      slot.send(delivery(endpointId), endpoint);
      await eventually(() => answers.length === open + 1);
    };
    return { dispatcher, answers, records, sendOne };
  }

  it('frees the endpoint slot when the endpoint answers, and the process slot only when the outcome is recorded', async () => {
    const { dispatcher, answers, records, sendOne } = setUp();
    dispatcher.start();
    try {
      // The first (empty) claim shows nothing queued: handovers are allowed from then on.
      await sendOne('we_fast');
      answers[0]();
      await eventually(() => records.length === 1);

      // Answered but not yet recorded: the endpoint has a free slot again; the lease still counts for the process.
      expect(dispatcher.activeAttempts).to.equal(1);
      const second = dispatcher.reserve('we_fast');
      expect(second, 'a fast endpoint waiting for the group commit is not busy').to.not.equal(null);
      expect(dispatcher.activeAttempts).to.equal(2);
      second!.release();
      records[0].done();
      await eventually(() => dispatcher.activeAttempts === 0);
    } finally {
      await stopWithRecordsCompleted(dispatcher, records);
    }
  });

  it('records a handover sent while its row was being inserted only once it is stored; if it never is, only frees its slot', async () => {
    const { dispatcher, answers, records } = setUp({ perEndpoint: 4 });
    dispatcher.start();
    try {
      let storeFirst!: (yes: boolean) => void;
      let storeSecond!: (yes: boolean) => void;
      const first = await eventually(() => dispatcher.reserve('we_1'));
      first.send({ id: 'whd_a', state: { endpointId: 'we_1' } } as unknown as WebhookDelivery, {} as WebhookEndpoint, new Promise((resolve) => (storeFirst = resolve)));
      const second = dispatcher.reserve('we_1')!;
      second.send({ id: 'whd_b', state: { endpointId: 'we_1' } } as unknown as WebhookDelivery, {} as WebhookEndpoint, new Promise((resolve) => (storeSecond = resolve)));
      await eventually(() => answers.length === 2);
      answers[0](200);
      answers[1](200);
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(records, 'answered, but the rows are not committed yet').to.have.length(0);
      storeFirst(true);
      await eventually(() => records.length === 1);
      expect(records[0].batch.map((p) => p.delivery.id)).to.deep.equal(['whd_a']);
      storeSecond(false); // not inserted: nothing to record on
      await eventually(() => dispatcher.activeAttempts === 1);
      records[0].done();
      await eventually(() => dispatcher.activeAttempts === 0);
      expect(records).to.have.length(1);
    } finally {
      await stopWithRecordsCompleted(dispatcher, records);
    }
  });

  it('refuses a handover while the endpoint has as many requests open as its limit, and only to that endpoint', async () => {
    const { dispatcher, answers, records, sendOne } = setUp();
    dispatcher.start();
    try {
      await sendOne('we_slow');
      expect(dispatcher.reserve('we_slow'), 'its one request is still open').to.equal(null);
      const other = dispatcher.reserve('we_other');
      expect(other, 'another endpoint is not held back by the slow one').to.not.equal(null);
      other!.release();
      answers[0]();
      // Answered, but a delivery of we_slow was left to the claim meanwhile: none of its new ones overtakes it until
      // a claim has found nothing left due (here the next one, on the empty queue).
      expect(dispatcher.reserve('we_slow')).to.equal(null);
      dispatcher.nudge();
      const again = await eventually(() => dispatcher.reserve('we_slow'));
      again.release();
    } finally {
      await stopWithRecordsCompleted(dispatcher, records);
    }
  });

  it('gives an endpoint whose latest attempt failed a smaller bound until an attempt succeeds', async () => {
    const { dispatcher, answers, records, sendOne } = setUp({ perEndpoint: 3, failingPerEndpoint: 1 });
    // Every outcome is recorded as soon as it is handed over: only the open requests count here.
    const recording = setInterval(() => records.forEach((record) => record.done()), 2);
    const answer = async (index: number, status: number | null) => {
      answers[index](status);
      await eventually(() => dispatcher.activeAttempts === 0);
      dispatcher.nudge(); // a claim (of the empty queue) lets the endpoint's handovers go again
    };
    dispatcher.start();
    try {
      await sendOne('we_down');
      await answer(0, null); // no answer: timed out
      await sendOne('we_down');
      expect(dispatcher.reserve('we_down'), 'a failing endpoint gets one request at a time').to.equal(null);
      await answer(1, 503);
      await sendOne('we_down');
      expect(dispatcher.reserve('we_down'), 'still failing').to.equal(null);
      await answer(2, 200);
      // Healthy again: three requests at once.
      await sendOne('we_down');
      await sendOne('we_down');
      const third = await eventually(() => dispatcher.reserve('we_down'));
      third.release();
      answers[3](200);
      answers[4](200);
    } finally {
      clearInterval(recording);
      await stopWithRecordsCompleted(dispatcher, records);
    }
  });

  it('on stop, sends and records a handover reserved before it (its row is leased here) and resolves only then', async () => {
    const { dispatcher, answers, records } = setUp({ perEndpoint: 4 });
    dispatcher.start();
    const slot = await eventually(() => dispatcher.reserve('we_1'));
    let stopped = false;
    const stopping = dispatcher.stop().then(() => (stopped = true));
    expect(dispatcher.reserve('we_1'), 'a stopping dispatcher reserves nothing more').to.equal(null);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(stopped, 'waits for the reserved handover').to.equal(false);
    slot.send({ id: 'whd_late', state: { endpointId: 'we_1' } } as unknown as WebhookDelivery, {} as WebhookEndpoint);
    await eventually(() => answers.length === 1);
    answers[0](200);
    await eventually(() => records.length === 1);
    expect(stopped, 'waits for the outcome to be recorded').to.equal(false);
    expect(records[0].batch.map((p) => p.delivery.id)).to.deep.equal(['whd_late']);
    records[0].done();
    await stopping;
    expect(dispatcher.activeAttempts).to.equal(0);
  });

  async function stopWithRecordsCompleted(dispatcher: WebhookDeliveryDispatcher, records: Array<{ done: () => void }>): Promise<void> {
    const completing = setInterval(() => records.forEach((record) => record.done()), 5);
    try {
      await dispatcher.stop();
    } finally {
      clearInterval(completing);
    }
  }
});
