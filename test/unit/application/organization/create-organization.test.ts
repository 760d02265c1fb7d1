import { expect } from 'chai';
import { CreateOrganization } from '../../../../application/organization/create-organization';
import { DomainError } from '../../../../domain/shared/domain-error';
import { InMemoryOrganizations } from '../../../support/api-key-fakes';
import { FakeTransactor, SequentialIds, SteppingClock } from '../../../support/payment-fakes';

describe('CreateOrganization', () => {
  it('stores the organization with its name trimmed, under a new org_ id', async () => {
    const organizations = new InMemoryOrganizations();
    const created = await new CreateOrganization(new FakeTransactor(), organizations, new SequentialIds(), new SteppingClock()).execute({ name: '  Acme Pagamentos  ', parentOrganizationId: 'org_parent' });
    expect(created.id).to.match(/^org_/);
    expect(organizations.rows.get(created.id)).to.include({ name: 'Acme Pagamentos', parentOrganizationId: 'org_parent' });
  });

  it('refuses a name shorter than 2 or longer than 120 characters once trimmed, storing nothing', async () => {
    const organizations = new InMemoryOrganizations();
    const create = new CreateOrganization(new FakeTransactor(), organizations, new SequentialIds(), new SteppingClock());
    for (const name of [' a ', 'x'.repeat(121)]) {
      const refusal = (await create.execute({ name }).catch((e: unknown) => e)) as DomainError;
      expect(refusal).to.be.instanceOf(DomainError);
      expect([refusal.code, refusal.meta.param]).to.deep.equal(['validation_failed', 'name']);
    }
    expect(organizations.rows.size).to.equal(0);
  });
});
