/**
 * Client secrets of transparent checkout payments (spec: clientSecret; Authentication: Service-Client-Secret). The
 * secret is shown to the merchant while the checkout is open, so it is kept sealed (reversible only with the
 * credentials key), and a presented secret is checked against its SHA-256 in constant time.
 */
export interface IssuedClientSecret {
  /** The secret in clear: returned to the merchant, never stored. */
  readonly secret: string;
  /** Storable, opened only by `reveal`. */
  readonly sealed: string;
  /** Hex SHA-256 of the secret. */
  readonly sha256: string;
}

export interface CheckoutSecrets {
  /** A new random secret for the payment. */
  issue(paymentId: string): IssuedClientSecret;
  /** The payment's secret in clear (to show it to the merchant). */
  reveal(paymentId: string, sealed: string): string;
  /** Whether `presented` is the secret whose SHA-256 is `sha256`, compared in constant time. */
  matches(presented: string, sha256: string): boolean;
}
