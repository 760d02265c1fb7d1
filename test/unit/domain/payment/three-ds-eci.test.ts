import { expect } from 'chai';
import { eciMeaning, threeDsExitOf } from '../../../../domain/payment/three-ds-eci';

describe('3DS ECI evaluation (domain/payment/three-ds-eci.ts)', () => {
  it('reads each network\'s ECI values: Visa 05/06/07, Mastercard 02/01/00 (one-digit forms too)', () => {
    expect(['05', '06', '07'].map((eci) => eciMeaning(eci, 'visa'))).to.deep.equal(['authenticated', 'attempted', 'not_authenticated']);
    expect(['02', '01', '00'].map((eci) => eciMeaning(eci, 'mastercard'))).to.deep.equal(['authenticated', 'attempted', 'not_authenticated']);
    expect(eciMeaning('5', 'Visa')).to.equal('authenticated');
    expect(eciMeaning('05', 'elo')).to.equal('authenticated');
  });

  it('an ECI of the other network is not understood for a known brand; without a brand the disjoint sets still say which', () => {
    expect(eciMeaning('02', 'visa')).to.equal(null);
    expect(eciMeaning('05', 'mastercard')).to.equal(null);
    expect(eciMeaning('02', null)).to.equal('authenticated');
    expect(eciMeaning('07', undefined)).to.equal('not_authenticated');
    expect(eciMeaning('99', null)).to.equal(null);
    expect(eciMeaning(undefined, 'visa')).to.equal(null);
  });

  it('maps results to the three_ds node exits: only a fully authenticated success is authenticated', () => {
    expect(threeDsExitOf({ outcome: 'success', eci: '05', brand: 'visa' })).to.equal('authenticated');
    expect(threeDsExitOf({ outcome: 'success', eci: '02', brand: 'mastercard' })).to.equal('authenticated');
    // attempted (the issuer did not take part) or no readable ECI: the cardholder was not authenticated
    expect(threeDsExitOf({ outcome: 'success', eci: '06', brand: 'visa' })).to.equal('unavailable');
    expect(threeDsExitOf({ outcome: 'success', brand: 'visa' })).to.equal('unavailable');
    expect(threeDsExitOf({ outcome: 'success', eci: '02', brand: 'visa' })).to.equal('unavailable');
    // a network's "not authenticated" wins over what the outcome says
    expect(threeDsExitOf({ outcome: 'success', eci: '07', brand: 'visa' })).to.equal('failed');
    expect(threeDsExitOf({ outcome: 'failure', brand: 'visa' })).to.equal('failed');
    for (const outcome of ['unenrolled', 'disabled', 'error', 'unsupported_brand'] as const) {
      expect(threeDsExitOf({ outcome, brand: 'visa' }), outcome).to.equal('unavailable');
    }
  });
});
