/**
 * What the core can process today. An adapter may declare more (the sandbox acquirer already answers Pix and
 * boleto), but the catalog (GET /v1/connectors), GET /health and an account's effectiveCapabilities show only
 * what is also listed here, so a merchant never chooses a method the service would refuse.
 *
 * Whoever lands a capability in the core (debit_card, pix, boleto, browser_tokenization, three_ds...) adds it here
 * in the same change, with a REST test that the catalog now shows it (test/e2e/connectors/honest-capabilities.test.ts).
 */
export const SUPPORTED_CAPABILITIES = [
  /** Credit card payments: authorize, capture (automatic or manual), void. */
  'card',
  /** Full and partial refunds of a captured payment. */
  'refund',
  /** Capturing less than was authorized. */
  'partial_capture',
  /** Payments split between recipients. */
  'split',
  /** Zero-amount card verification of a saved payment method. */
  'zero_auth',
  /** Fraud analysis by an antifraud provider. */
  'antifraud',
  /** The transparent checkout: the buyer's card tokenized in the browser (sandbox vault), then confirmed. */
  'browser_tokenization',
  /** 3-D Secure at a flow's three_ds node: the buyer authenticates in the checkout, the ECI decides the exit (docs/checkout.md). */
  'three_ds',
  /** Debit cards: transparent checkout only, charged after the cardholder authenticates at a three_ds node. */
  'debit_card',
  /** Pix charges (BR Code), captured when the bank confirms them (docs/pix-boleto.md). */
  'pix',
  /** Boletos, captured when the bank confirms them (docs/pix-boleto.md). */
  'boleto',
] as const;

export type SupportedCapability = (typeof SUPPORTED_CAPABILITIES)[number];

const SUPPORTED: ReadonlySet<string> = new Set(SUPPORTED_CAPABILITIES);

/** The declared capabilities the core can process, in the order the adapter declared them. */
export function processableCapabilities(declared: readonly string[]): string[] {
  return declared.filter((capability) => SUPPORTED.has(capability));
}
