/**
 * The rules condition and switch nodes evaluate: a field of the payment, an operator and a value. Pure.
 * Fields are the flat projection routing looks at; `metadata.<key>` reads the merchant's metadata and
 * `variables.<name>` what a set_variable node wrote earlier on the same path.
 */

export type FactValue = string | number | boolean | null;

/** What a flow knows about the payment it routes. */
export interface FlowPaymentFacts {
  readonly amount: number;
  readonly currency: string;
  readonly installments: number;
  readonly methodType: string;
  readonly captureMethod: string;
  readonly initiator: string;
  readonly hasSplits: boolean;
  readonly customerId: string | null;
  readonly cardBrand: string | null;
  readonly cardBin: string | null;
  readonly metadata: Readonly<Record<string, FactValue>>;
}

type FieldKind = 'number' | 'string' | 'boolean';

export const FLOW_RULE_FIELDS: ReadonlyArray<{ field: string; kind: FieldKind | 'any'; description: string }> = [
  { field: 'amount', kind: 'number', description: 'Amount in cents' },
  { field: 'currency', kind: 'string', description: 'ISO currency code (BRL)' },
  { field: 'installments', kind: 'number', description: 'Number of installments' },
  { field: 'methodType', kind: 'string', description: 'card, debit_card, pix or boleto' },
  { field: 'captureMethod', kind: 'string', description: 'automatic or manual' },
  { field: 'initiator', kind: 'string', description: 'customer or merchant' },
  { field: 'hasSplits', kind: 'boolean', description: 'The payment carries split rules' },
  { field: 'customerId', kind: 'string', description: 'The customer id, null when none' },
  { field: 'card.brand', kind: 'string', description: 'Card brand in lower case (visa, mastercard, elo ...)' },
  { field: 'card.bin', kind: 'string', description: 'First 6 to 8 digits of the card' },
  { field: 'metadata.<key>', kind: 'any', description: "A key of the payment's metadata" },
  { field: 'variables.<name>', kind: 'any', description: 'A variable set by an earlier set_variable node' },
];

export const FLOW_RULE_OPERATORS: ReadonlyArray<{ operator: string; description: string; value: string }> = [
  { operator: 'eq', description: 'equals', value: 'a string, number or boolean' },
  { operator: 'neq', description: 'differs from', value: 'a string, number or boolean' },
  { operator: 'gt', description: 'greater than', value: 'a number' },
  { operator: 'gte', description: 'greater than or equal to', value: 'a number' },
  { operator: 'lt', description: 'less than', value: 'a number' },
  { operator: 'lte', description: 'less than or equal to', value: 'a number' },
  { operator: 'in', description: 'is one of', value: 'a list of strings or numbers' },
  { operator: 'not_in', description: 'is none of', value: 'a list of strings or numbers' },
  { operator: 'starts_with', description: 'starts with (text)', value: 'a string' },
  { operator: 'exists', description: 'is present (not null)', value: 'none' },
];

export interface FlowRule {
  field: string;
  operator: string;
  value?: unknown;
}

const NUMERIC = new Set(['gt', 'gte', 'lt', 'lte']);
const LISTS = new Set(['in', 'not_in']);

function fieldKind(field: string): FieldKind | 'any' | null {
  if (/^(metadata|variables)\.[A-Za-z0-9_.-]{1,64}$/.test(field)) return 'any';
  // `metadata.<key>` and `variables.<name>` are placeholders in the list, not fields.
  return FLOW_RULE_FIELDS.find((f) => f.field === field && f.kind !== 'any')?.kind ?? null;
}

const isScalar = (v: unknown): v is string | number | boolean => ['string', 'number', 'boolean'].includes(typeof v);

/** Why a rule cannot be evaluated, or null when it can. */
export function ruleProblem(rule: unknown): string | null {
  if (!rule || typeof rule !== 'object') return 'a rule is an object {field, operator, value}';
  const { field, operator, value } = rule as FlowRule;
  if (typeof field !== 'string') return 'field is required';
  const kind = fieldKind(field);
  if (kind === null) return `unknown field ${field}; fields are ${FLOW_RULE_FIELDS.map((f) => f.field).join(', ')}`;
  if (typeof operator !== 'string' || !FLOW_RULE_OPERATORS.some((o) => o.operator === operator)) {
    return `operator must be one of ${FLOW_RULE_OPERATORS.map((o) => o.operator).join(', ')}`;
  }
  if (operator === 'exists') return null;
  if (NUMERIC.has(operator)) {
    if (typeof value !== 'number') return `${operator} compares with a number`;
    if (kind !== 'number' && kind !== 'any') return `${field} is not a number`;
    return null;
  }
  if (LISTS.has(operator)) {
    return Array.isArray(value) && value.length > 0 && value.every((v) => typeof v === 'string' || typeof v === 'number') ? null : `${operator} needs a non-empty list of strings or numbers`;
  }
  if (operator === 'starts_with') {
    if (kind !== 'string' && kind !== 'any') return `${field} is not text`;
    return typeof value === 'string' ? null : 'starts_with needs a string';
  }
  return isScalar(value) ? null : `${operator} needs a string, number or boolean`;
}

function factOf(field: string, facts: FlowPaymentFacts, variables: ReadonlyMap<string, FactValue>): FactValue | undefined {
  if (field.startsWith('metadata.')) {
    // Own keys only: `metadata.constructor` must not find Object.prototype's.
    const key = field.slice('metadata.'.length);
    return Object.hasOwn(facts.metadata, key) ? facts.metadata[key] : undefined;
  }
  if (field.startsWith('variables.')) return variables.get(field.slice('variables.'.length));
  switch (field) {
    case 'card.brand':
      return facts.cardBrand?.toLowerCase() ?? null;
    case 'card.bin':
      return facts.cardBin;
    default:
      return (facts as unknown as Record<string, FactValue>)[field];
  }
}

/** Text comparisons ignore case: brands and codes are written many ways. */
const same = (a: FactValue | undefined, b: unknown) => (typeof a === 'string' && typeof b === 'string' ? a.toLowerCase() === b.toLowerCase() : a === b);

/** Evaluates a rule that `ruleProblem` accepted; a missing fact matches only neq and not_in. */
export function evaluateRule(rule: FlowRule, facts: FlowPaymentFacts, variables: ReadonlyMap<string, FactValue>): boolean {
  const actual = factOf(rule.field, facts, variables);
  const { operator, value } = rule;
  switch (operator) {
    case 'exists':
      return actual !== undefined && actual !== null;
    case 'eq':
      return same(actual, value);
    case 'neq':
      return !same(actual, value);
    case 'gt':
      return typeof actual === 'number' && actual > (value as number);
    case 'gte':
      return typeof actual === 'number' && actual >= (value as number);
    case 'lt':
      return typeof actual === 'number' && actual < (value as number);
    case 'lte':
      return typeof actual === 'number' && actual <= (value as number);
    case 'in':
      return (value as unknown[]).some((v) => same(actual, v));
    case 'not_in':
      return !(value as unknown[]).some((v) => same(actual, v));
    case 'starts_with':
      return typeof actual === 'string' && actual.toLowerCase().startsWith((value as string).toLowerCase());
    default:
      return false;
  }
}

/** A condition node's rules: one rule inline ({field, operator, value}) or {rules: [...], match: all|any}. */
export function conditionRules(data: Record<string, unknown>): { rules: unknown[]; match: 'all' | 'any' } {
  if (Array.isArray(data.rules)) return { rules: data.rules, match: data.match === 'any' ? 'any' : 'all' };
  return { rules: [data], match: 'all' };
}
