import { brazilianDocumentType, onlyDigits } from '../shared/brazilian-document';
import { DomainError } from '../shared/domain-error';
import type { Environment } from '../shared/environment';
import { cloneJson } from '../shared/clone-json';

export const BRAZILIAN_UFS = [
  'AC', 'AL', 'AP', 'AM', 'BA', 'CE', 'DF', 'ES', 'GO', 'MA', 'MT', 'MS', 'MG', 'PA',
  'PB', 'PR', 'PE', 'PI', 'RJ', 'RN', 'RS', 'RO', 'RR', 'SC', 'SP', 'SE', 'TO',
] as const;

/** The spec's address object (contract.md section 4). */
export interface Address {
  postalCode: string;
  line1: string;
  streetNumber: string;
  complement: string | null;
  neighborhood: string;
  city: string;
  state: string;
}

export type CustomerMetadata = Record<string, string | number | boolean | null>;

export interface CustomerPrimitives {
  id: string;
  organizationId: string;
  environment: Environment;
  name: string;
  email: string | null;
  /** Digits only. */
  document: string | null;
  documentType: 'cpf' | 'cnpj' | null;
  phone: string | null;
  birthDate: string | null;
  address: Address | null;
  billingAddress: Address | null;
  shippingAddress: Address | null;
  metadata: CustomerMetadata;
  createdAt: string;
  updatedAt: string;
}

export interface CustomerFields {
  name: string;
  email?: string | null;
  document?: string | null;
  phone?: string | null;
  birthDate?: string | null;
  address?: Address | null;
  billingAddress?: Address | null;
  shippingAddress?: Address | null;
  metadata?: CustomerMetadata;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

function invalid(param: string, message: string): never {
  throw new DomainError('validation_failed', message, { param: `body.${param}` });
}

function validName(name: unknown): string {
  if (typeof name !== 'string' || name.trim().length < 1 || name.length > 120) invalid('name', 'name must have 1 to 120 characters.');
  return name.trim();
}

function validEmail(email: string | null | undefined): string | null {
  if (email === undefined || email === null) return null;
  if (email.length > 255 || !EMAIL.test(email)) invalid('email', 'email must be a valid e-mail address.');
  return email.trim().toLowerCase();
}

function validDocument(document: string | null | undefined): { document: string | null; documentType: 'cpf' | 'cnpj' | null } {
  if (document === undefined || document === null) return { document: null, documentType: null };
  const type = brazilianDocumentType(document);
  if (!type) invalid('document', 'document must be a valid CPF (11 digits) or CNPJ (14 digits); check digits did not match.');
  return { document: onlyDigits(document), documentType: type };
}

/** A real calendar date, YYYY-MM-DD, not in the future. */
function validBirthDate(value: string | null | undefined, now: Date): string | null {
  if (value === undefined || value === null) return null;
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  const date = match ? new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]))) : null;
  if (!date || date.toISOString().slice(0, 10) !== value) invalid('birthDate', 'birthDate must be a real date written YYYY-MM-DD.');
  if (date.getTime() > now.getTime()) invalid('birthDate', 'birthDate cannot be in the future.');
  return value;
}

function validAddress(param: string, address: Address | null | undefined): Address | null {
  if (address === undefined || address === null) return null;
  const postalCode = onlyDigits(address.postalCode ?? '');
  if (postalCode.length !== 8) invalid(`${param}.postalCode`, 'postalCode must have 8 digits (CEP).');
  if (!(BRAZILIAN_UFS as readonly string[]).includes(address.state)) invalid(`${param}.state`, 'state must be one of the 27 federative-unit codes.');
  for (const field of ['line1', 'streetNumber', 'neighborhood', 'city'] as const) {
    if (typeof address[field] !== 'string' || address[field].trim() === '') invalid(`${param}.${field}`, `${field} is required.`);
  }
  return { ...address, postalCode, complement: address.complement ?? null };
}

function validPhone(phone: string | null | undefined): string | null {
  if (phone === undefined || phone === null) return null;
  if (!/^\+?[\d\s()-]{8,32}$/.test(phone)) invalid('phone', 'phone must have 8 to 32 digits, spaces, parentheses or hyphens.');
  return phone;
}

/** A merchant's customer. Documents are checksum-validated CPF or CNPJ and stored as digits. */
export class Customer {
  private constructor(private state: CustomerPrimitives) {}

  static create(input: { id: string; organizationId: string; environment: Environment; now: Date } & CustomerFields): Customer {
    const now = input.now.toISOString();
    return new Customer({
      id: input.id,
      organizationId: input.organizationId,
      environment: input.environment,
      name: validName(input.name),
      email: validEmail(input.email),
      ...validDocument(input.document),
      phone: validPhone(input.phone),
      birthDate: validBirthDate(input.birthDate, input.now),
      address: validAddress('address', input.address),
      billingAddress: validAddress('billingAddress', input.billingAddress),
      shippingAddress: validAddress('shippingAddress', input.shippingAddress),
      metadata: cloneJson(input.metadata ?? {}),
      createdAt: now,
      updatedAt: now,
    });
  }

  static fromPrimitives(p: CustomerPrimitives): Customer {
    return new Customer(cloneJson(p));
  }

  toPrimitives(): CustomerPrimitives {
    return cloneJson(this.state);
  }

  get id(): string {
    return this.state.id;
  }

  /** PATCH semantics: omitted fields stay; null clears an optional field; metadata keys merge, null removes one. */
  update(patch: Partial<CustomerFields>, now: Date): void {
    const s = this.state;
    if (patch.name !== undefined) s.name = validName(patch.name);
    if (patch.email !== undefined) s.email = validEmail(patch.email);
    if (patch.document !== undefined) Object.assign(s, validDocument(patch.document));
    if (patch.phone !== undefined) s.phone = validPhone(patch.phone);
    if (patch.birthDate !== undefined) s.birthDate = validBirthDate(patch.birthDate, now);
    if (patch.address !== undefined) s.address = validAddress('address', patch.address);
    if (patch.billingAddress !== undefined) s.billingAddress = validAddress('billingAddress', patch.billingAddress);
    if (patch.shippingAddress !== undefined) s.shippingAddress = validAddress('shippingAddress', patch.shippingAddress);
    if (patch.metadata !== undefined) {
      for (const [key, value] of Object.entries(patch.metadata)) {
        if (value === null) delete s.metadata[key];
        else s.metadata[key] = value;
      }
    }
    s.updatedAt = now.toISOString();
  }

  /** Pix and boleto need a name and a valid document; boleto also the full address (spec, creation rule 2). */
  assertChargeableBy(methodType: 'pix' | 'boleto'): void {
    if (!this.state.document) {
      throw new DomainError('customer_incomplete', `A ${methodType} payment needs a customer with a valid CPF or CNPJ.`, { param: 'body.customerId' });
    }
    if (methodType === 'boleto' && !(this.state.billingAddress ?? this.state.address)) {
      throw new DomainError('customer_incomplete', 'A boleto payment needs a customer with a full address.', { param: 'body.customerId' });
    }
  }
}
