import { expect } from 'chai';
import { exampleOf } from '../../../edge/openapi-examples';

describe('OpenAPI examples made from JSON Schemas', () => {
  const card = {
    type: 'object',
    required: ['token'],
    properties: { token: { type: 'string', minLength: 8 }, brand: { type: 'string' }, number: { description: 'Never accepted' } },
  };

  it('shows a schema\'s own example first', () => {
    expect(exampleOf({ ...card, examples: [{ token: 'tok_sandbox_approved' }] }, 'request')).to.deep.equal({ token: 'tok_sandbox_approved' });
  });

  it('shows only required fields and fields with an example in a request, every field but refused ones in a response', () => {
    expect(exampleOf(card, 'request')).to.deep.equal({ token: 'tokenxxx' });
    expect(exampleOf({ ...card, properties: { ...card.properties, brand: { type: 'string', examples: ['visa'] } } }, 'request')).to.deep.equal({ token: 'tokenxxx', brand: 'visa' });
    expect(exampleOf(card, 'response')).to.have.all.keys('token', 'brand');
  });

  it('merges the first oneOf branch into the object around it', () => {
    const schema = {
      type: 'object',
      required: ['challengeToken'],
      properties: { challengeToken: { type: 'string' }, mfaCode: { type: 'string', examples: ['123456'] }, recoveryCode: { type: 'string' } },
      oneOf: [{ required: ['mfaCode'] }, { required: ['recoveryCode'] }],
    };
    expect(exampleOf(schema, 'request')).to.deep.equal({ challengeToken: 'challengeToken', mfaCode: '123456' });
  });

  it('keeps strings and numbers inside their bounds, formats and id prefixes', () => {
    expect(exampleOf({ type: 'integer', minimum: 1, maximum: 100 }, 'request', 'amount')).to.equal(100);
    expect(exampleOf({ type: 'integer', minimum: 60 }, 'request', 'expiresInSeconds')).to.equal(60);
    expect(exampleOf({ type: 'string', format: 'date-time' }, 'response')).to.equal('2026-01-15T12:00:00.000Z');
    expect(exampleOf({ type: 'string', pattern: '^rcp_', maxLength: 64 }, 'request')).to.match(/^rcp_/);
    expect(exampleOf({ type: 'string', maxLength: 3 }, 'request', 'description')).to.have.length(3);
    expect(exampleOf({ type: ['string', 'null'], enum: ['a', 'b', null], default: 'b' }, 'request')).to.equal('b');
  });
});
