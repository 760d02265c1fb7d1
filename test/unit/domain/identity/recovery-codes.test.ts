import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import {
  availableRecoveryCodes,
  consumeRecoveryCode,
  generateRecoveryCodes,
  recoveryRecords,
} from '../../../../domain/identity/recovery-codes';

const random = { bytes: (n: number) => randomBytes(n) };

describe('recovery codes', () => {
  it('generates ten distinct codes of 24 to 40 characters', () => {
    const codes = generateRecoveryCodes(random);
    expect(codes).to.have.length(10);
    expect(new Set(codes).size).to.equal(10);
    for (const code of codes) {
      expect(code.length).to.be.within(24, 40);
      expect(code).to.match(/^[A-Z2-7]{5}(-[A-Z2-7]{5}){4}$/);
    }
  });

  it('stores only hashes', () => {
    const codes = generateRecoveryCodes(random);
    const records = recoveryRecords(codes);
    for (const record of records) expect(codes).to.not.include(record.hash);
  });

  it('accepts a code once, ignoring case and dashes', () => {
    const codes = generateRecoveryCodes(random);
    let records = recoveryRecords(codes);
    const used = consumeRecoveryCode(records, codes[3]!.toLowerCase().replace(/-/g, ' '), new Date());
    expect(used).to.not.equal(null);
    records = used!;
    expect(availableRecoveryCodes(records)).to.equal(9);
    expect(consumeRecoveryCode(records, codes[3]!, new Date())).to.equal(null);
  });

  it('a regenerated set invalidates the previous codes', () => {
    const old = generateRecoveryCodes(random);
    const fresh = recoveryRecords(generateRecoveryCodes(random));
    expect(consumeRecoveryCode(fresh, old[0]!, new Date())).to.equal(null);
  });
});
