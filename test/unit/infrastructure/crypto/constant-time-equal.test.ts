import { expect } from 'chai';
import { secretsEqual } from '../../../../infrastructure/crypto/constant-time-equal';

describe('secretsEqual (constant-time comparison of secrets)', () => {
  it('is true for the same secret only', () => {
    expect(secretsEqual('whtok_abc', 'whtok_abc')).to.equal(true);
    expect(secretsEqual('whtok_abc', 'whtok_abd')).to.equal(false);
  });

  it('is false, without throwing, for secrets of other lengths, the empty one and other scripts', () => {
    expect(secretsEqual('whtok_abc', 'whtok_abcd')).to.equal(false);
    expect(secretsEqual('whtok_abc', '')).to.equal(false);
    expect(secretsEqual('é', 'e\u0301')).to.equal(false);
  });
});
