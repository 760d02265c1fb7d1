/**
 * Sensitive card data is never accepted (spec, Authentication 8): card numbers and security codes reach the service
 * only as vault tokens, so none is ever stored, logged or sent on. This is where a card number or a CVV is told
 * apart from other input; callers name the fields and their params, these checks refuse with sensitive_card_data.
 */
import { DomainError } from '../shared/domain-error';

/** Field names that would carry a card number or security code; the payment API never takes them. */
export const SENSITIVE_CARD_FIELDS = ['number', 'cardNumber', 'card_number', 'pan', 'cvv', 'cvc', 'cvv2', 'securityCode', 'security_code'] as const;

/** A metadata key that names a card security code: its value can only be one, which no check of digits can tell. */
const SECURITY_CODE_KEY = /^(cvv2?|cvc2?|security[_-]?code)$/i;

/** Runs of digits, groups separated by one space or dash as cards are written ("4111 1111 1111 1111"). */
const DIGIT_RUNS = /\d(?:[ -]?\d)*/g;

/** 13 to 19 digits passing Luhn: a card number. */
export function isCardNumber(digits: string): boolean {
  if (!/^\d{13,19}$/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/** Whether a text carries a card number anywhere in it, e.g. pasted in a description or a metadata value. */
export function containsCardNumber(text: string): boolean {
  for (const run of text.match(DIGIT_RUNS) ?? []) if (isCardNumber(withoutSeparators(run))) return true;
  return false;
}

/** Whether a key names a card security code (cvv, cvc2, security_code ...). */
export function namesSecurityCode(key: string): boolean {
  return SECURITY_CODE_KEY.test(key);
}

/**
 * Refuses card-number and security-code fields in an object or its card, and a card number sent as the card's
 * token. `location` is the object's param ('body').
 */
export function refuseSensitiveCardData(object: Record<string, unknown>, location = 'body'): void {
  const check = (value: unknown, path: string) => {
    if (!value || typeof value !== 'object') return;
    for (const name of SENSITIVE_CARD_FIELDS) {
      if (Object.prototype.hasOwnProperty.call(value, name)) {
        throw new DomainError(
          'sensitive_card_data',
          `${path}.${name} is refused: the payment API never accepts card numbers or security codes (CVV). Tokenize the card in the vault and send card.token.`,
          { param: `${path}.${name}` },
        );
      }
    }
  };
  check(object, location);
  check(object.card, `${location}.card`);
  const token = (object.card as { token?: unknown } | undefined)?.token;
  if (typeof token === 'string' && isCardNumber(withoutSeparators(token))) {
    throw new DomainError(
      'sensitive_card_data',
      `${location}.card.token is a card number, not a vault token: the payment API never accepts card numbers. Tokenize the card in the vault and send its token.`,
      { param: `${location}.card.token` },
    );
  }
}

/**
 * Refuses a security code filed under a metadata key, then a card number written into any of the free-text fields
 * given as [param, value] (values that are not text are left alone). The caller chooses the fields: identifiers
 * the merchant picks are better left out (see the edge's freeTextFields).
 */
export function refuseCardDataInText(input: {
  metadata: Record<string, unknown> | undefined;
  metadataParam: string;
  freeText: ReadonlyArray<readonly [param: string, value: unknown]>;
}): void {
  for (const key of Object.keys(input.metadata ?? {})) {
    if (namesSecurityCode(key)) {
      const param = `${input.metadataParam}.${key}`;
      throw new DomainError('sensitive_card_data', `${param} is refused: the payment API never accepts card security codes (CVV), in metadata either.`, { param });
    }
  }
  for (const [param, value] of input.freeText) {
    if (typeof value === 'string' && containsCardNumber(value)) {
      throw new DomainError('sensitive_card_data', `${param} looks like it holds a card number; the payment API never accepts card numbers. Tokenize the card in the vault and send card.token.`, { param });
    }
  }
}

/** Card numbers are written with spaces or dashes between groups. */
function withoutSeparators(text: string): string {
  return text.replace(/[ -]/g, '');
}
