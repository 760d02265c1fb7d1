import { brazilianDocumentType, onlyDigits } from '../shared/brazilian-document';
import { cloneJson } from '../shared/clone-json';
import { DomainError } from '../shared/domain-error';
import type { Environment } from '../shared/environment';

export const BANK_ACCOUNT_TYPES = ['checking', 'savings'] as const;
export type BankAccountType = (typeof BANK_ACCOUNT_TYPES)[number];

/** Where a recipient's share is paid (contract.md 7). Digits-only fields are stored as digits. */
export interface BankAccount {
  /** The bank's 3-digit COMPE code (e.g. 001, 341). */
  bankCode: string;
  /** 1 to 5 digits (agência, with its check digit when the bank has one). */
  branch: string;
  /** 1 to 20 digits, without the account's check digit. */
  account: string;
  /** 1 or 2 characters, digits or a letter (some banks use X). */
  accountDigit: string;
  type: BankAccountType;
  holderName: string;
  /** CPF or CNPJ, checksum-validated, digits. */
  holderDocument: string;
}

export type RecipientMetadata = Record<string, string | number | boolean | null>;

export interface RecipientPrimitives {
  id: string;
  organizationId: string;
  environment: Environment;
  name: string;
  /** CPF or CNPJ, checksum-validated, digits. */
  document: string;
  email: string | null;
  bankAccount: BankAccount;
  metadata: RecipientMetadata;
  createdAt: string;
  updatedAt: string;
}

/** What a merchant writes: name, document and bankAccount are required and cannot be cleared; email can. */
export interface RecipientFields {
  name: string;
  document: string;
  email?: string | null;
  bankAccount: BankAccount;
  metadata?: RecipientMetadata;
}

/** PATCH: omitted fields stay; null clears email; a metadata key set to null is removed. */
export interface RecipientPatch {
  name?: string;
  document?: string;
  email?: string | null;
  bankAccount?: BankAccount;
  metadata?: RecipientMetadata;
}

/** The attributes a merchant can change, as previousAttributes names them. */
const CHANGEABLE = ['name', 'document', 'email', 'bankAccount', 'metadata'] as const;
type Changeable = (typeof CHANGEABLE)[number];

export interface RecipientUpdatedEvent {
  readonly type: 'recipient.updated';
  readonly recipientId: string;
  readonly organizationId: string;
  readonly environment: Environment;
  readonly occurredAt: Date;
  /** Each changed attribute with its value before the change (the whole object for bankAccount and metadata). */
  readonly previousAttributes: Partial<Pick<RecipientPrimitives, Changeable>>;
  /** The recipient right after the change. */
  readonly recipient: RecipientPrimitives;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

function invalid(param: string, message: string): never {
  throw new DomainError('validation_failed', message, { param: `body.${param}` });
}

function validText(param: string, value: unknown, max: number): string {
  if (typeof value !== 'string' || value.trim().length < 1 || value.length > max) invalid(param, `${param} must have 1 to ${max} characters.`);
  return value.trim();
}

function validEmail(email: string | null | undefined): string | null {
  if (email === undefined || email === null) return null;
  if (typeof email !== 'string' || email.length > 255 || !EMAIL.test(email)) invalid('email', 'email must be a valid e-mail address.');
  return email.trim().toLowerCase();
}

function validDocument(param: string, document: unknown): string {
  if (typeof document !== 'string' || !brazilianDocumentType(document)) {
    invalid(param, `${param} must be a valid CPF (11 digits) or CNPJ (14 digits); check digits did not match.`);
  }
  return onlyDigits(document);
}

function digits(param: string, value: unknown, min: number, max: number): string {
  if (typeof value !== 'string' || !new RegExp(`^[0-9]{${min},${max}}$`).test(value)) {
    invalid(param, min === max ? `${param} must have exactly ${min} digits.` : `${param} must have ${min} to ${max} digits.`);
  }
  return value;
}

function validBankAccount(bankAccount: unknown): BankAccount {
  if (!bankAccount || typeof bankAccount !== 'object') invalid('bankAccount', 'bankAccount is required.');
  const b = bankAccount as Partial<BankAccount>;
  if (typeof b.accountDigit !== 'string' || !/^[0-9A-Za-z]{1,2}$/.test(b.accountDigit)) {
    invalid('bankAccount.accountDigit', 'bankAccount.accountDigit must have 1 or 2 digits or letters.');
  }
  if (!(BANK_ACCOUNT_TYPES as readonly unknown[]).includes(b.type)) invalid('bankAccount.type', 'bankAccount.type must be checking or savings.');
  return {
    bankCode: digits('bankAccount.bankCode', b.bankCode, 3, 3),
    branch: digits('bankAccount.branch', b.branch, 1, 5),
    account: digits('bankAccount.account', b.account, 1, 20),
    accountDigit: b.accountDigit.toUpperCase(),
    type: b.type as BankAccountType,
    holderName: validText('bankAccount.holderName', b.holderName, 120),
    holderDocument: validDocument('bankAccount.holderDocument', b.holderDocument),
  };
}

/**
 * Whether two JSON values are equal, whatever the order of their keys: a recipient read back from PostgreSQL has
 * its objects' keys in jsonb's order, not in the order they were written.
 */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null || Array.isArray(a) !== Array.isArray(b)) return false;
  const keysA = Object.keys(a);
  const keysB = Object.keys(b);
  if (keysA.length !== keysB.length) return false;
  return keysA.every((key) => Object.prototype.hasOwnProperty.call(b, key) && sameJson((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]));
}

/**
 * A split recipient (rcp_): who receives a share of a payment's splits, and the bank account the share is paid to.
 * Documents are checksum-validated CPF or CNPJ stored as digits. A change that alters something records
 * `recipient.updated` with the changed attributes' previous values; one that alters nothing records nothing.
 */
export class Recipient {
  private events: RecipientUpdatedEvent[] = [];

  private constructor(private state: RecipientPrimitives) {}

  static create(input: { id: string; organizationId: string; environment: Environment; now: Date } & RecipientFields): Recipient {
    const now = input.now.toISOString();
    return new Recipient({
      id: input.id,
      organizationId: input.organizationId,
      environment: input.environment,
      name: validText('name', input.name, 120),
      document: validDocument('document', input.document),
      email: validEmail(input.email),
      bankAccount: validBankAccount(input.bankAccount),
      metadata: cloneJson(input.metadata ?? {}),
      createdAt: now,
      updatedAt: now,
    });
  }

  static fromPrimitives(p: RecipientPrimitives): Recipient {
    return new Recipient(cloneJson(p));
  }

  toPrimitives(): RecipientPrimitives {
    return cloneJson(this.state);
  }

  get id(): string {
    return this.state.id;
  }

  pullEvents(): RecipientUpdatedEvent[] {
    const events = this.events;
    this.events = [];
    return events;
  }

  /**
   * PATCH semantics: omitted fields stay; null clears email (name, document and bankAccount cannot be cleared);
   * bankAccount is replaced whole; metadata keys merge, null removes one. Everything is validated before anything
   * changes. Returns whether something changed (then updatedAt moves and `recipient.updated` is recorded).
   */
  update(patch: RecipientPatch, now: Date): boolean {
    const next = cloneJson(this.state);
    if (patch.name !== undefined) next.name = validText('name', patch.name, 120);
    if (patch.document !== undefined) next.document = validDocument('document', patch.document);
    if (patch.email !== undefined) next.email = validEmail(patch.email);
    if (patch.bankAccount !== undefined) next.bankAccount = validBankAccount(patch.bankAccount);
    if (patch.metadata !== undefined) {
      for (const [key, value] of Object.entries(patch.metadata)) {
        if (value === null) delete next.metadata[key];
        else next.metadata[key] = value;
      }
    }
    const previousAttributes: Partial<Pick<RecipientPrimitives, Changeable>> = {};
    for (const key of CHANGEABLE) {
      if (!sameJson(this.state[key], next[key])) (previousAttributes as Record<string, unknown>)[key] = cloneJson(this.state[key]);
    }
    if (Object.keys(previousAttributes).length === 0) return false;
    next.updatedAt = now.toISOString();
    this.state = next;
    this.events.push({
      type: 'recipient.updated',
      recipientId: next.id,
      organizationId: next.organizationId,
      environment: next.environment,
      occurredAt: now,
      previousAttributes,
      recipient: cloneJson(next),
    });
    return true;
  }
}
