import { expect } from 'chai';
import { clientSecretOf, needsClientSecret } from '../../../../domain/payment/payment-client-secret';

const secret = { sealed: 'sealed', sha256: 'a'.repeat(64) };
const checkoutSecret = { sealed: 'checkout', sha256: 'b'.repeat(64) };

describe('payment client secret (clientSecret while requires_payment_method or requires_action)', () => {
  it("is the checkout's when the payment has one, else the one given when it came to await the buyer", () => {
    expect(clientSecretOf({ checkout: { secret: checkoutSecret }, clientSecret: null })).to.equal(checkoutSecret);
    expect(clientSecretOf({ checkout: null, clientSecret: secret })).to.equal(secret);
    expect(clientSecretOf({})).to.equal(null);
  });

  it('is needed by a payment awaiting the buyer without one, in requires_payment_method or requires_action only', () => {
    expect(needsClientSecret({ status: 'requires_action' })).to.equal(true);
    expect(needsClientSecret({ status: 'requires_payment_method', clientSecret: null })).to.equal(true);
    expect(needsClientSecret({ status: 'requires_action', clientSecret: secret })).to.equal(false);
    expect(needsClientSecret({ status: 'requires_action', checkout: { secret: checkoutSecret } })).to.equal(false);
    for (const status of ['processing', 'authorized', 'captured', 'failed', 'canceled', 'voided'] as const) {
      expect(needsClientSecret({ status }), status).to.equal(false);
    }
  });
});
