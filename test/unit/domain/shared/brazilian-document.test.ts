import { expect } from 'chai';
import { brazilianDocumentType, isValidBrazilianDocument, isValidCnpj, isValidCpf } from '../../../../domain/shared/brazilian-document';

describe('brazilian-document', () => {
  const cases: Array<[string, 'cpf' | 'cnpj' | null]> = [
    ['52998224725', 'cpf'],
    ['529.982.247-25', 'cpf'],
    ['11144477735', 'cpf'],
    ['52998224724', null], // wrong second digit
    ['52998224715', null], // wrong first digit
    ['11111111111', null], // repeated digits
    ['1234567890', null], // too short
    ['11222333000181', 'cnpj'],
    ['11.222.333/0001-81', 'cnpj'],
    ['11444777000161', 'cnpj'],
    ['11222333000182', null],
    ['00000000000000', null],
    ['', null],
  ];
  for (const [doc, expected] of cases) {
    it(`${JSON.stringify(doc)} -> ${expected}`, () => {
      expect(brazilianDocumentType(doc)).to.equal(expected);
      expect(isValidBrazilianDocument(doc)).to.equal(expected !== null);
    });
  }
  it('does not take a CNPJ for a CPF or the reverse', () => {
    expect(isValidCpf('11222333000181')).to.equal(false);
    expect(isValidCnpj('52998224725')).to.equal(false);
  });
});
