/**
 * What a 3-D Secure authentication proves, read from the card network's ECI (Electronic Commerce Indicator), and the
 * three_ds node exit it leads to (contract.md 4: authenticated, failed, unavailable).
 *
 * Source: EMVCo 3-D Secure Protocol and Core Functions Specification v2.3 (ECI is set by the network, not EMVCo), and
 * the networks' programme guides: Visa Secure Program Guide (ECI 05 authenticated, 06 attempted, 07 not
 * authenticated) and Mastercard Identity Check Program Guide (ECI 02 authenticated, 01 attempted, 00 not
 * authenticated). Elo and American Express follow Visa's values. The two sets do not overlap, so an ECI whose card
 * brand is not known is still read without doubt.
 *
 * An attempted authentication is not the cardholder authenticating (the issuer did not take part): it leaves by
 * `unavailable`, where the flow decides; debit is charged only after `authenticated` (spec, creation rule 5).
 */

export type EciMeaning = 'authenticated' | 'attempted' | 'not_authenticated';
export type ThreeDsExit = 'authenticated' | 'failed' | 'unavailable';

/** The public three-ds body's outcome (spec: success, failure, unenrolled, disabled, error, unsupported_brand). */
export const THREE_DS_OUTCOMES = ['success', 'failure', 'unenrolled', 'disabled', 'error', 'unsupported_brand'] as const;
export type ThreeDsOutcome = (typeof THREE_DS_OUTCOMES)[number];

const VISA_STYLE: Readonly<Record<string, EciMeaning>> = { '05': 'authenticated', '06': 'attempted', '07': 'not_authenticated' };
const MASTERCARD_STYLE: Readonly<Record<string, EciMeaning>> = { '02': 'authenticated', '01': 'attempted', '00': 'not_authenticated' };

/** ECI values per card brand (lower-case, as payments keep it). */
export const ECI_TABLE: Readonly<Record<string, Readonly<Record<string, EciMeaning>>>> = {
  visa: VISA_STYLE,
  elo: VISA_STYLE,
  amex: VISA_STYLE,
  mastercard: MASTERCARD_STYLE,
};

/** A one-digit ECI ("5") is the same as its two-digit form ("05"). */
function normalizedEci(eci: string): string {
  const trimmed = eci.trim();
  return /^[0-9]$/.test(trimmed) ? `0${trimmed}` : trimmed;
}

/** What the ECI says for this brand; without a known brand, the network whose values include it; null when unknown. */
export function eciMeaning(eci: string | null | undefined, brand: string | null | undefined): EciMeaning | null {
  if (!eci) return null;
  const code = normalizedEci(eci);
  const table = brand ? ECI_TABLE[brand.toLowerCase()] : undefined;
  if (table) return table[code] ?? null;
  return VISA_STYLE[code] ?? MASTERCARD_STYLE[code] ?? null;
}

/**
 * The three_ds node exit for a result: a success counts only when its ECI says the cardholder authenticated (an
 * attempted or missing ECI cannot shift liability: unavailable); a network's "not authenticated" ECI is a failure
 * whatever the outcome says; the outcomes where 3DS could not run (unenrolled, disabled, error, unsupported_brand)
 * are unavailable.
 */
export function threeDsExitOf(input: { readonly outcome: ThreeDsOutcome; readonly eci?: string | null; readonly brand?: string | null }): ThreeDsExit {
  const meaning = eciMeaning(input.eci, input.brand);
  if (input.outcome === 'failure' || meaning === 'not_authenticated') return 'failed';
  if (input.outcome !== 'success') return 'unavailable';
  return meaning === 'authenticated' ? 'authenticated' : 'unavailable';
}
