import { expect } from 'chai';
import { HttpError } from '../../../../edge/http/errors';
import { requestFingerprint } from '../../../../edge/http/idempotency';
import { closeObjects, compileValidator } from '../../../../edge/http/validation';
import { parseJsonBody } from '../../../../edge/http/body';

describe('edge validation', () => {
  const schema = {
    type: 'object',
    required: ['amount'],
    properties: {
      amount: { type: 'integer', minimum: 1 },
      currency: { type: 'string', enum: ['BRL', 'USD'], default: 'BRL' },
      card: { type: 'object', required: ['token'], properties: { token: { type: 'string', minLength: 8 } } },
      items: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' } } } },
      metadata: { type: 'object', additionalProperties: { type: 'string' } },
    },
  };
  const validate = compileValidator(schema, 'body');

  function refusal(value: unknown): HttpError {
    try {
      validate(value);
    } catch (error) {
      return error as HttpError;
    }
    throw new Error('expected a refusal');
  }

  it('closes every object that lists properties, but not open maps', () => {
    const closed = closeObjects(schema) as any;
    expect(closed.additionalProperties).to.equal(false);
    expect(closed.properties.card.additionalProperties).to.equal(false);
    expect(closed.properties.items.items.additionalProperties).to.equal(false);
    expect(closed.properties.metadata.additionalProperties).to.deep.equal({ type: 'string' });
  });

  it('fills defaults and accepts open maps', () => {
    expect(validate({ amount: 5, metadata: { anything: 'x' } })).to.deep.equal({ amount: 5, currency: 'BRL', metadata: { anything: 'x' } });
  });

  it('names the parameter of each refusal with dotted and indexed paths', () => {
    expect(refusal({}).options.param).to.equal('body.amount');
    expect(refusal({ amount: 1, card: {} }).options.param).to.equal('body.card.token');
    expect(refusal({ amount: 1, card: { token: 'x' } }).options.param).to.equal('body.card.token');
    expect(refusal({ amount: 1, items: [{ name: 'a' }, { sku: 1 }] }).options.param).to.equal('body.items[1].sku');
    expect(refusal({ amount: 1, currency: 'XYZ' }).message).to.contain('BRL, USD');
    expect(refusal({ amount: 0 }).code).to.equal('validation_failed');
  });

  it('parses JSON bodies, refusing malformed and over-deep ones', () => {
    expect(parseJsonBody('')).to.deep.equal({});
    expect(parseJsonBody('{"a":[1]}')).to.deep.equal({ a: [1] });
    expect(() => parseJsonBody('{"a":')).to.throw(HttpError).with.property('code', 'invalid_json');
    expect(() => parseJsonBody('['.repeat(40) + ']'.repeat(40))).to.throw(HttpError).with.property('code', 'invalid_json');
    expect(parseJsonBody('['.repeat(30) + ']'.repeat(30))).to.be.an('array');
  });

  it('fingerprints requests regardless of key order and whitespace, but not of values', () => {
    expect(requestFingerprint('post', '/v1/x', { a: 1, b: { c: 2 } })).to.equal(requestFingerprint('POST', '/v1/x', { b: { c: 2 }, a: 1 }));
    expect(requestFingerprint('post', '/v1/x', { a: 1 })).not.to.equal(requestFingerprint('post', '/v1/x', { a: 2 }));
    expect(requestFingerprint('post', '/v1/x', { a: 1 })).not.to.equal(requestFingerprint('post', '/v1/y', { a: 1 }));
  });
});
