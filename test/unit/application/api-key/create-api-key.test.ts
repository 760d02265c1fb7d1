import { expect } from 'chai';
import { CreateApiKey } from '../../../../application/api-key/create-api-key';
import { SCOPES } from '../../../../domain/api-key/scopes';
import { DomainError, NotFoundError } from '../../../../domain/shared/domain-error';
import { CountingApiKeySecrets, InMemoryApiKeys, InMemoryOrganizations } from '../../../support/api-key-fakes';
import { FakeTransactor, SequentialIds, SteppingClock } from '../../../support/payment-fakes';

function world() {
  const organizations = new InMemoryOrganizations().add('org_1');
  const apiKeys = new InMemoryApiKeys();
  const secrets = new CountingApiKeySecrets();
  const create = new CreateApiKey(new FakeTransactor(), organizations, apiKeys, secrets, new SequentialIds(), new SteppingClock());
  return { apiKeys, secrets, create };
}

describe('CreateApiKey', () => {
  it('stores only the hash and last four of the secret, and answers the secret once', async () => {
    const { apiKeys, secrets, create } = world();
    const { key, secret } = await create.execute({ organizationId: 'org_1', environment: 'live', name: 'Checkout' });
    expect(secret).to.match(/^sk_live_/);
    expect(apiKeys.rows).to.have.length(1);
    const stored = apiKeys.rows[0]!;
    expect(stored).to.include({ id: key.id, organizationId: 'org_1', environment: 'live', secretHash: secrets.hash(secret), last4: secret.slice(-4), revokedAt: null });
    expect(JSON.stringify(stored)).not.to.include(secret);
  });

  it('gets every scope unless given, and each scope once', async () => {
    const { create } = world();
    expect((await create.execute({ organizationId: 'org_1', environment: 'sandbox', name: 'All' })).key.scopes).to.deep.equal([...SCOPES]);
    const one = SCOPES[0]!;
    expect((await create.execute({ organizationId: 'org_1', environment: 'sandbox', name: 'One', scopes: [one, one] })).key.scopes).to.deep.equal([one]);
  });

  it('refuses an unknown scope (body.scopes), a bad name (body.name) and an unknown organization, storing nothing', async () => {
    const { apiKeys, create } = world();
    const scopeRefusal = (await create.execute({ organizationId: 'org_1', environment: 'sandbox', name: 'x', scopes: ['payments:everything'] }).catch((e: unknown) => e)) as DomainError;
    expect([scopeRefusal.code, scopeRefusal.meta.param]).to.deep.equal(['validation_failed', 'body.scopes']);
    const nameRefusal = (await create.execute({ organizationId: 'org_1', environment: 'sandbox', name: '' }).catch((e: unknown) => e)) as DomainError;
    expect([nameRefusal.code, nameRefusal.meta.param]).to.deep.equal(['validation_failed', 'body.name']);
    await expect(create.execute({ organizationId: 'org_unknown', environment: 'sandbox', name: 'x' })).to.be.rejectedWith(NotFoundError);
    expect(apiKeys.rows).to.have.length(0);
  });
});
