/**
 * The only calls the checkout makes (contract.md 9): the service's public routes, authenticated by the payment's
 * client secret in Service-Client-Secret, and the vault's tokenizeUrl, the one place the card number is sent.
 */

export interface PublicView {
  readonly id: string;
  readonly status: string;
  readonly amount: number;
  readonly currency: string;
  readonly methodType: string;
  readonly description: string | null;
  readonly merchant: { readonly name: string | null };
  readonly nextAction: NextAction | null;
  readonly actionExpiresAt: string | null;
  readonly decline: { readonly reason: string; readonly consumerMessage: string; readonly consumerMessages?: { readonly ptBR?: string; readonly en?: string } } | null;
  readonly cardAttempts: { readonly used: number; readonly remaining: number; readonly max: number } | null;
  readonly checkout: { readonly endedBy: string | null } | null;
  readonly card: { readonly brand: string | null; readonly last4: string } | null;
  readonly deviceFingerprint?: DeviceFingerprint | null;
}

/** The antifraud provider's script to load before the card is entered (scriptUrl may be a path on the service). */
export interface DeviceFingerprint {
  readonly provider: string;
  readonly sessionId: string;
  readonly scriptUrl: string;
}

export type NextAction =
  | { readonly type: 'pix'; readonly qrCode: string; readonly qrCodeImage: string; readonly expiresAt: string }
  | { readonly type: 'boleto'; readonly digitableLine: string; readonly barcode: string; readonly dueDate: string; readonly pdfUrl: string }
  | { readonly type: 'three_ds'; readonly [field: string]: unknown };

export interface VaultCard {
  readonly token: string;
  readonly brand: string;
  readonly bin: string;
  readonly last4: string;
}

/** A refusal in the contract's error shape (or a network failure: status 0). */
export class ApiRefusal extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly param: string | null = null,
    readonly retryAfterSeconds: number | null = null,
  ) {
    super(message);
  }
}

/** A fresh key per card attempt (spec: a repeated key replays the first answer). getRandomValues works on plain http too. */
export function newIdempotencyKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return `chk_${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}

export class PublicApi {
  constructor(
    private readonly baseUrl: string,
    private readonly paymentId: string,
    private readonly clientSecret: string,
  ) {}

  view(): Promise<PublicView> {
    return this.call('GET', '');
  }

  async tokenize(card: { number: string; cvv: string; expMonth: number; expYear: number; holderName: string }): Promise<VaultCard> {
    const session = await this.call<{ tokenizeUrl: string }>('POST', '/tokenization-session');
    return request<VaultCard>(session.tokenizeUrl, 'POST', { 'Service-Client-Secret': this.clientSecret }, card);
  }

  confirm(card: Record<string, unknown>): Promise<PublicView> {
    return this.call('POST', '/confirm', { card }, newIdempotencyKey());
  }

  threeDs(result: Record<string, unknown>): Promise<PublicView> {
    return this.call('POST', '/three-ds', result, newIdempotencyKey());
  }

  private call<T>(method: 'GET' | 'POST', suffix: string, body?: unknown, idempotencyKey?: string): Promise<T> {
    const headers: Record<string, string> = { 'Service-Client-Secret': this.clientSecret };
    if (idempotencyKey) headers['Idempotency-Key'] = idempotencyKey;
    return request<T>(`${this.baseUrl}/v1/public/payments/${encodeURIComponent(this.paymentId)}${suffix}`, method, headers, body);
  }
}

async function request<T>(url: string, method: string, headers: Record<string, string>, body?: unknown): Promise<T> {
  let response: Response;
  try {
    response = await fetch(url, {
      method,
      headers: body === undefined ? headers : { ...headers, 'Content-Type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      credentials: 'omit',
      cache: 'no-store',
      referrerPolicy: 'no-referrer',
    });
  } catch {
    throw new ApiRefusal(0, 'network_error', 'network');
  }
  const text = await response.text();
  let parsed: any = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = null;
  }
  if (response.ok) return parsed as T;
  const error = parsed?.error ?? {};
  const retryAfter = Number(response.headers.get('Retry-After'));
  throw new ApiRefusal(response.status, String(error.code ?? 'unexpected'), String(error.message ?? response.statusText), error.param ?? null, Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : null);
}
