import type { UrlContext } from '../webhook/webhook-url';

export interface WebhookRequest {
  readonly url: string;
  /** Exactly the headers to send; the adapter adds only Host and Content-Length. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  readonly timeoutMs: number;
  /** Decides which resolved addresses may be connected to (spec: URL rules 3). */
  readonly urlContext: UrlContext;
}

export interface WebhookResponse {
  /** HTTP status, or null when no answer arrived (connection error, timeout, blocked address). */
  readonly status: number | null;
  /** At most the first 8 KB + 1 byte is read; the domain truncates and flags it. */
  readonly body: string | null;
  readonly error: string | null;
  readonly startedAt: Date;
  readonly durationMs: number;
}

/**
 * Sends one webhook POST. Never throws for a failed delivery: every outcome is data. Redirects are not
 * followed; every resolved address is checked at connection time so DNS rebinding cannot reach the network inside.
 */
export interface WebhookSender {
  send(request: WebhookRequest): Promise<WebhookResponse>;
}
