import { expect } from 'chai';
import {
  BRAND_OVERRIDES,
  DECLINE_REASONS,
  DECLINE_TABLE,
  RETRY_ACTIONS,
  cardNetwork,
  classifyDecline,
  declineTableCoverage,
  normalizeRawCode,
} from '../../../../../domain/payment/decline';

describe('decline classification', () => {
  describe('contract.md section 5 sandbox codes', () => {
    const cases = [
      { rawCode: '51', reason: 'INSUFFICIENT_FUNDS', reversibility: 'REVERSIBLE', retryAction: 'RETRY_LATER' },
      { rawCode: '05', reason: 'DO_NOT_HONOR', reversibility: 'REVERSIBLE' },
      { rawCode: '82', reason: 'INVALID_CVV', reversibility: 'REVERSIBLE' },
      { rawCode: '43', reason: 'STOLEN_CARD', reversibility: 'irreversible' },
      { rawCode: '54', reason: 'EXPIRED_CARD', reversibility: 'irreversible' },
    ];
    for (const c of cases) {
      it(`${c.rawCode} -> ${c.reason} ${c.reversibility}`, () => {
        const result = classifyDecline(c.rawCode);
        expect(result).to.include(c);
        expect(result.approved).to.equal(false);
        expect(result.consumerMessage.ptBR).to.be.a('string').and.not.empty;
        expect(result.consumerMessage.en).to.be.a('string').and.not.empty;
      });
    }
  });

  const table: Array<[string, string, 'REVERSIBLE' | 'irreversible']> = [
    ['04', 'RETRY_REQUESTED', 'REVERSIBLE'],
    ['14', 'INVALID_CARD_NUMBER', 'irreversible'],
    ['41', 'LOST_CARD', 'irreversible'],
    ['57', 'TRANSACTION_NOT_PERMITTED_FOR_CARD', 'REVERSIBLE'],
    ['59', 'SUSPECTED_FRAUD', 'REVERSIBLE'],
    ['91', 'ISSUER_UNAVAILABLE', 'REVERSIBLE'],
    ['96', 'SYSTEM_MALFUNCTION', 'REVERSIBLE'],
    ['N7', 'INVALID_CVV', 'irreversible'],
    ['R1', 'RECURRING_PAYMENT_STOPPED', 'irreversible'],
    ['5C', 'TRANSACTION_NOT_SUPPORTED_BY_ISSUER', 'REVERSIBLE'],
    ['AB', 'USE_CREDIT_FUNCTION', 'irreversible'],
    ['FA', 'DO_NOT_HONOR', 'REVERSIBLE'],
  ];
  for (const [code, reason, reversibility] of table) {
    it(`${code} -> ${reason} (${reversibility})`, () => {
      expect(classifyDecline(code)).to.include({ reason, reversibility });
    });
  }

  it('approvals are in the table and flagged as such', () => {
    expect(classifyDecline('00')).to.include({ approved: true, reason: 'APPROVED' });
  });

  it('normalizes acquirer spellings of a code', () => {
    expect(normalizeRawCode('5')).to.equal('05');
    expect(normalizeRawCode(' 051 ')).to.equal('51');
    expect(normalizeRawCode('n7')).to.equal('N7');
    expect(classifyDecline('5').reason).to.equal('DO_NOT_HONOR');
  });

  it('applies network-specific meanings when the brand is known', () => {
    expect(classifyDecline('04', 'visa')).to.include({ reason: 'PICK_UP_CARD', reversibility: 'irreversible' });
    expect(classifyDecline('04', 'elo')).to.include({ reason: 'RETRY_REQUESTED', reversibility: 'REVERSIBLE' });
    expect(classifyDecline('57', 'elo')).to.include({ reversibility: 'irreversible' });
    expect(classifyDecline('63', 'Mastercard')).to.include({ reason: 'SUSPECTED_FRAUD', reversibility: 'REVERSIBLE' });
    expect(classifyDecline('63', 'hipercard')).to.include({ reason: 'SUSPECTED_FRAUD' });
    // the contract's sandbox codes do not change with the brand
    for (const brand of ['visa', 'mastercard', 'elo', 'amex']) {
      expect(classifyDecline('51', brand).reason).to.equal('INSUFFICIENT_FUNDS');
      expect(classifyDecline('82', brand)).to.include({ reason: 'INVALID_CVV', reversibility: 'REVERSIBLE' });
    }
  });

  it('without a brand, reads the network from the BIN where its ranges are plain', () => {
    expect(classifyDecline('04', { brand: null, bin: '411111' })).to.include({ reason: 'PICK_UP_CARD' });
    expect(classifyDecline('63', { bin: '555555' })).to.include({ reason: 'SUSPECTED_FRAUD' });
    expect(classifyDecline('63', { bin: '222100' })).to.include({ reason: 'SUSPECTED_FRAUD' });
    expect(classifyDecline('63', { bin: '636368' }).reason, 'an Elo range: unknown network, the common table').to.equal(classifyDecline('63').reason);
    expect(classifyDecline('63', { brand: 'visa', bin: '555555' }).reason, 'the brand sent wins').to.equal(classifyDecline('63', 'visa').reason);
    expect(cardNetwork({ bin: '371449' })).to.equal('amex');
    expect(cardNetwork({ bin: '272100' })).to.equal(null);
    expect(cardNetwork({ bin: null })).to.equal(null);
  });

  it('falls back explicitly for unknown or empty codes, keeping the raw code', () => {
    expect(classifyDecline('ZZ9')).to.include({ rawCode: 'ZZ9', reason: 'UNMAPPED_DECLINE', reversibility: 'REVERSIBLE', source: 'fallback' });
    expect(classifyDecline('')).to.include({ reason: 'UNMAPPED_DECLINE' });
    expect(classifyDecline(undefined)).to.include({ reason: 'UNMAPPED_DECLINE' });
  });

  it('every row is complete and uses a known retry action', () => {
    for (const [code, row] of DECLINE_TABLE) {
      expect(row.rawCode, code).to.equal(code);
      expect(row.reason, code).to.match(/^[A-Z_]+$/);
      expect(row.label, code).to.not.be.empty;
      expect(['REVERSIBLE', 'irreversible'], code).to.include(row.reversibility);
      expect(RETRY_ACTIONS as readonly string[], code).to.include(row.retryAction);
      expect(row.consumerMessage.ptBR, code).to.not.be.empty;
      expect(row.consumerMessage.en, code).to.not.be.empty;
    }
  });

  it('covers the ABECS numeric and alphanumeric codes', () => {
    const abecs = ['04', '05', '06', '07', '12', '13', '14', '15', '19', '23', '30', '38', '39', '41', '43', '46', '51', '52', '53', '54', '55', '56', '57', '58', '59', '61', '62', '63', '64', '65', '74', '75', '76', '77', '78', '81', '82', '83', '86', '88', '91', '92', '93', '94', '96', 'AB', 'AC', 'B1', 'B2', 'FM', 'N0', 'N3', 'N4', 'N7', 'N8', 'P5', 'P6', 'R0', 'R1', 'R2', 'R3', '6P'];
    for (const code of abecs) expect(DECLINE_TABLE.has(code), code).to.equal(true);
  });

  it('DECLINE_REASONS holds every reason a decline can carry, under any brand or for an unknown code, and no approval', () => {
    const brands = [null, ...Object.keys(BRAND_OVERRIDES), 'hipercard', 'unknown-brand'];
    const produced = new Set<string>();
    for (const code of [...DECLINE_TABLE.keys(), 'ZZ', '']) {
      for (const brand of brands) {
        const c = classifyDecline(code, brand);
        if (!c.approved) produced.add(c.reason);
      }
    }
    expect([...produced].sort()).to.deep.equal(DECLINE_REASONS);
    expect(DECLINE_REASONS).to.not.include('APPROVED');
  });

  it('reports real coverage counts', () => {
    const coverage = declineTableCoverage();
    expect(coverage.codes).to.equal(DECLINE_TABLE.size);
    expect(coverage.declineCodes + coverage.approvalCodes).to.equal(coverage.codes);
    expect(coverage.reversible + coverage.irreversible).to.equal(coverage.declineCodes);
    expect(coverage.abecsCodes).to.be.greaterThan(70);
    expect(coverage.brandSpecificOverrides).to.be.greaterThan(0);
    expect(Object.values(coverage.byRetryAction).reduce((a, b) => a + (b ?? 0), 0)).to.equal(coverage.declineCodes);
    expect(coverage.fallbackReason).to.equal('UNMAPPED_DECLINE');
  });
});
