/**
 * CPF (11 digits, individuals) and CNPJ (14 digits, companies) check-digit validation. Inputs may carry the usual
 * punctuation ("123.456.789-09", "12.345.678/0001-95"); validation is on the digits. Sequences of one repeated
 * digit pass the arithmetic but are not issued, so they are refused.
 */
export type BrazilianDocumentType = 'cpf' | 'cnpj';

export function onlyDigits(value: string): string {
  return value.replace(/\D/g, '');
}

function checkDigit(digits: number[], weights: number[]): number {
  const sum = digits.reduce((acc, d, i) => acc + d * weights[i]!, 0);
  const rest = sum % 11;
  return rest < 2 ? 0 : 11 - rest;
}

export function isValidCpf(value: string): boolean {
  const raw = onlyDigits(value);
  if (raw.length !== 11 || /^(\d)\1{10}$/.test(raw)) return false;
  const d = [...raw].map(Number);
  const first = checkDigit(d.slice(0, 9), [10, 9, 8, 7, 6, 5, 4, 3, 2]);
  const second = checkDigit(d.slice(0, 10), [11, 10, 9, 8, 7, 6, 5, 4, 3, 2]);
  return first === d[9] && second === d[10];
}

export function isValidCnpj(value: string): boolean {
  const raw = onlyDigits(value);
  if (raw.length !== 14 || /^(\d)\1{13}$/.test(raw)) return false;
  const d = [...raw].map(Number);
  const first = checkDigit(d.slice(0, 12), [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]);
  const second = checkDigit(d.slice(0, 13), [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]);
  return first === d[12] && second === d[13];
}

/** Which kind of document this is, or null when it is neither a valid CPF nor a valid CNPJ. */
export function brazilianDocumentType(value: string): BrazilianDocumentType | null {
  if (isValidCpf(value)) return 'cpf';
  if (isValidCnpj(value)) return 'cnpj';
  return null;
}

export function isValidBrazilianDocument(value: string): boolean {
  return brazilianDocumentType(value) !== null;
}
