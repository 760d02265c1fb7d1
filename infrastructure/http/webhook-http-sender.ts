import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { WebhookRequest, WebhookResponse, WebhookSender } from '../../domain/ports/webhook-sender';
import { DomainError } from '../../domain/shared/domain-error';
import { MAX_STORED_RESPONSE_BYTES } from '../../domain/webhook/webhook-delivery';
import { assertDeliverableAddresses } from '../../domain/webhook/webhook-url';
import { stripBrackets } from '../../domain/webhook/internal-address';

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;

/** Idle pooled connections close before the usual 5 s server keep-alive, so a reused one is rarely already closed. */
const FREE_SOCKET_TIMEOUT_MS = 4_000;
/** Pools kept at most (one per origin and URL context); the least recently used one is closed beyond. */
const MAX_POOLS = 500;
/** A request on a pooled connection the server had just closed is sent again (on another connection) this often. */
const STALE_CONNECTION_RETRIES = 2;

/**
 * node:http sender. The address check runs inside the socket's `lookup`, i.e. on the very addresses the
 * connection will use, so a name that resolves publicly at registration and internally later is still
 * refused (DNS rebinding). Connections are kept alive and reused per origin (a TLS handshake and a TCP
 * connect per attempt cost more than the attempt): every pooled connection passed the check when it was
 * opened, and pools are separate per URL context, so a connection allowed for a local sandbox endpoint never
 * carries a live one. Redirects are never followed (node:http does not follow them; a 3xx is a failure).
 */
export class HttpWebhookSender implements WebhookSender {
  private readonly pools = new Map<string, http.Agent>();

  constructor(private readonly now: () => Date = () => new Date()) {}

  /** Closes every pooled connection. */
  close(): void {
    for (const agent of this.pools.values()) agent.destroy();
    this.pools.clear();
  }

  private poolFor(url: URL, request: WebhookRequest): http.Agent {
    const key = `${url.protocol}//${url.host}|${request.urlContext.environment}|${request.urlContext.deployment}`;
    let agent = this.pools.get(key);
    if (agent) {
      // Most recently used last (Map keeps insertion order).
      this.pools.delete(key);
    } else {
      const options = { keepAlive: true, timeout: FREE_SOCKET_TIMEOUT_MS, scheduling: 'lifo' as const };
      agent = url.protocol === 'https:' ? new https.Agent(options) : new http.Agent(options);
      if (this.pools.size >= MAX_POOLS) {
        const [oldestKey, oldest] = this.pools.entries().next().value as [string, http.Agent];
        this.pools.delete(oldestKey);
        oldest.destroy();
      }
    }
    this.pools.set(key, agent);
    return agent;
  }

  send(request: WebhookRequest): Promise<WebhookResponse> {
    const startedAt = this.now();
    const t0 = process.hrtime.bigint();
    const elapsed = () => Math.round(Number(process.hrtime.bigint() - t0) / 1e6);
    const fail = (error: string, status: number | null = null, body: string | null = null): WebhookResponse => ({
      status,
      body,
      error,
      startedAt,
      durationMs: elapsed(),
    });

    let url: URL;
    try {
      url = new URL(request.url);
    } catch {
      return Promise.resolve(fail('invalid URL'));
    }
    const hostname = stripBrackets(url.hostname);
    if (net.isIP(hostname)) {
      try {
        assertDeliverableAddresses([hostname], request.urlContext, hostname);
      } catch (error) {
        return Promise.resolve(fail(messageOf(error)));
      }
    }

    const lookup = (host: string, options: dns.LookupOptions, callback: LookupCallback): void => {
      dns.lookup(host, { all: true, family: options.family ?? 0 }, (error, addresses) => {
        if (error) return callback(error, '');
        try {
          assertDeliverableAddresses(addresses.map((a) => a.address), request.urlContext, host);
        } catch (blocked) {
          return callback(Object.assign(new Error(messageOf(blocked)), { code: 'EINTERNALADDRESS' }), '');
        }
        if (options.all) callback(null, addresses);
        else callback(null, addresses[0].address, addresses[0].family);
      });
    };

    const transport = url.protocol === 'https:' ? https : http;
    const agent = this.poolFor(url, request);
    return new Promise<WebhookResponse>((resolve) => {
      let settled = false;
      let timer: NodeJS.Timeout | undefined;
      let current: http.ClientRequest | null = null;
      const finish = (response: WebhookResponse) => {
        if (settled) return;
        settled = true;
        if (timer) clearTimeout(timer);
        resolve(response);
      };
      timer = setTimeout(() => {
        const error = new Error(`no answer within ${request.timeoutMs} ms`);
        if (current) current.destroy(error);
        else finish(fail(error.message));
      }, request.timeoutMs);
      const attempt = (retriesLeft: number) => {
        let req: http.ClientRequest;
        let answered = false;
        try {
          req = transport.request(
            url,
            {
              method: 'POST',
              headers: { ...request.headers, 'Content-Length': String(Buffer.byteLength(request.body)) },
              agent,
              lookup: lookup as unknown as net.LookupFunction,
            },
            (res) => {
              answered = true;
              const chunks: Buffer[] = [];
              let size = 0;
              const done = () =>
                finish({
                  status: res.statusCode ?? null,
                  body: Buffer.concat(chunks).subarray(0, MAX_STORED_RESPONSE_BYTES + 4).toString('utf8'),
                  error: null,
                  startedAt,
                  durationMs: elapsed(),
                });
              res.on('data', (chunk: Buffer) => {
                chunks.push(chunk);
                size += chunk.length;
                // Enough to store 8 KB and know it was cut; the rest is not worth the bandwidth.
                if (size > MAX_STORED_RESPONSE_BYTES) {
                  done();
                  res.destroy();
                }
              });
              res.on('end', done);
              res.on('error', done);
              res.on('close', done);
            },
          );
        } catch (error) {
          // e.g. a header value Node refuses: an outcome like any other, never an exception for the worker.
          finish(fail(error instanceof Error ? error.message : String(error)));
          return;
        }
        current = req;
        req.on('error', (error: Error & { code?: string }) => {
          // A pooled connection the server closed while idle fails before any answer: not the endpoint's
          // failure, so the request goes again (the agent has dropped that connection).
          if (!settled && !answered && req.reusedSocket && retriesLeft > 0 && (error.code === 'ECONNRESET' || error.code === 'EPIPE')) {
            attempt(retriesLeft - 1);
            return;
          }
          finish(fail(describeNetworkError(error)));
        });
        req.end(request.body);
      };
      attempt(STALE_CONNECTION_RETRIES);
    });
  }
}

function messageOf(error: unknown): string {
  if (error instanceof DomainError) return `internal_address_blocked: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}

function describeNetworkError(error: Error & { code?: string }): string {
  if (error.code === 'EINTERNALADDRESS') return `internal_address_blocked: ${error.message.replace(/^internal_address_blocked: /, '')}`;
  return error.code ? `${error.code}: ${error.message}` : error.message;
}
