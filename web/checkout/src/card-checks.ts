/**
 * What the page checks before a card leaves for the vault: brand by BIN, Luhn, expiry and security code. The vault
 * checks again; these checks only spare the buyer a round trip and say which field is wrong. Pure: no DOM.
 */

export type CardBrand = 'elo' | 'hipercard' | 'visa' | 'mastercard' | 'amex' | 'diners' | 'unknown';

export const BRAND_LABELS: Record<CardBrand, string> = {
  elo: 'Elo',
  hipercard: 'Hipercard',
  visa: 'Visa',
  mastercard: 'Mastercard',
  amex: 'American Express',
  diners: 'Diners Club',
  unknown: '',
};

const ELO_BINS = new Set([401178, 401179, 431274, 438935, 451416, 457393, 457631, 457632, 504175, 627780, 636297, 636368]);
const ELO_RANGES: ReadonlyArray<readonly [number, number]> = [
  [506699, 506778],
  [509000, 509999],
  [650031, 650978],
  [651652, 651679],
  [655000, 655058],
];

/** Digits only: buyers type spaces and dashes. */
export function digitsOf(value: string): string {
  return value.replace(/\D/g, '');
}

/** The brand the number's first digits name. Elo and Hipercard come first: some of their BINs start like Visa's. */
export function detectBrand(number: string): CardBrand {
  const digits = digitsOf(number);
  const six = Number(digits.slice(0, 6).padEnd(6, '0'));
  const two = Number(digits.slice(0, 2));
  const four = Number(digits.slice(0, 4));
  if (digits.length >= 6 && (ELO_BINS.has(six) || ELO_RANGES.some(([low, high]) => six >= low && six <= high))) return 'elo';
  if (digits.startsWith('606282') || digits.startsWith('3841')) return 'hipercard';
  if (digits.startsWith('4')) return 'visa';
  if ((two >= 51 && two <= 55) || (digits.length >= 4 && four >= 2221 && four <= 2720)) return 'mastercard';
  if (two === 34 || two === 37) return 'amex';
  if (two === 36 || two === 38 || (four >= 3000 && four <= 3059)) return 'diners';
  return 'unknown';
}

export function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let digit = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return digits.length > 0 && sum % 10 === 0;
}

/** The number grouped as printed on the card (4-6-5 for American Express, groups of four otherwise). */
export function formatCardNumber(value: string): string {
  const digits = digitsOf(value).slice(0, 19);
  if (detectBrand(digits) === 'amex') return [digits.slice(0, 4), digits.slice(4, 10), digits.slice(10, 15)].filter(Boolean).join(' ');
  return digits.replace(/(\d{4})(?=\d)/g, '$1 ');
}

/** "MM/AA" as the buyer types it: the slash comes by itself. */
export function formatExpiry(value: string): string {
  const digits = digitsOf(value).slice(0, 4);
  return digits.length > 2 ? `${digits.slice(0, 2)}/${digits.slice(2)}` : digits;
}

export type CardField = 'number' | 'expiry' | 'cvv' | 'holderName';
export type CardProblem = 'required' | 'number_invalid' | 'expiry_invalid' | 'expiry_past' | 'cvv_invalid' | 'name_too_long';

export interface CardInput {
  readonly number: string;
  readonly expiry: string;
  readonly cvv: string;
  readonly holderName: string;
}

export interface CheckedCard {
  readonly number: string;
  readonly expMonth: number;
  readonly expYear: number;
  readonly cvv: string;
  readonly holderName: string;
  readonly brand: CardBrand;
}

export type CardCheck = { readonly ok: true; readonly card: CheckedCard } | { readonly ok: false; readonly problems: Partial<Record<CardField, CardProblem>> };

/** Every field's problem at once, so the buyer sees all of them; `now` is the buyer's clock (cards expire at month end). */
export function checkCard(input: CardInput, now: Date): CardCheck {
  const problems: Partial<Record<CardField, CardProblem>> = {};
  const number = digitsOf(input.number);
  const brand = detectBrand(number);
  if (number.length === 0) problems.number = 'required';
  else if (number.length < 13 || number.length > 19 || !luhnValid(number)) problems.number = 'number_invalid';

  const expiry = /^\s*(\d{1,2})\s*\/\s*(\d{2}|\d{4})\s*$/.exec(input.expiry);
  let expMonth = 0;
  let expYear = 0;
  if (input.expiry.trim() === '') problems.expiry = 'required';
  else if (!expiry) problems.expiry = 'expiry_invalid';
  else {
    expMonth = Number(expiry[1]);
    expYear = expiry[2]!.length === 2 ? 2000 + Number(expiry[2]) : Number(expiry[2]);
    if (expMonth < 1 || expMonth > 12 || expYear > 2099) problems.expiry = 'expiry_invalid';
    else if (expYear * 12 + expMonth < now.getFullYear() * 12 + now.getMonth() + 1) problems.expiry = 'expiry_past';
  }

  const cvv = input.cvv.trim();
  const cvvLength = brand === 'amex' ? 4 : 3;
  if (cvv === '') problems.cvv = 'required';
  else if (!new RegExp(`^\\d{${cvvLength}}$`).test(cvv)) problems.cvv = 'cvv_invalid';

  const holderName = input.holderName.trim().replace(/\s+/g, ' ');
  if (holderName === '') problems.holderName = 'required';
  else if (holderName.length > 120) problems.holderName = 'name_too_long';

  if (Object.keys(problems).length > 0) return { ok: false, problems };
  return { ok: true, card: { number, expMonth, expYear, cvv, holderName, brand } };
}
