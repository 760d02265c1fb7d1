import { expect } from 'chai';
import { Customer, Address } from '../../../../domain/customer/customer';
import { SavedPaymentMethod } from '../../../../domain/customer/saved-payment-method';
import { DomainError } from '../../../../domain/shared/domain-error';

const NOW = new Date('2026-03-01T12:00:00.000Z');
const address: Address = { postalCode: '01310-100', line1: 'Av. Paulista', streetNumber: '1000', complement: null, neighborhood: 'Bela Vista', city: 'São Paulo', state: 'SP' };

function errorOf(fn: () => unknown): DomainError {
  try {
    fn();
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error('expected a DomainError');
}

const base = { id: 'cus_1', organizationId: 'org_1', environment: 'sandbox' as const, now: NOW };

describe('Customer', () => {
  it('creates a customer, storing the document as digits with its type', () => {
    const c = Customer.create({ ...base, name: ' Ana Silva ', email: 'Ana@Example.com', document: '529.982.247-25', birthDate: '1990-05-17', address }).toPrimitives();
    expect(c).to.include({ name: 'Ana Silva', email: 'ana@example.com', document: '52998224725', documentType: 'cpf', birthDate: '1990-05-17' });
    expect(c.address!.postalCode).to.equal('01310100');
    expect(Customer.create({ ...base, name: 'ACME', document: '11.222.333/0001-81' }).toPrimitives().documentType).to.equal('cnpj');
  });

  const invalidCases: Array<[string, Record<string, unknown>, string]> = [
    ['empty name', { name: '' }, 'body.name'],
    ['name over 120', { name: 'x'.repeat(121) }, 'body.name'],
    ['bad e-mail', { email: 'not-an-email' }, 'body.email'],
    ['CPF with wrong check digits', { document: '52998224724' }, 'body.document'],
    ['CNPJ with wrong check digits', { document: '11222333000182' }, 'body.document'],
    ['impossible birth date', { birthDate: '1990-02-30' }, 'body.birthDate'],
    ['future birth date', { birthDate: '2030-01-01' }, 'body.birthDate'],
    ['unknown UF', { address: { ...address, state: 'XX' } }, 'body.address.state'],
    ['short CEP', { billingAddress: { ...address, postalCode: '123' } }, 'body.billingAddress.postalCode'],
    ['bad phone', { phone: 'call me' }, 'body.phone'],
  ];
  for (const [name, fields, param] of invalidCases) {
    it(`refuses ${name}`, () => {
      const e = errorOf(() => Customer.create({ ...base, name: 'Ana', ...fields } as Parameters<typeof Customer.create>[0]));
      expect(e.code).to.equal('validation_failed');
      expect(e.meta.param).to.equal(param);
    });
  }

  it('updates with PATCH semantics and merges metadata', () => {
    const c = Customer.create({ ...base, name: 'Ana', email: 'a@b.co', metadata: { tier: 'gold', keep: 1 } });
    c.update({ email: null, metadata: { tier: null, vip: true } }, NOW);
    expect(c.toPrimitives()).to.deep.include({ name: 'Ana', email: null, metadata: { keep: 1, vip: true } });
    expect(errorOf(() => c.update({ document: '123' }, NOW)).meta.param).to.equal('body.document');
  });

  it('pix needs a document; boleto also an address', () => {
    expect(errorOf(() => Customer.create({ ...base, name: 'Ana' }).assertChargeableBy('pix')).code).to.equal('customer_incomplete');
    const noAddress = Customer.create({ ...base, name: 'Ana', document: '52998224725' });
    noAddress.assertChargeableBy('pix');
    expect(errorOf(() => noAddress.assertChargeableBy('boleto')).code).to.equal('customer_incomplete');
    Customer.create({ ...base, name: 'Ana', document: '52998224725', address }).assertChargeableBy('boleto');
  });
});

describe('SavedPaymentMethod', () => {
  const card = { brand: 'visa', bin: '411111', last4: '1111', expMonth: 12, expYear: 2030, holderName: 'ANA' };
  const save = () => SavedPaymentMethod.saveCard({ id: 'pm_1', organizationId: 'org_1', environment: 'sandbox', customerId: 'cus_1', card, token: 'tok_sandbox_approved', now: NOW });

  it('saves a card summary with a token reference, unverified', () => {
    const pm = save().toPrimitives();
    expect(pm.tokenReference).to.deep.equal({ token: 'tok_sandbox_approved', isNetworkToken: false, connectorAccountId: null });
    expect(pm.verification.status).to.equal('not_verified');
    expect(JSON.stringify(pm)).to.not.match(/"(number|cvv)"/);
  });

  it('refuses a token outside 8-256 characters', () => {
    expect(errorOf(() => SavedPaymentMethod.saveCard({ id: 'pm', organizationId: 'o', environment: 'sandbox', customerId: 'c', card, token: 'short', now: NOW })).meta.param).to.equal('body.card.token');
  });

  for (const status of ['valid', 'invalid', 'unavailable'] as const) {
    it(`every verification emits payment_method.verified (${status})`, () => {
      const pm = save();
      pm.recordVerification({ status, rawCode: status === 'valid' ? '00' : '14', connectorAccountId: 'ca_1', now: NOW });
      const [event, ...rest] = pm.pullEvents();
      expect(rest).to.have.length(0);
      expect(event!.type).to.equal('payment_method.verified');
      expect(event!.paymentMethod.verification).to.include({ status, verifiedAt: NOW.toISOString() });
      expect(event!.previousAttributes.verification.status).to.equal('not_verified');
    });
  }

  it('an invalid or deleted method cannot be charged', () => {
    const invalid = save();
    invalid.recordVerification({ status: 'invalid', now: NOW });
    expect(errorOf(() => invalid.assertChargeable()).code).to.equal('payment_method_invalid');
    const unavailable = save();
    unavailable.recordVerification({ status: 'unavailable', now: NOW });
    unavailable.assertChargeable();
    const deleted = save();
    deleted.delete(NOW);
    expect(errorOf(() => deleted.assertChargeable()).code).to.equal('not_found');
  });
});
