import { expect } from 'chai';
import { CreatePayment } from '../../../../application/payments/create-payment';
import { ListPayments } from '../../../../application/payments/list-payments';
import { account, paymentDeps } from '../../../support/payment-fakes';
import { refusal } from '../../../support/refusal';

const sandbox = { organizationId: 'org_1', environment: 'sandbox' as const };
const otherOrg = { organizationId: 'org_2', environment: 'sandbox' as const };
const card = { token: 'tok_sandbox_any', brand: 'visa', last4: '1111' };

/** Three sandbox payments (the second one after a fallback) and one of another organization. */
async function threePayments() {
  const setup = paymentDeps([account('ca_a', 100), account('ca_b', 200)]);
  const create = new CreatePayment(setup.deps);
  const first = await create.execute({ scope: sandbox, amount: 1_000, card });
  setup.connectors.script('ca_a', 'technical');
  const second = await create.execute({ scope: sandbox, amount: 2_000, card });
  const third = await create.execute({ scope: sandbox, amount: 3_000, card });
  await create.execute({ scope: otherOrg, amount: 4_000, card });
  return { ...setup, ids: [first.id, second.id, third.id], list: new ListPayments(setup.deps) };
}

describe('ListPayments (cursor-paged, newest first)', () => {
  it('pages newest first with hasMore, the total on the first page only', async () => {
    const { list, ids } = await threePayments();
    const first = await list.execute({ scope: sandbox, query: { limit: 2 } });
    expect(first.data.map((p) => p.id)).to.deep.equal([ids[2], ids[1]]);
    expect([first.hasMore, first.totalCount]).to.deep.equal([true, 3]);
    const next = await list.execute({ scope: sandbox, query: { limit: 2, startingAfter: ids[1] } });
    expect(next.data.map((p) => p.id)).to.deep.equal([ids[0]]);
    expect(next.hasMore).to.equal(false);
    expect(next).not.to.have.property('totalCount');
    // a page that holds exactly the rest has no more after it
    expect((await list.execute({ scope: sandbox, query: { limit: 3 } })).hasMore).to.equal(false);
  });

  it('each item carries an attempts summary instead of its attempts', async () => {
    const { list, ids } = await threePayments();
    const { data } = await list.execute({ scope: sandbox, query: { limit: 10 } });
    const fallback = data.find((p) => p.id === ids[1])!;
    expect(fallback).not.to.have.property('attempts');
    expect(fallback.attemptsSummary).to.deep.equal({ count: 2, decidedBy: { connectorAccountId: 'ca_b', connector: 'sandbox' }, hasFallback: true, lastDeclineReason: null });
  });

  it('a startingAfter that is not a payment of the caller scope is validation_failed on query.startingAfter', async () => {
    const { list, deps } = await threePayments();
    const foreign = [...(await deps.queries.list({} as never, otherOrg, { limit: 1 })).rows][0]!.id;
    for (const cursor of [foreign, 'pay_nowhere']) {
      expect(await refusal(list.execute({ scope: sandbox, query: { limit: 10, startingAfter: cursor } }))).to.deep.equal({ code: 'validation_failed', param: 'query.startingAfter' });
    }
  });
});
