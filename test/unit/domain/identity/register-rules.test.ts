import { expect } from 'chai';
import { DomainError } from '../../../../domain/shared/domain-error';
import { BRAZILIAN_STATES, checkRegisterRules, type RegisterInput } from '../../../../domain/identity/register-rules';
import { trialClaims } from '../../../../domain/identity/company';

const valid = (): RegisterInput => ({
  name: 'Ana Souza',
  email: 'ana@example.com',
  password: 'correct horse battery',
  phone: '+5511999990000',
  acceptedTerms: true,
  authorizedRepresentative: true,
  company: {
    document: '11.222.333/0001-81',
    legalName: 'ACME Pagamentos LTDA',
    name: 'ACME',
    activity: 'Retail',
    website: '',
    address: { postalCode: '01310-100', line1: 'Avenida Paulista', streetNumber: '1000', complement: '', neighborhood: 'Bela Vista', city: 'Sao Paulo', state: 'SP' },
  },
});

const failsOn = (input: RegisterInput, param: string) => {
  try {
    checkRegisterRules(input);
  } catch (error) {
    expect(error).to.be.instanceOf(DomainError);
    expect((error as DomainError).code).to.equal('validation_failed');
    expect((error as DomainError).meta.details?.map((d) => d.param)).to.include(param);
    return;
  }
  expect.fail(`expected ${param} to be refused`);
};

describe('register rules', () => {
  it('accepts a valid CNPJ company and a valid CPF', () => {
    checkRegisterRules(valid());
    const cpf = valid();
    cpf.company.document = '529.982.247-25';
    checkRegisterRules(cpf);
  });

  it('refuses a document with a wrong check digit', () => {
    const input = valid();
    input.company.document = '11.222.333/0001-82';
    failsOn(input, 'body.company.document');
  });

  it('knows the 27 federative units and refuses others', () => {
    expect(BRAZILIAN_STATES).to.have.length(27);
    for (const state of BRAZILIAN_STATES) {
      const input = valid();
      input.company.address.state = state;
      checkRegisterRules(input);
    }
    const input = valid();
    input.company.address.state = 'XX';
    failsOn(input, 'body.company.address.state');
  });

  it('requires acceptedTerms and authorizedRepresentative to be true', () => {
    failsOn({ ...valid(), acceptedTerms: false }, 'body.acceptedTerms');
    failsOn({ ...valid(), authorizedRepresentative: false }, 'body.authorizedRepresentative');
  });

  it('refuses a postal code that is not a CEP', () => {
    const input = valid();
    input.company.address.postalCode = '1234';
    failsOn(input, 'body.company.address.postalCode');
  });

  it('trial claims ignore punctuation and e-mail case', () => {
    expect(trialClaims('11.222.333/0001-81', 'Ana@Example.com')).to.deep.equal(trialClaims('11222333000181', 'ana@example.com'));
  });
});
