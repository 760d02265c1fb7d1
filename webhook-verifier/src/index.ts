/**
 * Verifier for Service webhooks, published as the package `@payment-orchestration/webhook-verifier` (README.md
 * beside it). No dependencies beyond Node's crypto module, so the file can also be copied into a receiver.
 *
 *   const event = verifyWebhook({ rawBody, signatureHeader: req.headers['service-signature'], secret });
 *
 * Verify the RAW body bytes before any JSON parsing: re-serializing changes the bytes and breaks the HMAC.
 * The scheme is Stripe's (`t=<unix>,v1=<hex>` over `<t>.<raw body>`), so Stripe's library verifies it too.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const DEFAULT_TOLERANCE_SECONDS = 300;

export type WebhookVerificationErrorCode =
  | 'missing_signature'
  | 'malformed_signature'
  | 'timestamp_out_of_tolerance'
  | 'signature_mismatch'
  | 'invalid_payload';

export class WebhookVerificationError extends Error {
  constructor(
    readonly code: WebhookVerificationErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

export interface WebhookEvent<T = Record<string, unknown>> {
  id: string;
  type: string;
  apiVersion: string;
  createdAt: string;
  environment: string;
  sequence: number;
  data: { object: T; previousAttributes?: Record<string, unknown> };
}

export interface VerifyWebhookInput {
  rawBody: string | Buffer;
  signatureHeader: string | string[] | undefined | null;
  /** The endpoint secret, whsec_ prefix included; pass several while you roll your own configuration. */
  secret: string | readonly string[];
  toleranceSeconds?: number;
  /** Current time (Date or unix seconds); defaults to the clock. */
  now?: Date | number;
}

export interface ParsedSignature {
  timestamp: number;
  signatures: string[];
}

export function parseSignatureHeader(header: string | string[] | undefined | null): ParsedSignature {
  const value = Array.isArray(header) ? header.join(',') : header;
  if (value === undefined || value === null || value.trim() === '') {
    throw new WebhookVerificationError('missing_signature', 'Service-Signature header is missing.');
  }
  let timestamp: number | null = null;
  const signatures: string[] = [];
  for (const part of value.split(',')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const key = part.slice(0, eq).trim();
    const val = part.slice(eq + 1).trim();
    if (key === 't') {
      if (!/^\d{1,12}$/.test(val)) throw new WebhookVerificationError('malformed_signature', 'Signature timestamp is not unix seconds.');
      timestamp = Number(val);
    } else if (key === 'v1' && /^[0-9a-f]{64}$/i.test(val)) {
      signatures.push(val.toLowerCase());
    }
  }
  if (timestamp === null) throw new WebhookVerificationError('malformed_signature', 'Signature has no t= timestamp.');
  if (signatures.length === 0) throw new WebhookVerificationError('malformed_signature', 'Signature has no v1= value.');
  return { timestamp, signatures };
}

function nowSeconds(now: Date | number | undefined): number {
  if (now === undefined) return Math.floor(Date.now() / 1000);
  return typeof now === 'number' ? now : Math.floor(now.getTime() / 1000);
}

/** Checks the signature and the timestamp, then parses the body. Throws WebhookVerificationError otherwise. */
export function verifyWebhook<T = Record<string, unknown>>(input: VerifyWebhookInput): WebhookEvent<T> {
  const tolerance = input.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const { timestamp, signatures } = parseSignatureHeader(input.signatureHeader);
  if (Math.abs(nowSeconds(input.now) - timestamp) > tolerance) {
    throw new WebhookVerificationError('timestamp_out_of_tolerance', `Signature timestamp is more than ${tolerance} seconds from now.`);
  }
  const body = typeof input.rawBody === 'string' ? Buffer.from(input.rawBody, 'utf8') : input.rawBody;
  const secrets = typeof input.secret === 'string' ? [input.secret] : [...input.secret];
  let matched = false;
  for (const secret of secrets) {
    const expected = createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest();
    for (const candidate of signatures) {
      // Lengths are equal (both 32 bytes) because parseSignatureHeader only keeps 64-hex-digit values.
      if (timingSafeEqual(expected, Buffer.from(candidate, 'hex'))) matched = true;
    }
  }
  if (!matched) throw new WebhookVerificationError('signature_mismatch', 'No signature matches the payload and secret.');
  try {
    return JSON.parse(body.toString('utf8')) as WebhookEvent<T>;
  } catch {
    throw new WebhookVerificationError('invalid_payload', 'Body is not valid JSON.');
  }
}
