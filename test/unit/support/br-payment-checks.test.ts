import { expect } from 'chai';
import { boletoBarcodeIsValid, brCodeCrcIsValid, crc16CcittFalse, digitableLineIsValid, dueDateOfFactor } from '../../support/br-payment-checks';

/** The tests' own checks of Pix and boleto codes, against the public check values (br-payment-vectors.md). */
describe('Brazilian payment code checks used by the tests', () => {
  it('CRC-16/CCITT-FALSE of "123456789" is 29B1', () => {
    expect(crc16CcittFalse('123456789')).to.equal('29B1');
  });

  it("accepts the Banco Central manual's static BR Code and refuses the circulating copy with another key", () => {
    const manual = '00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-4266554400005204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***63041D3D';
    expect(brCodeCrcIsValid(manual)).to.equal(true);
    expect(brCodeCrcIsValid(manual.replace('123e4567-e12b-12d1-a456-426655440000', '123e4567-e89b-12d3-a456-426614174000'))).to.equal(false);
  });

  it('boleto check digits: a barcode and line worked out by hand pass, any changed digit fails', () => {
    // bank 001, currency 9, factor 1000 (2025-02-22), R$ 1.00, free field of 25 ones; the check digits were worked
    // out by a separate script from the FEBRABAN rules, not by the service.
    const barcode = '00191100000000001001111111111111111111111111';
    const line = '00191111111111111111511111111115110000000000100';
    expect(boletoBarcodeIsValid(barcode)).to.equal(true);
    expect(digitableLineIsValid(line, barcode)).to.equal(true);
    for (const position of [0, 4, 10, 20]) {
      const changed = barcode.slice(0, position) + ((Number(barcode[position]) + 1) % 10) + barcode.slice(position + 1);
      expect(boletoBarcodeIsValid(changed), `barcode digit ${position}`).to.equal(false);
    }
    for (const position of [9, 20, 31]) {
      const changed = line.slice(0, position) + ((Number(line[position]) + 1) % 10) + line.slice(position + 1);
      expect(digitableLineIsValid(changed, barcode), `line check digit ${position}`).to.equal(false);
    }
  });

  it('due-date factor: 9999 is 2025-02-21, and 1000 is 2025-02-22 today (2000-07-03 twenty-five years ago)', () => {
    expect(dueDateOfFactor(9999, new Date('2025-01-01T00:00:00Z'))).to.equal('2025-02-21');
    expect(dueDateOfFactor(1000, new Date('2026-11-26T00:00:00Z'))).to.equal('2025-02-22');
    expect(dueDateOfFactor(1000, new Date('2000-07-01T00:00:00Z'))).to.equal('2000-07-03');
  });
});
