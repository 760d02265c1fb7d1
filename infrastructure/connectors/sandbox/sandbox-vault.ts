import { randomBytes } from 'node:crypto';
import type { SandboxScenarioName } from './scenarios';

/**
 * The sandbox card vault's rules (contract.md 5, browser tokenization): a card number becomes a vault token whose
 * name carries the test scenario, so the sandbox acquirer later answers as the test number promises. The core never
 * sees the number: the browser posts it here, and only the token travels on.
 */
export const SANDBOX_TEST_CARDS: Readonly<Record<string, SandboxScenarioName>> = {
  '4111111111111111': 'approved',
  '4000000000009995': 'insufficient_funds',
  '4000000000000069': 'expired_card',
  '4000000000000119': 'processing_error',
  '4000000000003220': 'three_ds',
  '4000000000000259': 'fraud_review',
};

export interface CardInput {
  readonly number: string;
  readonly cvv: string;
  readonly expMonth: number;
  readonly expYear: number;
  readonly holderName?: string;
}

export interface VaultToken {
  readonly token: string;
  readonly brand: string;
  readonly bin: string;
  readonly last4: string;
}

export type VaultRefusal = { readonly param: string; readonly message: string };

export function luhnValid(number: string): boolean {
  let sum = 0;
  for (let i = 0; i < number.length; i++) {
    let digit = Number(number[number.length - 1 - i]);
    if (i % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}

/** Brand by BIN range (the common Brazilian brands; anything else is `unknown`). */
export function brandOf(number: string): string {
  const six = Number(number.slice(0, 6));
  const two = Number(number.slice(0, 2));
  const four = Number(number.slice(0, 4));
  if ([401178, 401179, 431274, 438935, 451416, 457393, 504175, 627780, 636297, 636368].includes(six) || (six >= 506699 && six <= 506778) || (six >= 509000 && six <= 509999) || (six >= 650031 && six <= 650978)) {
    return 'elo';
  }
  if (six === 606282 || four === 3841) return 'hipercard';
  if (number.startsWith('4')) return 'visa';
  if ((two >= 51 && two <= 55) || (four >= 2221 && four <= 2720)) return 'mastercard';
  if (two === 34 || two === 37) return 'amex';
  return 'unknown';
}

/** Checks a card as a vault would; returns the refusals (empty when acceptable). */
export function cardRefusals(card: CardInput, now: Date): VaultRefusal[] {
  const refusals: VaultRefusal[] = [];
  if (!/^\d{13,19}$/.test(card.number)) refusals.push({ param: 'number', message: 'must be 13 to 19 digits' });
  else if (!luhnValid(card.number)) refusals.push({ param: 'number', message: 'is not a valid card number' });
  if (!/^\d{3,4}$/.test(card.cvv)) refusals.push({ param: 'cvv', message: 'must be 3 or 4 digits' });
  if (!Number.isInteger(card.expMonth) || card.expMonth < 1 || card.expMonth > 12) refusals.push({ param: 'expMonth', message: 'must be 1 to 12' });
  if (!Number.isInteger(card.expYear) || card.expYear < 2000 || card.expYear > 2099) {
    refusals.push({ param: 'expYear', message: 'must be a four-digit year' });
  } else if (card.expYear * 12 + card.expMonth < now.getUTCFullYear() * 12 + now.getUTCMonth() + 1) {
    refusals.push({ param: 'expYear', message: 'the card has expired' });
  }
  if (card.holderName !== undefined && card.holderName.length > 120) refusals.push({ param: 'holderName', message: 'must be at most 120 characters' });
  return refusals;
}

/** The token for an accepted card: `tok_sandbox_<scenario>_<random>` (approved for numbers outside the test table). */
export function tokenizeCard(card: CardInput): VaultToken {
  const scenario = SANDBOX_TEST_CARDS[card.number] ?? 'approved';
  return {
    token: `tok_sandbox_${scenario}_${randomBytes(12).toString('hex')}`,
    brand: brandOf(card.number),
    bin: card.number.slice(0, 6),
    last4: card.number.slice(-4),
  };
}
