import { expect } from 'chai';
import { DomainError } from '../../../../domain/shared/domain-error';
import { maskCustomHeaders, maskHeaderValue, mergeCustomHeaders, validateCustomHeaders } from '../../../../domain/webhook/custom-headers';

function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    expect(error).to.be.instanceOf(DomainError);
    return (error as DomainError).code;
  }
  throw new Error('expected a DomainError');
}

describe('customHeaders rules', () => {
  it('accepts up to 10 ASCII headers with values up to 1024 characters', () => {
    const ten = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`X-H${i}`, 'v'.repeat(1024)]));
    expect(validateCustomHeaders(ten)).to.deep.equal(ten);
  });
  it('refuses an 11th header', () => {
    const eleven = Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`X-H${i}`, 'v']));
    expect(codeOf(() => validateCustomHeaders(eleven))).to.equal('too_many_custom_headers');
  });
  it('refuses values over 1024 characters, non-ASCII and CR/LF', () => {
    expect(codeOf(() => validateCustomHeaders({ 'X-A': 'v'.repeat(1025) }))).to.equal('invalid_custom_header');
    expect(codeOf(() => validateCustomHeaders({ 'X-A': 'café' }))).to.equal('invalid_custom_header');
    expect(codeOf(() => validateCustomHeaders({ 'X-A': 'a\r\nX-Evil: 1' }))).to.equal('invalid_custom_header');
    expect(codeOf(() => validateCustomHeaders({ 'Bad Name': 'v' }))).to.equal('invalid_custom_header');
  });
  for (const name of ['Content-Type', 'user-agent', 'HOST', 'Content-Length', 'Transfer-Encoding', 'Connection', 'Service-Signature',
    'service-event-id', 'Service-Anything']) {
    it(`refuses the service-controlled header ${name}`, () => {
      expect(codeOf(() => validateCustomHeaders({ [name]: 'x' }))).to.equal('reserved_custom_header');
    });
  }
  it('allows Authorization (the signature travels in Service-Signature; receivers often gate with a bearer)', () => {
    expect(validateCustomHeaders({ Authorization: 'Bearer abc' })).to.deep.equal({ Authorization: 'Bearer abc' });
  });
  it('refuses the same name twice in different case', () => {
    expect(codeOf(() => validateCustomHeaders({ 'X-A': '1', 'x-a': '2' }))).to.equal('invalid_custom_header');
  });

  describe('PATCH merge', () => {
    const current = { 'X-Keep': 'keep', 'X-Replace': 'old', 'X-Remove': 'gone' };
    it('creates or replaces on text, removes on null, keeps omitted names', () => {
      expect(mergeCustomHeaders(current, { 'X-Replace': 'new', 'X-Remove': null, 'X-New': 'fresh' }))
        .to.deep.equal({ 'X-Keep': 'keep', 'X-Replace': 'new', 'X-New': 'fresh' });
    });
    it('matches names case-insensitively', () => {
      expect(mergeCustomHeaders(current, { 'x-replace': 'new', 'x-remove': null })).to.deep.equal({ 'X-Keep': 'keep', 'x-replace': 'new' });
    });
    it('validates the merged result (limit of 10, reserved names)', () => {
      const nine = Object.fromEntries(Array.from({ length: 9 }, (_, i) => [`X-H${i}`, 'v']));
      expect(codeOf(() => mergeCustomHeaders({ ...nine, 'X-Z': 'v' }, { 'X-Y': 'v' }))).to.equal('too_many_custom_headers');
      expect(Object.keys(mergeCustomHeaders({ ...nine, 'X-Z': 'v' }, { 'X-Y': 'v', 'X-Z': null }))).to.have.length(10);
      expect(codeOf(() => mergeCustomHeaders({}, { Host: 'evil' }))).to.equal('reserved_custom_header');
    });
  });

  describe('masking', () => {
    it('shows at most the last 4 characters', () => {
      expect(maskHeaderValue('supersecrettoken1234')).to.match(/^\*+1234$/);
      const masked = maskCustomHeaders({ A: 'abcdefghijkl', B: 'abcdef', C: 'abc' });
      expect(masked.A.endsWith('ijkl')).to.equal(true);
      expect(masked.A.replace(/\*/g, '')).to.have.length.at.most(4);
      expect(masked.B.replace(/\*/g, '')).to.equal('ef');
      expect(masked.C).to.equal('****');
    });
  });
});
