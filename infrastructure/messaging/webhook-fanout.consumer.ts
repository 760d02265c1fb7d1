import type { FanOutEvent } from '../../application/webhook/fan-out-event';
import type { Logger } from '../logging/logger';
import type { EventTransport, RunningConsumer } from './event-transport';

/** Explicit durable name: a restarted worker resumes where the previous one acknowledged. */
export const WEBHOOK_FANOUT_CONSUMER = 'webhook-fanout';

/**
 * Consumes every event and creates its deliveries. Acknowledged (handler resolves) only after the deliveries
 * are committed; a crash before that redelivers the event, and the (event, endpoint) key makes that harmless.
 */
export function startWebhookFanOut(transport: EventTransport, fanOut: FanOutEvent, logger: Logger, concurrency = 16): Promise<RunningConsumer> {
  return transport.consume({ durableName: WEBHOOK_FANOUT_CONSUMER, concurrency, retryDelayMs: 1_000 }, async (event, info) => {
    const created = await fanOut.execute(event, { redelivered: info.redelivered });
    if (created > 0 || info.redelivered) logger.debug({ eventId: event.id, type: event.type, created, redelivered: info.redelivered }, 'webhook fan-out');
  });
}
