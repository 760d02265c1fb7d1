import { expect } from 'chai';
import { UlidIdGenerator } from '../../../../infrastructure/clock/ulid-id-generator';

describe('identifiers (prefix + ULID)', () => {
  it('are prefixed, URL-safe, unique and sortable in creation order', () => {
    const ids = new UlidIdGenerator();
    const made = Array.from({ length: 20_000 }, () => ids.next('pay_'));
    expect(made.every((id) => /^pay_[0-9A-HJKMNP-TV-Z]{26}$/.test(id))).to.equal(true);
    expect(new Set(made).size).to.equal(made.length);
    expect([...made].sort()).to.deep.equal(made);
  });

});
