import { expect } from 'chai';
import { cloneJson } from '../../../../domain/shared/clone-json';

describe('cloneJson', () => {
  it('copies JSON-shaped data deeply: equal, and sharing no object or array with the original', () => {
    const original = { id: 'pay_1', amount: 1990, ok: true, none: null, card: { last4: '4242', tags: ['a', { deep: [1, 2] }] }, splits: [] as unknown[] };
    const copy = cloneJson(original);
    expect(copy).to.deep.equal(original);
    copy.card.last4 = '0000';
    (copy.card.tags[1] as { deep: number[] }).deep.push(3);
    copy.splits.push('x');
    expect(original.card.last4).to.equal('4242');
    expect((original.card.tags[1] as { deep: number[] }).deep).to.deep.equal([1, 2]);
    expect(original.splits).to.deep.equal([]);
  });
  it('returns scalars as they are', () => {
    expect(cloneJson('s')).to.equal('s');
    expect(cloneJson(0)).to.equal(0);
    expect(cloneJson(null)).to.equal(null);
  });
});
