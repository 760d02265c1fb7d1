import { expect } from 'chai';
import chai from 'chai';
import chaiAsPromised from 'chai-as-promised';
import { ManageCustomers } from '../../../../application/customers/manage-customers';
import type { TenantScope } from '../../../../domain/shared/environment';
import { refusal } from '../../../support/refusal';
import { FakeTransactor, InMemoryCustomers, SequentialIds, SteppingClock } from '../../../support/payment-fakes';

chai.use(chaiAsPromised);

const sandbox: TenantScope = { organizationId: 'org_1', environment: 'sandbox' };
const live: TenantScope = { organizationId: 'org_1', environment: 'live' };

function manageCustomers() {
  const customers = new InMemoryCustomers();
  const transactor = new FakeTransactor();
  const clock = new SteppingClock(new Date('2026-03-01T12:00:00.000Z'), 1_000);
  return { customers, transactor, manage: new ManageCustomers({ transactor, clock, ids: new SequentialIds(), customers }) };
}

describe('ManageCustomers (create, read, update, list)', () => {
  it('creates a customer in the caller scope with the fields normalized, and reads it back', async () => {
    const { manage, customers } = manageCustomers();
    const created = await manage.create(sandbox, { name: ' Ana ', email: 'Ana@Example.COM', document: '529.982.247-25' });
    expect([created.id, created.name, created.email, created.document, created.documentType]).to.deep.equal(['cus_0001', 'Ana', 'ana@example.com', '52998224725', 'cpf']);
    expect(customers.rows.size).to.equal(1);
    expect(await manage.get(sandbox, created.id)).to.deep.equal(created);
  });

  it('refuses an invalid field with validation_failed naming it, storing nothing', async () => {
    const { manage, customers } = manageCustomers();
    expect(await refusal(manage.create(sandbox, { name: 'Ana', document: '111.111.111-12' }))).to.deep.equal({ code: 'validation_failed', param: 'body.document' });
    expect(customers.rows.size).to.equal(0);
  });

  it('a customer of another environment is not_found, to read and to update', async () => {
    const { manage } = manageCustomers();
    const created = await manage.create(sandbox, { name: 'Ana' });
    await expect(manage.get(live, created.id)).to.be.rejected.and.eventually.include({ code: 'not_found' });
    await expect(manage.update(live, created.id, { name: 'Eve' })).to.be.rejected.and.eventually.include({ code: 'not_found' });
    expect((await manage.get(sandbox, created.id)).name).to.equal('Ana');
  });

  it('update saves the patched fields and a new updatedAt, keeping the others', async () => {
    const { manage } = manageCustomers();
    const created = await manage.create(sandbox, { name: 'Ana', email: 'ana@example.com' });
    const updated = await manage.update(sandbox, created.id, { name: 'Ana Maria' });
    expect([updated.name, updated.email]).to.deep.equal(['Ana Maria', 'ana@example.com']);
    expect(updated.updatedAt > created.updatedAt).to.equal(true);
    expect(await manage.get(sandbox, created.id)).to.deep.equal(updated);
  });

  it('an invalid update is refused and changes nothing', async () => {
    const { manage } = manageCustomers();
    const created = await manage.create(sandbox, { name: 'Ana', email: 'ana@example.com' });
    expect(await refusal(manage.update(sandbox, created.id, { email: 'not-an-email' }))).to.deep.equal({ code: 'validation_failed', param: 'body.email' });
    expect(await manage.get(sandbox, created.id)).to.deep.equal(created);
  });

  it('lists pages newest first with hasMore, and only the caller scope', async () => {
    const { manage } = manageCustomers();
    for (const name of ['A', 'B', 'C']) await manage.create(sandbox, { name });
    await manage.create(live, { name: 'Live' });
    const first = await manage.list(sandbox, { limit: 2 });
    expect([first.data.map((c) => c.name), first.hasMore]).to.deep.equal([['C', 'B'], true]);
    const second = await manage.list(sandbox, { limit: 2, startingAfter: first.data[1]!.id });
    expect([second.data.map((c) => c.name), second.hasMore]).to.deep.equal([['A'], false]);
  });

  it('a startingAfter that is not a customer of the caller scope is validation_failed on query.startingAfter', async () => {
    const { manage } = manageCustomers();
    const liveCustomer = await manage.create(live, { name: 'Live' });
    for (const cursor of [liveCustomer.id, 'cus_nowhere']) {
      expect(await refusal(manage.list(sandbox, { limit: 10, startingAfter: cursor }))).to.deep.equal({ code: 'validation_failed', param: 'query.startingAfter' });
    }
  });
});
