/**
 * Signs outgoing webhooks and creates endpoint secrets (spec: Events, Delivery, Signature).
 * The adapter lives in infrastructure/crypto so the domain holds no key material handling.
 */
export interface WebhookSigner {
  /**
   * Returns the Service-Signature header value `t=<ts>,v1=<hex>[,v1=<hex>]`: one v1 per secret, newest first,
   * each the hex HMAC-SHA256 of `${timestamp}.${rawBody}` keyed with the whole secret including `whsec_`.
   */
  sign(secretsNewestFirst: readonly string[], timestampSeconds: number, rawBody: string): string;
  /** A new `whsec_` secret with at least 192 bits of randomness. */
  generateSecret(): string;
}
