import { expect } from 'chai';
import { authorizeRequest, requestForAccount } from '../../../../application/payments/authorize-request';
import type { CustomerPrimitives } from '../../../../domain/customer/customer';
import { processingPayment } from '../../../support/builders/payment.builder';

describe('the Authorize request built for a payment', () => {
  const source = { token: 'tok_sandbox_approved', isNetworkToken: false, card: { brand: 'visa', bin: '411111', last4: '1111', expMonth: 12, expYear: 2030, holderName: 'ANA' } };
  const customer: CustomerPrimitives = {
    id: 'cus_1', organizationId: 'org_1', environment: 'sandbox', name: 'Rita', email: 'rita@example.com', document: '52998224725', documentType: 'cpf',
    phone: null, birthDate: '1990-01-31', metadata: {}, createdAt: '2026-11-26T00:00:00.000Z', updatedAt: '2026-11-26T00:00:00.000Z',
    address: { postalCode: '01310100', line1: 'Av. Paulista', streetNumber: '1000', complement: null, neighborhood: 'Bela Vista', city: 'Sao Paulo', state: 'SP' },
    billingAddress: null, shippingAddress: null,
  };

  it("carries the customer's registration and the body's fraudAnalysis for the acquirer's antifraud (spec, Payments rule 6)", () => {
    const request = authorizeRequest(processingPayment({ clientIp: '203.0.113.7' }).view(), source, {
      items: [{ name: 'Book', quantity: 2, amount: 500 }],
      customer,
      fraudAnalysis: { fingerprintSessionId: 'fp_1', shipping: { method: 'same_day' }, isGift: true, returnsAccepted: false, merchantDefinedFields: [{ id: 3, value: 'vip' }] },
    });
    expect(request.customer).to.deep.include({ id: 'cus_1', name: 'Rita', email: 'rita@example.com', document: '52998224725', birthDate: '1990-01-31' });
    expect(request.customer?.billingAddress).to.include({ postalCode: '01310100', city: 'Sao Paulo', country: 'BR' });
    expect(request.items).to.deep.equal([{ name: 'Book', quantity: 2, amount: 500 }]);
    expect(request.fraudData).to.deep.equal({
      clientIp: '203.0.113.7', fingerprintSessionId: 'fp_1', shippingMethod: 'same_day', isGift: true, returnsAccepted: false, merchantDefinedFields: { 3: 'vip' },
    });
  });

  it("asks for the acquirer's analysis only on accounts that enable it, and never for a merchant-initiated charge", () => {
    const request = authorizeRequest(processingPayment().view(), source);
    expect(requestForAccount(request, { config: {} }).fraudData?.analysisEnabled).to.equal(undefined);
    expect(requestForAccount(request, { config: { antifraudEnabled: true } }).fraudData?.analysisEnabled).to.equal(true);
    const merchantInitiated = authorizeRequest(processingPayment({ initiator: 'merchant', mitType: 'recurring' }).view(), source);
    expect(requestForAccount(merchantInitiated, { config: { antifraudEnabled: true } }).fraudData?.analysisEnabled).to.equal(undefined);
  });
});
