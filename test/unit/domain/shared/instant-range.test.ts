import { expect } from 'chai';
import { EARLIEST_INSTANT, LATEST_INSTANT, isRepresentableInstant } from '../../../../domain/shared/instant-range';

describe('representable instants (years 0001 to 9999 UTC)', () => {
  const cases: Array<[string, boolean]> = [
    ['0001-01-01T00:00:00.000Z', true],
    ['9999-12-31T23:59:59.999Z', true],
    ['2026-11-26T12:00:00-03:00', true],
    ['0000-12-31T23:59:59.999Z', false], // year 0: JavaScript has it, PostgreSQL does not
    ['0001-01-01T00:30:00+01:00', false], // year 0 once the offset is applied
    ['9999-12-31T23:59:59-05:00', false], // year 10000 once the offset is applied
    ['2026-11-26T23:59:60Z', false], // a leap second is an Invalid Date
  ];
  for (const [text, representable] of cases) {
    it(`${text}: ${representable ? 'representable' : 'refused'}`, () => expect(isRepresentableInstant(new Date(text))).to.equal(representable));
  }

  it('the bounds print as four-digit years', () => {
    expect(EARLIEST_INSTANT.toISOString()).to.equal('0001-01-01T00:00:00.000Z');
    expect(LATEST_INSTANT.toISOString()).to.equal('9999-12-31T23:59:59.999Z');
  });
});
