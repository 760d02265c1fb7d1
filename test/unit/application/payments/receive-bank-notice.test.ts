import { expect } from 'chai';
import { MAX_CHARGES_PER_NOTICE, citedCharges } from '../../../../application/payments/receive-bank-notice';

/** What an inbound Pix or boleto notice is read for: only the charges it cites (its claims are checked with the bank). */
describe('citedCharges (inbound bank notices)', () => {
  it('reads one charge or a list of charges, ignoring what they claim', () => {
    expect(citedCharges({ acquirerPaymentId: 'sbxpix_1', status: 'paid' })).to.deep.equal(['sbxpix_1']);
    expect(citedCharges({ charges: [{ acquirerPaymentId: 'a' }, { acquirerPaymentId: 'b', paidAmount: 1 }] })).to.deep.equal(['a', 'b']);
  });

  it('cites nothing for a body of another shape, empty or oversized ids', () => {
    for (const body of [null, 'text', 42, [], {}, { charges: 'a' }, { charges: [1, null, { id: 'x' }] }, { acquirerPaymentId: '' }, { acquirerPaymentId: 'x'.repeat(129) }]) {
      expect(citedCharges(body), JSON.stringify(body)).to.deep.equal([]);
    }
  });

  it('a notice is checked for at most MAX_CHARGES_PER_NOTICE charges (polling finds the rest)', () => {
    expect(MAX_CHARGES_PER_NOTICE).to.equal(100);
  });
});
