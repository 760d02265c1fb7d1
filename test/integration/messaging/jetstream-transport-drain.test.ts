import { expect } from 'chai';
import type { StoredEvent } from '../../../domain/ports/event-outbox';
import { createLogger } from '../../../infrastructure/logging/logger';
import { JetStreamTransport } from '../../../infrastructure/messaging/jetstream-transport';
import { eventually } from '../../support/eventually';
import { testServers, uniqueStream } from '../../support/test-infrastructure';

const logger = createLogger('silent');
/** Long: a message the stopped consumer kept without acknowledging it would come back only after the test's limits. */
const ACK_WAIT_MS = 120_000;

function event(n: number): StoredEvent {
  return {
    id: `evt_drain_${n}`,
    type: 'payment.captured',
    apiVersion: '2026-01-01',
    createdAt: new Date().toISOString(),
    environment: 'sandbox',
    sequence: n,
    organizationId: 'org_drain',
    data: { object: { object: 'payment', id: `pay_drain_${n}` }, previousAttributes: null },
  };
}

/**
 * contract.md 8, Shutdown: a stopping JetStream consumer finishes and acknowledges the message it is handling, and hands
 * the messages it pulled but did not start back at once, so the next consumer gets them now, not after ack_wait.
 */
describe('JetStream consumer drain', function () {
  this.timeout(60_000);

  it('finishes the message being handled and hands back those pulled but not started', async () => {
    const { natsUrl } = await testServers();
    const { stream, subjectPrefix } = uniqueStream();
    const transport = await JetStreamTransport.connect({ url: natsUrl, stream, subjectPrefix, ackWaitMs: ACK_WAIT_MS }, logger);
    try {
      let release: () => void = () => undefined;
      const held = new Promise<void>((resolve) => (release = resolve));
      const handledByFirst: string[] = [];
      // One at a time: the first message is held, the next ones wait pulled in the consumer's buffer.
      const first = await transport.consume({ durableName: 'drain-test', concurrency: 1 }, async (received) => {
        handledByFirst.push(received.id);
        await held;
      });
      for (let n = 1; n <= 4; n += 1) await transport.publish(event(n));
      await eventually(async () => {
        const backlog = await transport.consumerBacklog();
        return handledByFirst.length === 1 && (backlog.find((c) => c.consumer === 'drain-test')?.ackPending ?? 0) >= 2;
      }, 20_000);

      const stopped = first.stop();
      release();
      await stopped;
      expect(handledByFirst).to.deep.equal(['evt_drain_1']);

      const handledBySecond: string[] = [];
      const second = await transport.consume({ durableName: 'drain-test' }, async (received) => {
        handledBySecond.push(received.id);
      });
      try {
        await eventually(() => handledBySecond.length >= 3, 20_000);
        expect([...handledBySecond].sort(), 'the rest at once; the finished one acknowledged, not again').to.deep.equal(['evt_drain_2', 'evt_drain_3', 'evt_drain_4']);
      } finally {
        await second.stop();
      }
    } finally {
      await transport.deleteStream();
      await transport.close();
    }
  });
});
