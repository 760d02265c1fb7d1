/**
 * The platform's plan catalog: what a merchant may subscribe to and at what prices. The operator edits it as a
 * file (docs/billing.md); the service validates it at start, so a bad price never reaches an invoice. Money is in
 * integer cents of the catalog's currency.
 */
export const BILLING_INTERVALS = ['monthly', 'annual'] as const;
export type BillingInterval = (typeof BILLING_INTERVALS)[number];

/** Annual plans are prepaid: 12 months for the price of this many monthly fees (spec, Platform billing). */
export const ANNUAL_MONTHS_CHARGED = 10;

export interface Plan {
  readonly code: string;
  readonly name: string;
  /** Fee of one month, in cents. */
  readonly monthlyFeeCents: number;
  /** Production payments a month covered by the fee. */
  readonly includedPayments: number;
  /** Price of each production payment above the included ones, in cents. */
  readonly perPaymentCents: number;
}

export interface PaymentInstructions {
  readonly beneficiary: string;
  readonly pixKey?: string;
  readonly pixCopyPaste?: string;
  readonly boleto?: string;
  readonly bankAccount?: string;
}

export interface PlanCatalog {
  /** Bumped by the operator on every price change; a subscription names the version it accepted. */
  readonly version: number;
  readonly currency: string;
  /** Days between an invoice's issue and its due date. */
  readonly invoiceDueDays: number;
  readonly plans: readonly Plan[];
  /** How merchants pay an invoice, as the administration configured it; null: none shown (never invented). */
  readonly paymentInstructions: PaymentInstructions | null;
}

export function annualFeeCents(plan: Plan): number {
  return plan.monthlyFeeCents * ANNUAL_MONTHS_CHARGED;
}

export function findPlan(catalog: PlanCatalog, code: string): Plan | null {
  return catalog.plans.find((plan) => plan.code === code) ?? null;
}

/** A catalog file that cannot be used; the message names the field, so start-up refuses with one sentence. */
export class InvalidPlanCatalog extends Error {}

const MAX_CENTS = 9_999_999_999;

function record(value: unknown, where: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new InvalidPlanCatalog(`${where} must be an object`);
  return value as Record<string, unknown>;
}

function integer(value: unknown, where: string, min: number, max = MAX_CENTS): number {
  if (!Number.isInteger(value) || (value as number) < min || (value as number) > max) {
    throw new InvalidPlanCatalog(`${where} must be an integer from ${min} to ${max}`);
  }
  return value as number;
}

function text(value: unknown, where: string, pattern?: RegExp): string {
  if (typeof value !== 'string' || value.trim() === '' || (pattern && !pattern.test(value))) {
    throw new InvalidPlanCatalog(`${where} must be ${pattern ? `a string matching ${pattern}` : 'a non-empty string'}`);
  }
  return value;
}

function optionalText(value: unknown, where: string): string | undefined {
  return value === undefined ? undefined : text(value, where);
}

function parseInstructions(raw: unknown): PaymentInstructions | null {
  if (raw === undefined || raw === null) return null;
  const fields = record(raw, 'paymentInstructions');
  const instructions: PaymentInstructions = {
    beneficiary: text(fields.beneficiary, 'paymentInstructions.beneficiary'),
    ...optionalField('pixKey', optionalText(fields.pixKey, 'paymentInstructions.pixKey')),
    ...optionalField('pixCopyPaste', optionalText(fields.pixCopyPaste, 'paymentInstructions.pixCopyPaste')),
    ...optionalField('boleto', optionalText(fields.boleto, 'paymentInstructions.boleto')),
    ...optionalField('bankAccount', optionalText(fields.bankAccount, 'paymentInstructions.bankAccount')),
  };
  if (!instructions.pixKey && !instructions.pixCopyPaste && !instructions.boleto && !instructions.bankAccount) {
    throw new InvalidPlanCatalog('paymentInstructions must name at least one way to pay (pixKey, pixCopyPaste, boleto or bankAccount)');
  }
  return instructions;
}

function optionalField<K extends string>(key: K, value: string | undefined): Partial<Record<K, string>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, string>);
}

/** Validates a catalog as read from its file (parsed JSON); throws InvalidPlanCatalog naming the first bad field. */
export function parsePlanCatalog(raw: unknown): PlanCatalog {
  const fields = record(raw, 'the catalog');
  const version = integer(fields.version, 'version', 1, 2_147_483_647);
  const currency = text(fields.currency, 'currency', /^[A-Z]{3}$/);
  const invoiceDueDays = integer(fields.invoiceDueDays ?? 10, 'invoiceDueDays', 0, 90);
  if (!Array.isArray(fields.plans) || fields.plans.length === 0) throw new InvalidPlanCatalog('plans must be a non-empty array');
  const plans = fields.plans.map((entry, index): Plan => {
    const plan = record(entry, `plans[${index}]`);
    return {
      code: text(plan.code, `plans[${index}].code`, /^[a-z0-9][a-z0-9_-]{1,49}$/),
      name: text(plan.name, `plans[${index}].name`),
      monthlyFeeCents: integer(plan.monthlyFeeCents, `plans[${index}].monthlyFeeCents`, 0),
      includedPayments: integer(plan.includedPayments, `plans[${index}].includedPayments`, 0, 100_000_000),
      perPaymentCents: integer(plan.perPaymentCents, `plans[${index}].perPaymentCents`, 0),
    };
  });
  const codes = new Set<string>();
  for (const plan of plans) {
    if (codes.has(plan.code)) throw new InvalidPlanCatalog(`plans: code ${plan.code} is listed twice`);
    codes.add(plan.code);
  }
  return { version, currency, invoiceDueDays, plans, paymentInstructions: parseInstructions(fields.paymentInstructions) };
}
