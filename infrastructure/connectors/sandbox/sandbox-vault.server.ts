import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cardRefusals, tokenizeCard, type CardInput } from './sandbox-vault';
import { printableBoletoHtml, type PrintableBoleto } from './printable-boleto';

/** A tokenization session opened through AcquirerConnector/CreateTokenizationSession. */
export interface VaultSession {
  readonly id: string;
  readonly paymentId: string;
  readonly clientSecret: string;
  readonly expiresAt: number;
  spent: boolean;
}

export interface RunningSandboxVault {
  readonly port: number;
  /** Base URL of the vault (`http://host:port`). */
  readonly url: string;
  stop(): Promise<void>;
}

const MAX_BODY_BYTES = 16 * 1024;

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' });
  res.end(JSON.stringify(body));
}

function refuse(res: ServerResponse, status: number, code: string, message: string, param: string | null = null): void {
  send(res, status, { error: { code, message, param } });
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let size = 0;
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new Error('too large'));
        req.destroy();
      } else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/**
 * The sandbox card vault: the only place a card number is ever posted (never the payment API). The browser
 * checkout page calls it cross-origin, so it answers CORS preflights. One successful tokenization spends the
 * session (a new attempt asks the core for a new session). Card data is neither stored nor logged.
 */
export async function startSandboxVault(options: {
  host: string;
  port?: number;
  sessions: Map<string, VaultSession>;
  now?: () => Date;
  /** The sandbox bank's boletos by id, for their printable page (GET /boletos/{id}). */
  boletos?: (id: string) => PrintableBoleto | null;
}): Promise<RunningSandboxVault> {
  const now = options.now ?? (() => new Date());
  const server: Server = createServer((req, res) => {
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.setHeader('Access-Control-Allow-Methods', 'POST, OPTIONS');
    res.setHeader('Access-Control-Allow-Headers', 'Content-Type, Service-Client-Secret');
    if (req.method === 'OPTIONS') {
      res.writeHead(204).end();
      return;
    }
    const printable = /^\/boletos\/([A-Za-z0-9_-]{1,128})$/.exec(req.url ?? '');
    if (printable && req.method === 'GET') {
      const boleto = options.boletos?.(printable[1]!);
      if (!boleto) return refuse(res, 404, 'not_found', 'No such boleto');
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store', 'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'" });
      res.end(printableBoletoHtml(boleto));
      return;
    }
    const match = /^\/sessions\/([A-Za-z0-9_-]{1,128})\/tokenize$/.exec(req.url ?? '');
    if (!match || req.method !== 'POST') return refuse(res, 404, 'not_found', 'No such vault route');
    const session = options.sessions.get(match[1]!);
    if (!session) return refuse(res, 404, 'not_found', 'No such tokenization session');
    if (req.headers['service-client-secret'] !== session.clientSecret) {
      return refuse(res, 401, 'invalid_client_secret', 'The client secret does not match this session');
    }
    if (session.expiresAt < now().getTime()) return refuse(res, 410, 'session_expired', 'The tokenization session expired');
    if (session.spent) return refuse(res, 409, 'session_spent', 'The tokenization session was already used; request a new one');
    readBody(req).then(
      (raw) => {
        let body: Partial<Record<keyof CardInput, unknown>>;
        try {
          body = JSON.parse(raw) as typeof body;
        } catch {
          return refuse(res, 400, 'invalid_json', 'The body is not JSON');
        }
        const card: CardInput = {
          number: String(body.number ?? '').replace(/[\s-]/g, ''),
          cvv: String(body.cvv ?? ''),
          expMonth: Number(body.expMonth),
          expYear: Number(body.expYear),
          ...(body.holderName !== undefined ? { holderName: String(body.holderName) } : {}),
        };
        const refusals = cardRefusals(card, now());
        if (refusals.length > 0) {
          return send(res, 422, {
            error: { code: 'invalid_card', message: `${refusals[0]!.param} ${refusals[0]!.message}`, param: refusals[0]!.param, details: refusals },
          });
        }
        session.spent = true;
        return send(res, 201, tokenizeCard(card));
      },
      () => refuse(res, 413, 'payload_too_large', 'The body is too large'),
    );
  });
  const port = await new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host, () => resolve((server.address() as AddressInfo).port));
  });
  const hostPart = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    port,
    url: `http://${hostPart}:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
