import { DomainError } from '../shared/domain-error';
import { isValidBrazilianDocument } from '../shared/brazilian-document';

/** The 27 federative-unit codes the spec accepts for company.address.state. */
export const BRAZILIAN_STATES = [
  'AC', 'AL', 'AP', 'AM', 'BA', 'CE', 'DF', 'ES', 'GO', 'MA', 'MT', 'MS', 'MG', 'PA',
  'PB', 'PR', 'PE', 'PI', 'RJ', 'RN', 'RS', 'RO', 'RR', 'SC', 'SP', 'SE', 'TO',
] as const;
export type BrazilianState = (typeof BRAZILIAN_STATES)[number];

export interface RegisterCompany {
  document: string;
  legalName: string;
  name: string;
  activity: string;
  website: string;
  address: {
    postalCode: string;
    line1: string;
    streetNumber: string;
    complement: string;
    neighborhood: string;
    city: string;
    state: string;
  };
}

export interface RegisterInput {
  name: string;
  email: string;
  password: string;
  phone: string;
  company: RegisterCompany;
  acceptedTerms: boolean;
  authorizedRepresentative: boolean;
}

/** Digits of a tax id as stored and compared (so "12.345.678/0001-95" and "12345678000195" are one company). */
export function normalizeDocument(document: string): string {
  return document.replace(/\D/g, '');
}

/** E-mail compared case-insensitively: one mailbox cannot open two trials by changing case. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/**
 * Rules of registration that a JSON Schema cannot say: the document checksum, the federative unit,
 * and the two declarations that must be true. Lengths and shapes are the edge schema's job.
 */
export function checkRegisterRules(input: RegisterInput): void {
  const details: Array<{ param: string; message: string }> = [];
  if (input.acceptedTerms !== true) {
    details.push({ param: 'body.acceptedTerms', message: 'The terms must be accepted' });
  }
  if (input.authorizedRepresentative !== true) {
    details.push({ param: 'body.authorizedRepresentative', message: 'The person registering must be an authorized representative' });
  }
  if (!isValidBrazilianDocument(input.company.document)) {
    details.push({ param: 'body.company.document', message: 'The document is not a valid CPF or CNPJ' });
  }
  if (!(BRAZILIAN_STATES as readonly string[]).includes(input.company.address.state)) {
    details.push({ param: 'body.company.address.state', message: 'The state must be one of the 27 federative-unit codes' });
  }
  if (!/^\d{5}-?\d{3}$/.test(input.company.address.postalCode)) {
    details.push({ param: 'body.company.address.postalCode', message: 'The postal code must be a CEP (8 digits)' });
  }
  if (details.length > 0) {
    throw new DomainError('validation_failed', details[0]!.message, { param: details[0]!.param, details });
  }
}
