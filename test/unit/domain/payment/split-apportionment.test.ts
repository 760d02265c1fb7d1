import { expect } from 'chai';
import { apportionSplits } from '../../../../domain/payment/split-apportionment';

describe('split apportionment', () => {
  const shares = (...amounts: number[]) => amounts.map((amount) => ({ amount, capturedAmount: 0, refundedAmount: 0 }));

  it('a full capture gives each share exactly its amount; the part no share covers stays with the merchant', () => {
    const splits = shares(600, 300);
    apportionSplits(splits, { amount: 1_000, capturedAmount: 1_000, refundedAmount: 0 });
    expect(splits.map((s) => s.capturedAmount)).to.deep.equal([600, 300]);
  });

  it('a partial capture divides in proportion, rounded down, never more than was captured', () => {
    const splits = shares(333, 333, 334);
    apportionSplits(splits, { amount: 1_000, capturedAmount: 7, refundedAmount: 0 });
    expect(splits.map((s) => s.capturedAmount)).to.deep.equal([2, 2, 2]);
  });

  it('successive partial refunds are derived from the running total, so the last one ends at each share', () => {
    const splits = shares(7_000, 3_000);
    let refunded = 0;
    for (const refund of [1, 1, 1, 3_333, 1_664]) {
      refunded += refund;
      apportionSplits(splits, { amount: 10_000, capturedAmount: 5_000, refundedAmount: refunded });
      const total = splits.reduce((n, s) => n + s.refundedAmount, 0);
      expect(total).to.be.at.most(refunded);
      splits.forEach((s) => expect(s.refundedAmount).to.be.at.most(s.capturedAmount));
    }
    expect(refunded).to.equal(5_000);
    expect(splits.map((s) => [s.capturedAmount, s.refundedAmount])).to.deep.equal([[3_500, 3_500], [1_500, 1_500]]);
  });

  it('amounts whose products pass 2^53 are still exact', () => {
    const splits = shares(7_777_777_804, 1);
    apportionSplits(splits, { amount: 9_999_999_999, capturedAmount: 9_999_999_990, refundedAmount: 0 });
    // 9,999,999,990 x 7,777,777,804 / 9,999,999,999 = 7,777,777,796.99...; in doubles the product rounds and the
    // quotient comes out 7,777,777,797, a cent the share was not owed.
    expect(Math.floor((9_999_999_990 * 7_777_777_804) / 9_999_999_999)).to.equal(7_777_777_797);
    expect(splits[0]!.capturedAmount).to.equal(7_777_777_796);
    expect(splits[1]!.capturedAmount).to.equal(0);
  });

  it('nothing captured or refunded leaves every share at zero', () => {
    const splits = shares(500);
    apportionSplits(splits, { amount: 1_000, capturedAmount: 0, refundedAmount: 0 });
    expect(splits[0]).to.include({ capturedAmount: 0, refundedAmount: 0 });
  });
});
