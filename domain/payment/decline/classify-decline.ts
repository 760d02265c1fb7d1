import type { DeclineClassification, RetryAction } from './decline-classification';
import { BRAND_OVERRIDES, CardNetwork, DECLINE_TABLE, UNKNOWN_CODE_FALLBACK } from './decline-table';

/**
 * Acquirers send the same code as "5", "05" or "005"; ABECS writes two characters. Anything else is kept as sent
 * (trimmed, upper-cased) so an unmapped code is still reported faithfully.
 */
export function normalizeRawCode(rawCode: string): string {
  const code = rawCode.trim().toUpperCase();
  if (/^\d$/.test(code)) return `0${code}`;
  if (/^0\d\d$/.test(code)) return code.slice(1);
  return code;
}

/** A card as far as its network goes: the brand the merchant sent and the first digits (BIN). */
export type CardIdentity = { readonly brand?: string | null; readonly bin?: string | null };

/**
 * The card's network: by the brand sent, else, with no brand, by the BIN where its ranges say it plainly (Visa 4,
 * Mastercard 51-55 and 2221-2720, American Express 34 and 37; Elo's and Hipercard's ranges are scattered, so a card
 * of theirs sent without its brand reads as unknown). Null when neither tells.
 */
export function cardNetwork(card: CardIdentity | string | null | undefined): CardNetwork | null {
  const { brand, bin } = typeof card === 'string' ? { brand: card, bin: null } : (card ?? {});
  const b = (brand ?? '').trim().toLowerCase();
  if (b) {
    if (b === 'visa' || b === 'elo' || b === 'amex' || b === 'hipercard') return b;
    if (b === 'mastercard' || b === 'master') return 'mastercard';
    if (b === 'american_express' || b === 'american express') return 'amex';
    if (b === 'hiper') return 'hipercard';
    return null;
  }
  if (!bin || !/^\d{4}/.test(bin)) return null;
  const prefix = Number(bin.slice(0, 4));
  if (bin.startsWith('4')) return 'visa';
  if ((prefix >= 5100 && prefix <= 5599) || (prefix >= 2221 && prefix <= 2720)) return 'mastercard';
  if (bin.startsWith('34') || bin.startsWith('37')) return 'amex';
  return null;
}

/**
 * Classifies an issuer return code. Never throws: an empty or unknown code gets the explicit fallback row
 * (UNMAPPED_DECLINE) carrying the raw code as received. With the card's network known (cardNetwork: its brand,
 * else its BIN), network-specific meanings apply (Hipercard follows Mastercard's column in the standard).
 */
export function classifyDecline(rawCode: string | null | undefined, card?: CardIdentity | string | null): DeclineClassification {
  const code = normalizeRawCode(rawCode ?? '');
  const network = cardNetwork(card);
  const column = network === 'hipercard' ? 'mastercard' : network;
  const override = column ? BRAND_OVERRIDES[column]?.[code] : undefined;
  if (override) return override;
  const row = DECLINE_TABLE.get(code);
  if (row) return row;
  return { ...UNKNOWN_CODE_FALLBACK, rawCode: code };
}

export interface DeclineTableCoverage {
  /** Distinct raw codes with a row (approvals included). */
  readonly codes: number;
  readonly declineCodes: number;
  readonly approvalCodes: number;
  /** Rows from the ABECS standard itself (including its Amex mapping). */
  readonly abecsCodes: number;
  readonly networkCodes: number;
  readonly reversible: number;
  readonly irreversible: number;
  readonly brandSpecificOverrides: number;
  readonly canonicalReasons: number;
  readonly byRetryAction: Partial<Record<RetryAction, number>>;
  readonly fallbackReason: string;
}

/** Real counts computed from the table, for GET /health. */
export function declineTableCoverage(): DeclineTableCoverage {
  const rows = [...DECLINE_TABLE.values()];
  const declines = rows.filter((r) => !r.approved);
  const byRetryAction: Partial<Record<RetryAction, number>> = {};
  for (const r of declines) byRetryAction[r.retryAction] = (byRetryAction[r.retryAction] ?? 0) + 1;
  return {
    codes: rows.length,
    declineCodes: declines.length,
    approvalCodes: rows.length - declines.length,
    abecsCodes: rows.filter((r) => r.source === 'abecs' || r.source === 'abecs_amex_mapping').length,
    networkCodes: rows.filter((r) => r.source === 'network').length,
    reversible: declines.filter((r) => r.reversibility === 'REVERSIBLE').length,
    irreversible: declines.filter((r) => r.reversibility === 'irreversible').length,
    brandSpecificOverrides: Object.values(BRAND_OVERRIDES).reduce((n, m) => n + Object.keys(m ?? {}).length, 0),
    canonicalReasons: new Set(declines.map((r) => r.reason)).size,
    byRetryAction,
    fallbackReason: UNKNOWN_CODE_FALLBACK.reason,
  };
}
