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

/**
 * node:http sender. The address check runs inside the socket's `lookup`, i.e. on the very addresses the
 * connection will use, so a name that resolves publicly at registration and internally later is still
 * refused (DNS rebinding). No agent pooling: every attempt opens a checked connection. Redirects are
 * never followed (node:http does not follow them; a 3xx is recorded as a failure).
 */
export class HttpWebhookSender implements WebhookSender {
  constructor(private readonly now: () => Date = () => new Date()) {}

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
    return new Promise<WebhookResponse>((resolve) => {
      let settled = false;
      let timer: NodeJS.Timeout | undefined;
      const finish = (response: WebhookResponse) => {
        if (settled) return;
        settled = true;
        if (timer) clearTimeout(timer);
        resolve(response);
      };
      let req: http.ClientRequest;
      try {
        req = transport.request(
          url,
          {
            method: 'POST',
            headers: { ...request.headers, 'Content-Length': String(Buffer.byteLength(request.body)) },
            agent: false,
            lookup: lookup as unknown as net.LookupFunction,
          },
          (res) => {
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
      timer = setTimeout(() => {
        req.destroy(new Error(`no answer within ${request.timeoutMs} ms`));
      }, request.timeoutMs);
      req.on('error', (error) => finish(fail(describeNetworkError(error))));
      req.end(request.body);
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
