import { expect } from 'chai';
import { FLOW_RULE_OPERATORS, FactValue, FlowRule, conditionRules, evaluateRule, ruleProblem } from '../../../../domain/flow/flow-rules';
import { facts } from './fixtures';

const noVariables = new Map<string, FactValue>();

describe('flow rules', () => {
  describe('ruleProblem', () => {
    // null: valid; a RegExp: the problem it names.
    const cases: Array<{ name: string; rule: unknown; expected: null | RegExp }> = [
      // the shape of a rule
      { name: 'null is not a rule', rule: null, expected: /a rule is an object/ },
      { name: 'a string is not a rule', rule: 'amount gt 5', expected: /a rule is an object/ },
      { name: 'a number is not a rule', rule: 5, expected: /a rule is an object/ },
      { name: 'field missing', rule: { operator: 'eq', value: 1 }, expected: /field is required/ },
      { name: 'field not a string', rule: { field: 5, operator: 'eq', value: 1 }, expected: /field is required/ },
      { name: 'unknown field', rule: { field: 'cardholder', operator: 'eq', value: 'x' }, expected: /unknown field cardholder; fields are amount, currency/ },
      { name: 'card (without .brand) is unknown', rule: { field: 'card', operator: 'exists' }, expected: /unknown field card/ },
      { name: 'metadata. without a key is unknown', rule: { field: 'metadata.', operator: 'exists' }, expected: /unknown field metadata\./ },
      { name: 'metadata key of 65 chars is unknown', rule: { field: `metadata.${'k'.repeat(65)}`, operator: 'exists' }, expected: /unknown field/ },
      { name: 'metadata key of 64 chars is known', rule: { field: `metadata.${'k'.repeat(64)}`, operator: 'exists' }, expected: null },
      { name: 'metadata key with a space is unknown', rule: { field: 'metadata.my key', operator: 'exists' }, expected: /unknown field/ },
      { name: 'metadata key with dots and dashes', rule: { field: 'metadata.order.sub-id_1', operator: 'exists' }, expected: null },
      { name: 'variables.<name>', rule: { field: 'variables.tier', operator: 'eq', value: 'gold' }, expected: null },
      { name: 'operator missing', rule: { field: 'amount', value: 5 }, expected: /operator must be one of eq, neq, gt, gte, lt, lte, in, not_in, starts_with, exists/ },
      { name: 'unknown operator', rule: { field: 'amount', operator: 'contains', value: 5 }, expected: /operator must be one of/ },
      { name: 'operator is case sensitive', rule: { field: 'amount', operator: 'EQ', value: 5 }, expected: /operator must be one of/ },

      // exists: any field, no value
      { name: 'exists on a string field', rule: { field: 'customerId', operator: 'exists' }, expected: null },
      { name: 'exists on a number field', rule: { field: 'amount', operator: 'exists' }, expected: null },
      { name: 'exists ignores a value', rule: { field: 'card.bin', operator: 'exists', value: [1, 2] }, expected: null },

      // numeric operators: a number value, a number or any field
      ...(['gt', 'gte', 'lt', 'lte'] as const).flatMap((op) => [
        { name: `${op} on amount with a number`, rule: { field: 'amount', operator: op, value: 100 }, expected: null },
        { name: `${op} on installments with 0`, rule: { field: 'installments', operator: op, value: 0 }, expected: null },
        { name: `${op} on metadata (any) with a number`, rule: { field: 'metadata.score', operator: op, value: 10 }, expected: null },
        { name: `${op} on variables (any) with a number`, rule: { field: 'variables.n', operator: op, value: 10 }, expected: null },
        { name: `${op} with a numeric string`, rule: { field: 'amount', operator: op, value: '100' }, expected: new RegExp(`${op} compares with a number`) },
        { name: `${op} without a value`, rule: { field: 'amount', operator: op }, expected: new RegExp(`${op} compares with a number`) },
        { name: `${op} on a string field`, rule: { field: 'currency', operator: op, value: 1 }, expected: /currency is not a number/ },
        { name: `${op} on a boolean field`, rule: { field: 'hasSplits', operator: op, value: 1 }, expected: /hasSplits is not a number/ },
        { name: `${op} on card.bin`, rule: { field: 'card.bin', operator: op, value: 411111 }, expected: /card.bin is not a number/ },
      ]),

      // lists
      ...(['in', 'not_in'] as const).flatMap((op) => [
        { name: `${op} with strings`, rule: { field: 'card.brand', operator: op, value: ['visa', 'elo'] }, expected: null },
        { name: `${op} with numbers`, rule: { field: 'installments', operator: op, value: [1, 2, 3] }, expected: null },
        { name: `${op} with mixed strings and numbers`, rule: { field: 'metadata.x', operator: op, value: ['a', 1] }, expected: null },
        { name: `${op} with an empty list`, rule: { field: 'currency', operator: op, value: [] }, expected: new RegExp(`${op} needs a non-empty list of strings or numbers`) },
        { name: `${op} with a scalar`, rule: { field: 'currency', operator: op, value: 'BRL' }, expected: /needs a non-empty list/ },
        { name: `${op} with a boolean in the list`, rule: { field: 'currency', operator: op, value: ['BRL', true] }, expected: /needs a non-empty list/ },
        { name: `${op} with null in the list`, rule: { field: 'currency', operator: op, value: [null] }, expected: /needs a non-empty list/ },
      ]),

      // starts_with
      { name: 'starts_with on card.bin with a string', rule: { field: 'card.bin', operator: 'starts_with', value: '4111' }, expected: null },
      { name: 'starts_with on metadata with a string', rule: { field: 'metadata.channel', operator: 'starts_with', value: 'we' }, expected: null },
      { name: 'starts_with with a number', rule: { field: 'card.bin', operator: 'starts_with', value: 4111 }, expected: /starts_with needs a string/ },
      { name: 'starts_with without a value', rule: { field: 'card.bin', operator: 'starts_with' }, expected: /starts_with needs a string/ },

      // eq / neq: a scalar
      ...(['eq', 'neq'] as const).flatMap((op) => [
        { name: `${op} with a string`, rule: { field: 'currency', operator: op, value: 'BRL' }, expected: null },
        { name: `${op} with a number`, rule: { field: 'installments', operator: op, value: 3 }, expected: null },
        { name: `${op} with a boolean`, rule: { field: 'hasSplits', operator: op, value: true }, expected: null },
        { name: `${op} with an empty string`, rule: { field: 'customerId', operator: op, value: '' }, expected: null },
        { name: `${op} with null`, rule: { field: 'customerId', operator: op, value: null }, expected: new RegExp(`${op} needs a string, number or boolean`) },
        { name: `${op} without a value`, rule: { field: 'customerId', operator: op }, expected: /needs a string, number or boolean/ },
        { name: `${op} with a list`, rule: { field: 'currency', operator: op, value: ['BRL'] }, expected: /needs a string, number or boolean/ },
        { name: `${op} with an object`, rule: { field: 'currency', operator: op, value: { v: 'BRL' } }, expected: /needs a string, number or boolean/ },
      ]),
    ];

    for (const c of cases) {
      it(`${c.name} -> ${c.expected === null ? 'valid' : c.expected.source}`, () => {
        const problem = ruleProblem(c.rule);
        if (c.expected === null) expect(problem).to.equal(null);
        else expect(problem).to.be.a('string').and.match(c.expected);
      });
    }

    it('every documented field is accepted by exists (placeholders in their concrete form)', () => {
      for (const field of ['amount', 'currency', 'installments', 'methodType', 'captureMethod', 'initiator', 'hasSplits', 'customerId', 'card.brand', 'card.bin', 'metadata.k', 'variables.v']) {
        expect(ruleProblem({ field, operator: 'exists' }), field).to.equal(null);
      }
    });

    it('every documented operator is known', () => {
      expect(FLOW_RULE_OPERATORS.map((o) => o.operator)).to.deep.equal(['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'in', 'not_in', 'starts_with', 'exists']);
    });

    it('the placeholder field names themselves are not fields', () => {
      expect(ruleProblem({ field: 'metadata.<key>', operator: 'eq', value: 'x' })).to.match(/unknown field/);
      expect(ruleProblem({ field: 'variables.<name>', operator: 'exists' })).to.match(/unknown field/);
    });

    it('starts_with on a number or boolean field is refused', () => {
      expect(ruleProblem({ field: 'amount', operator: 'starts_with', value: '1' })).to.be.a('string');
      expect(ruleProblem({ field: 'hasSplits', operator: 'starts_with', value: 't' })).to.be.a('string');
    });
  });

  describe('evaluateRule', () => {
    const base = facts();
    const cases: Array<{ name: string; rule: FlowRule; facts?: Parameters<typeof facts>[0]; variables?: Record<string, FactValue>; expected: boolean }> = [
      // eq / neq
      { name: 'eq number, equal', rule: { field: 'amount', operator: 'eq', value: 10_000 }, expected: true },
      { name: 'eq number, different', rule: { field: 'amount', operator: 'eq', value: 9_999 }, expected: false },
      { name: 'eq does not coerce "10000" to 10000', rule: { field: 'amount', operator: 'eq', value: '10000' }, expected: false },
      { name: 'eq text ignores case', rule: { field: 'currency', operator: 'eq', value: 'brl' }, expected: true },
      { name: 'eq text, different', rule: { field: 'currency', operator: 'eq', value: 'USD' }, expected: false },
      { name: 'eq boolean true', rule: { field: 'hasSplits', operator: 'eq', value: false }, expected: true },
      { name: 'eq boolean, different', rule: { field: 'hasSplits', operator: 'eq', value: true }, expected: false },
      { name: 'eq card.brand (stored "Visa") with VISA', rule: { field: 'card.brand', operator: 'eq', value: 'VISA' }, expected: true },
      { name: 'eq metadata text ignores case', rule: { field: 'metadata.tier', operator: 'eq', value: 'gold' }, expected: true },
      { name: 'eq metadata boolean', rule: { field: 'metadata.vip', operator: 'eq', value: true }, expected: true },
      { name: 'eq on a missing metadata key is false', rule: { field: 'metadata.absent', operator: 'eq', value: 'x' }, expected: false },
      { name: 'eq on a null fact is false', rule: { field: 'customerId', operator: 'eq', value: 'cus_1' }, facts: { customerId: null }, expected: false },
      { name: 'neq text ignores case', rule: { field: 'currency', operator: 'neq', value: 'brl' }, expected: false },
      { name: 'neq text, different', rule: { field: 'currency', operator: 'neq', value: 'USD' }, expected: true },
      { name: 'neq number, equal', rule: { field: 'installments', operator: 'neq', value: 1 }, expected: false },
      { name: 'neq on a missing metadata key is true', rule: { field: 'metadata.absent', operator: 'neq', value: 'x' }, expected: true },
      { name: 'neq on a null card brand is true', rule: { field: 'card.brand', operator: 'neq', value: 'visa' }, facts: { cardBrand: null }, expected: true },

      // numeric
      { name: 'gt above', rule: { field: 'amount', operator: 'gt', value: 9_999 }, expected: true },
      { name: 'gt equal', rule: { field: 'amount', operator: 'gt', value: 10_000 }, expected: false },
      { name: 'gte equal', rule: { field: 'amount', operator: 'gte', value: 10_000 }, expected: true },
      { name: 'gte below', rule: { field: 'amount', operator: 'gte', value: 10_001 }, expected: false },
      { name: 'lt below', rule: { field: 'amount', operator: 'lt', value: 10_001 }, expected: true },
      { name: 'lt equal', rule: { field: 'amount', operator: 'lt', value: 10_000 }, expected: false },
      { name: 'lte equal', rule: { field: 'amount', operator: 'lte', value: 10_000 }, expected: true },
      { name: 'lte above', rule: { field: 'amount', operator: 'lte', value: 9_999 }, expected: false },
      { name: 'gt on numeric metadata', rule: { field: 'metadata.score', operator: 'gt', value: 40 }, expected: true },
      { name: 'gt on text metadata is false', rule: { field: 'metadata.channel', operator: 'gt', value: 0 }, expected: false },
      { name: 'gt on a numeric string is false (no coercion)', rule: { field: 'metadata.n', operator: 'gt', value: 1 }, facts: { metadata: { n: '5' } }, expected: false },
      ...(['gt', 'gte', 'lt', 'lte'] as const).map((op) => ({ name: `${op} on a missing metadata key is false`, rule: { field: 'metadata.absent', operator: op, value: 0 }, expected: false })),

      // lists
      { name: 'in, listed', rule: { field: 'installments', operator: 'in', value: [1, 2] }, expected: true },
      { name: 'in, not listed', rule: { field: 'installments', operator: 'in', value: [3, 6] }, expected: false },
      { name: 'in text ignores case', rule: { field: 'card.brand', operator: 'in', value: ['ELO', 'VISA'] }, expected: true },
      { name: 'in does not coerce numbers and strings', rule: { field: 'installments', operator: 'in', value: ['1'] }, expected: false },
      { name: 'in on a missing metadata key is false', rule: { field: 'metadata.absent', operator: 'in', value: ['a'] }, expected: false },
      { name: 'not_in, listed', rule: { field: 'currency', operator: 'not_in', value: ['USD', 'brl'] }, expected: false },
      { name: 'not_in, not listed', rule: { field: 'currency', operator: 'not_in', value: ['USD', 'EUR'] }, expected: true },
      { name: 'not_in on a missing metadata key is true', rule: { field: 'metadata.absent', operator: 'not_in', value: ['a'] }, expected: true },

      // starts_with
      { name: 'starts_with on the bin', rule: { field: 'card.bin', operator: 'starts_with', value: '4111' }, expected: true },
      { name: 'starts_with, other prefix', rule: { field: 'card.bin', operator: 'starts_with', value: '5' }, expected: false },
      { name: 'starts_with ignores case', rule: { field: 'metadata.tier', operator: 'starts_with', value: 'GO' }, expected: true },
      { name: 'starts_with on a null bin is false', rule: { field: 'card.bin', operator: 'starts_with', value: '4' }, facts: { cardBin: null }, expected: false },
      { name: 'starts_with on a number fact is false', rule: { field: 'metadata.score', operator: 'starts_with', value: '4' }, expected: false },
      { name: 'starts_with on a missing metadata key is false', rule: { field: 'metadata.absent', operator: 'starts_with', value: '' }, expected: false },

      // exists
      { name: 'exists on a present field', rule: { field: 'customerId', operator: 'exists' }, expected: true },
      { name: 'exists on a null field', rule: { field: 'customerId', operator: 'exists' }, facts: { customerId: null }, expected: false },
      { name: 'exists on false is true (present, not null)', rule: { field: 'hasSplits', operator: 'exists' }, expected: true },
      { name: 'exists on 0 is true', rule: { field: 'metadata.zero', operator: 'exists' }, facts: { metadata: { zero: 0 } }, expected: true },
      { name: 'exists on a null metadata value', rule: { field: 'metadata.k', operator: 'exists' }, facts: { metadata: { k: null } }, expected: false },
      { name: 'exists on a missing metadata key', rule: { field: 'metadata.absent', operator: 'exists' }, expected: false },
      { name: 'exists on a null card brand', rule: { field: 'card.brand', operator: 'exists' }, facts: { cardBrand: null }, expected: false },

      // dotted metadata keys
      { name: 'metadata key with a dot', rule: { field: 'metadata.order.kind', operator: 'eq', value: 'b2b' }, facts: { metadata: { 'order.kind': 'B2B' } }, expected: true },

      // variables
      { name: 'variables.x eq', rule: { field: 'variables.tier', operator: 'eq', value: 'gold' }, variables: { tier: 'Gold' }, expected: true },
      { name: 'variables.x gt', rule: { field: 'variables.n', operator: 'gt', value: 2 }, variables: { n: 3 }, expected: true },
      { name: 'variables.x unset: exists is false', rule: { field: 'variables.n', operator: 'exists' }, expected: false },
      { name: 'variables.x unset: eq is false', rule: { field: 'variables.n', operator: 'eq', value: 1 }, expected: false },
      { name: 'variables.x unset: neq is true', rule: { field: 'variables.n', operator: 'neq', value: 1 }, expected: true },
      { name: 'variables do not read metadata', rule: { field: 'variables.channel', operator: 'exists' }, expected: false },
      { name: 'metadata does not read variables', rule: { field: 'metadata.only_var', operator: 'exists' }, variables: { only_var: 1 }, expected: false },

      // unknown operator (ruleProblem refuses it; evaluation stays safe)
      { name: 'an unknown operator is false', rule: { field: 'amount', operator: 'contains', value: 1 }, expected: false },
    ];

    for (const c of cases) {
      it(`${c.name} -> ${c.expected}`, () => {
        const variables = new Map(Object.entries(c.variables ?? {}));
        expect(evaluateRule(c.rule, c.facts ? facts(c.facts) : base, variables)).to.equal(c.expected);
      });
    }

    it('a missing fact matches only neq and not_in', () => {
      const matched = FLOW_RULE_OPERATORS.map((o) => o.operator).filter((operator) => {
        const value = ['in', 'not_in'].includes(operator) ? ['x'] : ['gt', 'gte', 'lt', 'lte'].includes(operator) ? 0 : 'x';
        return evaluateRule({ field: 'metadata.absent', operator, value }, base, noVariables);
      });
      expect(matched).to.deep.equal(['neq', 'not_in']);
    });

    it('a metadata key named like an Object.prototype member is missing when the merchant did not set it', () => {
      const empty = facts({ metadata: {} });
      for (const key of ['constructor', 'toString', 'hasOwnProperty', '__proto__']) {
        expect(evaluateRule({ field: `metadata.${key}`, operator: 'exists' }, empty, noVariables), key).to.equal(false);
      }
    });
  });

  describe('conditionRules', () => {
    const inline = { field: 'amount', operator: 'gt', value: 5 };
    const a = { field: 'currency', operator: 'eq', value: 'BRL' };
    const b = { field: 'installments', operator: 'lte', value: 3 };
    const cases: Array<{ name: string; data: Record<string, unknown>; expected: { rules: unknown[]; match: 'all' | 'any' } }> = [
      { name: 'inline rule', data: inline, expected: { rules: [inline], match: 'all' } },
      { name: 'inline ignores a match', data: { ...inline, match: 'any' }, expected: { rules: [{ ...inline, match: 'any' }], match: 'all' } },
      { name: 'rules with match any', data: { rules: [a, b], match: 'any' }, expected: { rules: [a, b], match: 'any' } },
      { name: 'rules with match all', data: { rules: [a, b], match: 'all' }, expected: { rules: [a, b], match: 'all' } },
      { name: 'rules default to all', data: { rules: [a] }, expected: { rules: [a], match: 'all' } },
      { name: 'an unknown match is all', data: { rules: [a], match: 'ANY' }, expected: { rules: [a], match: 'all' } },
      { name: 'an empty list stays empty', data: { rules: [] }, expected: { rules: [], match: 'all' } },
      { name: 'rules that are not a list: the data is the inline rule', data: { rules: 'x' }, expected: { rules: [{ rules: 'x' }], match: 'all' } },
      { name: 'empty data is one (invalid) inline rule', data: {}, expected: { rules: [{}], match: 'all' } },
    ];
    for (const c of cases) {
      it(c.name, () => {
        expect(conditionRules(c.data)).to.deep.equal(c.expected);
      });
    }

    it('the inline rule is the data itself and a rules list is returned as given', () => {
      expect(conditionRules(inline).rules[0]).to.equal(inline);
      const rules = [a, b];
      expect(conditionRules({ rules }).rules).to.equal(rules);
    });
  });
});
