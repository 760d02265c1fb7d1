/**
 * A real HTTP receiver on loopback for webhook tests: records every request (raw body bytes and headers)
 * and answers with what the test scripts per event or by default.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { closeAfterRun } from './root-hooks';

export interface ReceivedRequest {
  readonly path: string;
  readonly headers: http.IncomingHttpHeaders;
  readonly rawHeaders: string[];
  readonly rawBody: Buffer;
  readonly at: number;
}

export interface ScriptedAnswer {
  status: number;
  body?: string;
  delayMs?: number;
  headers?: Record<string, string>;
}

export class WebhookReceiver {
  readonly requests: ReceivedRequest[] = [];
  /** Decides each answer; default 200 "ok". */
  answer: (request: ReceivedRequest) => ScriptedAnswer = () => ({ status: 200, body: 'ok' });
  private server: http.Server | null = null;
  private waiters: Array<() => void> = [];
  port = 0;

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const record: ReceivedRequest = { path: req.url ?? '/', headers: req.headers, rawHeaders: req.rawHeaders, rawBody: Buffer.concat(chunks), at: Date.now() };
        this.requests.push(record);
        for (const w of this.waiters.splice(0)) w();
        const a = this.answer(record);
        const reply = () => {
          if (res.destroyed) return;
          res.writeHead(a.status, { 'Content-Type': 'text/plain', ...(a.headers ?? {}) });
          res.end(a.body ?? '');
        };
        if (a.delayMs) setTimeout(reply, a.delayMs);
        else reply();
      });
    });
    this.server.keepAliveTimeout = 1;
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    closeAfterRun(() => this.stop());
    return this;
  }

  url(path = '/hook'): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  forPath(path: string): ReceivedRequest[] {
    return this.requests.filter((r) => r.path === path);
  }

  /** Resolves when `predicate` holds over the received requests, or rejects after `timeoutMs`. */
  async waitFor(predicate: (requests: ReceivedRequest[]) => boolean, timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate(this.requests)) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`receiver: condition not met within ${timeoutMs} ms (${this.requests.length} requests)`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, Math.min(left, 200));
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
