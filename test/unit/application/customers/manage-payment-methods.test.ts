import { expect } from 'chai';
import { ManageCustomers } from '../../../../application/customers/manage-customers';
import { ManagePaymentMethods, type SaveCardCommand } from '../../../../application/customers/manage-payment-methods';
import type { TenantScope } from '../../../../domain/shared/environment';
import { account, paymentDeps } from '../../../support/payment-fakes';
import { refusal } from '../../../support/refusal';

const sandbox: TenantScope = { organizationId: 'org_1', environment: 'sandbox' };
const live: TenantScope = { organizationId: 'org_1', environment: 'live' };
const card: SaveCardCommand['card'] = { token: 'tok_sandbox_4111', brand: 'visa', last4: '1111', expMonth: 12, expYear: 2030 };

/** A customer of the sandbox, cheap account ca_a and dearer ca_b for zero-value authorizations. */
async function withCustomer() {
  const setup = paymentDeps([account('ca_a', 100), account('ca_b', 200)]);
  const recorded: Array<{ accountId: string; outcome: string }> = [];
  const deps = { ...setup.deps, recordCall: async (_tx: unknown, _scope: unknown, accountId: string, call: { outcome: string }) => void recorded.push({ accountId, outcome: call.outcome }) };
  const customer = await new ManageCustomers(deps).create(sandbox, { name: 'Ana' });
  const methods = new ManagePaymentMethods(deps);
  const stored = async (id: string) => (await setup.deps.paymentMethods.find({} as never, sandbox, id))?.toPrimitives() ?? null;
  return { ...setup, recorded, customer, methods, stored };
}

describe('ManagePaymentMethods (saved cards, optionally verified by a zero-value authorization)', () => {
  it('saves a card without verify: not_verified, no acquirer call, no event', async () => {
    const { methods, customer, connectors, outbox, stored } = await withCustomer();
    const saved = await methods.save(sandbox, customer.id, { card });
    expect([saved.customerId, saved.verification.status]).to.deep.equal([customer.id, 'not_verified']);
    expect((await stored(saved.id))?.tokenReference.token).to.equal('tok_sandbox_4111');
    expect(connectors.zeroAuthCalls).to.have.length(0);
    expect(outbox.events).to.have.length(0);
  });

  it('verify: approved on the cheapest account is valid, recorded with payment_method.verified and the call', async () => {
    const { methods, customer, connectors, outbox, stored, recorded } = await withCustomer();
    const saved = await methods.save(sandbox, customer.id, { card, verify: true });
    expect(saved.verification.status).to.equal('valid');
    expect(connectors.zeroAuthCalls.map((c) => [c.accountId, c.input.idempotencyKey])).to.deep.equal([['ca_a', `${saved.id}_verify`]]);
    expect((await stored(saved.id))?.verification).to.include({ status: 'valid', connectorAccountId: 'ca_a', rawCode: '00' });
    expect(outbox.types()).to.deep.equal(['payment_method.verified']);
    expect(recorded).to.deep.equal([{ accountId: 'ca_a', outcome: 'approved' }]);
  });

  it('verify: a technical failure falls back to the next account; an issuer decline is invalid with its classified decline', async () => {
    const { methods, customer, connectors, stored, recorded } = await withCustomer();
    connectors.scriptZeroAuth('ca_a', 'technical').scriptZeroAuth('ca_b', { status: 'declined', rawCode: '51', message: 'insufficient funds' });
    const saved = await methods.save(sandbox, customer.id, { card, verify: true });
    expect(saved.verification.status).to.equal('invalid');
    expect(saved.verification.decline).to.not.equal(null);
    expect((await stored(saved.id))?.verification).to.include({ status: 'invalid', connectorAccountId: 'ca_b', rawCode: '51' });
    expect(recorded).to.deep.equal([{ accountId: 'ca_a', outcome: 'technical_failure' }, { accountId: 'ca_b', outcome: 'declined' }]);
  });

  it('verify: every account down is unavailable (says nothing about the card), each call recorded', async () => {
    const { methods, customer, connectors, recorded } = await withCustomer();
    connectors.scriptZeroAuth('ca_a', 'timeout').scriptZeroAuth('ca_b', 'technical');
    const saved = await methods.save(sandbox, customer.id, { card, verify: true });
    expect(saved.verification.status).to.equal('unavailable');
    expect(recorded.map((r) => r.outcome)).to.deep.equal(['timeout', 'technical_failure']);
  });

  it('verify with a pinned account calls only that account', async () => {
    const { methods, customer, connectors } = await withCustomer();
    await methods.save(sandbox, customer.id, { card: { ...card, connectorAccountId: 'ca_b' }, verify: true });
    expect(connectors.zeroAuthCalls.map((c) => c.accountId)).to.deep.equal(['ca_b']);
  });

  it('a pinned account that is not of this environment is not_found and saves nothing', async () => {
    const { methods, customer, deps } = await withCustomer();
    expect(await refusal(methods.save(sandbox, customer.id, { card: { ...card, connectorAccountId: 'ca_elsewhere' } }))).to.deep.equal({ code: 'not_found', param: null });
    expect(await deps.paymentMethods.listForCustomer({} as never, sandbox, customer.id)).to.have.length(0);
  });

  it('an unknown customer, or one of another environment, is not_found and saves nothing', async () => {
    const { methods, customer, deps } = await withCustomer();
    expect(await refusal(methods.save(live, customer.id, { card }))).to.deep.equal({ code: 'not_found', param: null });
    expect(await refusal(methods.save(sandbox, 'cus_nowhere', { card }))).to.deep.equal({ code: 'not_found', param: null });
    expect(await deps.paymentMethods.listForCustomer({} as never, sandbox, customer.id)).to.have.length(0);
  });

  it('a token too short is validation_failed on body.card.token', async () => {
    const { methods, customer } = await withCustomer();
    expect(await refusal(methods.save(sandbox, customer.id, { card: { ...card, token: 'short' } }))).to.deep.equal({ code: 'validation_failed', param: 'body.card.token' });
  });

  it('lists the customer cards; a removed card is gone from the list and cannot be removed twice', async () => {
    const { methods, customer } = await withCustomer();
    const kept = await methods.save(sandbox, customer.id, { card });
    const removed = await methods.save(sandbox, customer.id, { card: { ...card, last4: '4242' } });
    expect((await methods.remove(sandbox, removed.id)).deleted).to.equal(true);
    expect((await methods.list(sandbox, customer.id)).data.map((m) => m.id)).to.deep.equal([kept.id]);
    expect(await refusal(methods.remove(sandbox, removed.id))).to.deep.equal({ code: 'not_found', param: null });
  });

  it('listing the cards of an unknown customer is not_found', async () => {
    const { methods } = await withCustomer();
    expect(await refusal(methods.list(sandbox, 'cus_nowhere'))).to.deep.equal({ code: 'not_found', param: null });
  });
});
