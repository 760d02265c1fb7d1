/**
 * `npm run cli -- listen --key sk_... --forward-to http://localhost:3000/webhooks`, as `stripe listen` does: polls
 * the key's environment's events (GET /v1/events) and posts each new one to a local URL, signed as a real delivery
 * (Service-Signature with a secret printed at start), so a receiver can be developed without a public address.
 * Events that existed when it started are not forwarded. Ctrl-C stops it.
 */
import { deliveryHeaders } from '../../domain/webhook/delivery-headers';
import { generateWebhookSecret, sign } from '../crypto/webhook-signer';

interface ListedEvent {
  readonly id: string;
  readonly type: string;
  readonly apiVersion: string;
}

export interface ListenOptions {
  readonly apiUrl: string;
  readonly key: string;
  readonly forwardTo: string;
  readonly intervalMs: number;
  readonly print: (line: string) => void;
  /** Resolves when listening must stop (Ctrl-C). */
  readonly stopped: Promise<void>;
}

/** At most this many pages of new events are read per poll (100 events each). */
const MAX_PAGES_PER_POLL = 10;

export async function listen(options: ListenOptions): Promise<void> {
  const forwardTo = new URL(options.forwardTo).toString();
  const secret = generateWebhookSecret();
  const seen = new Set<string>();
  for (const event of await newestEvents(options, seen)) seen.add(event.id);
  options.print(`Ready. Forwarding the events of this key's environment from ${options.apiUrl} to ${forwardTo} (Ctrl-C to stop).`);
  options.print(`Signing secret for your receiver's verifier: ${secret}`);
  let stopping = false;
  void options.stopped.then(() => {
    stopping = true;
  });
  while (!stopping) {
    const fresh = (await newestEvents(options, seen)).filter((event) => !seen.has(event.id)).reverse();
    for (const event of fresh) {
      seen.add(event.id);
      options.print(`${new Date().toISOString()}  ${event.type}  ${event.id}  -> ${await forward(forwardTo, secret, event)}`);
    }
    await Promise.race([new Promise((resolve) => setTimeout(resolve, options.intervalMs)), options.stopped]);
  }
}

/** The newest events, newest first, reading further pages until one already seen (or the page limit). */
async function newestEvents(options: ListenOptions, seen: ReadonlySet<string>): Promise<ListedEvent[]> {
  const events: ListedEvent[] = [];
  let startingAfter: string | undefined;
  for (let page = 0; page < MAX_PAGES_PER_POLL; page += 1) {
    const query = new URLSearchParams({ limit: '100', ...(startingAfter ? { startingAfter } : {}) });
    const response = await fetch(`${options.apiUrl}/v1/events?${query}`, { headers: { authorization: `Bearer ${options.key}` } });
    const body = (await response.json()) as { data?: ListedEvent[]; hasMore?: boolean; error?: { code: string; message: string } };
    if (response.status !== 200 || !body.data) throw new Error(`GET /v1/events answered ${response.status} ${body.error?.code ?? ''}: ${body.error?.message ?? ''}`);
    events.push(...body.data);
    if (!body.hasMore || body.data.length === 0 || body.data.some((event) => seen.has(event.id))) break;
    startingAfter = body.data[body.data.length - 1]!.id;
  }
  return events;
}

/** Posts the event as a delivery would (same headers, signed now); answers what to print. */
async function forward(url: string, secret: string, event: ListedEvent): Promise<string> {
  const body = JSON.stringify(event);
  const headers = deliveryHeaders({
    eventId: event.id,
    eventType: event.type,
    attempt: 1,
    apiVersion: event.apiVersion,
    signature: sign([secret], Math.floor(Date.now() / 1000), body),
    customHeaders: {},
  });
  try {
    const response = await fetch(url, { method: 'POST', headers, body, signal: AbortSignal.timeout(10_000) });
    await response.arrayBuffer();
    return String(response.status);
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message;
    return `not delivered (${cause})`;
  }
}
