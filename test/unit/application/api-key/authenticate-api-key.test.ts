import { expect } from 'chai';
import { AuthenticateApiKey } from '../../../../application/api-key/authenticate-api-key';
import { CreateApiKey } from '../../../../application/api-key/create-api-key';
import type { ChangeFeed, ChangeListener } from '../../../../domain/ports/change-feed';
import { CountingApiKeySecrets, InMemoryApiKeys, InMemoryOrganizations } from '../../../support/api-key-fakes';
import { FakeTransactor, SequentialIds, SteppingClock } from '../../../support/payment-fakes';

/** A change feed the test drives. */
class DrivenFeed implements ChangeFeed {
  live = true;
  private readonly listeners: ChangeListener[] = [];
  subscribe(_topic: string, listener: ChangeListener): void {
    this.listeners.push(listener);
  }
  announce(key: string): void {
    for (const listener of this.listeners) listener.onChange(key);
  }
}

async function world(remember = false) {
  const transactor = new FakeTransactor();
  const apiKeys = new InMemoryApiKeys();
  const secrets = new CountingApiKeySecrets();
  const clock = new SteppingClock();
  const feed = new DrivenFeed();
  const create = new CreateApiKey(transactor, new InMemoryOrganizations().add('org_1'), apiKeys, secrets, new SequentialIds(), clock);
  const authenticate = new AuthenticateApiKey(transactor, apiKeys, secrets, remember ? { changes: feed, clock } : undefined);
  const sandboxKey = await create.execute({ organizationId: 'org_1', environment: 'sandbox', name: 'Sandbox' });
  return { apiKeys, feed, create, authenticate, sandboxKey };
}

describe('AuthenticateApiKey', () => {
  it('resolves a presented secret to its active key', async () => {
    const { authenticate, sandboxKey } = await world();
    expect((await authenticate.execute(sandboxKey.secret))?.id).to.equal(sandboxKey.key.id);
  });

  it('answers null, without a lookup, for anything that is not a key or is too long', async () => {
    const { authenticate, apiKeys } = await world();
    for (const secret of ['', 'Bearer x', 'pk_sandbox_abc', `sk_sandbox_${'a'.repeat(300)}`]) expect(await authenticate.execute(secret)).to.equal(null);
    expect(apiKeys.lookups).to.equal(0);
  });

  it('answers null for an unknown or revoked key', async () => {
    const { authenticate, apiKeys, sandboxKey } = await world();
    expect(await authenticate.execute('sk_sandbox_unknown_secret_0000')).to.equal(null);
    await apiKeys.revoke({} as never, 'org_1', sandboxKey.key.id, new Date());
    expect(await authenticate.execute(sandboxKey.secret)).to.equal(null);
  });

  it('remembering keys: a known key is looked up once, until its revocation is announced', async () => {
    const { authenticate, apiKeys, feed, sandboxKey } = await world(true);
    await authenticate.execute(sandboxKey.secret);
    await authenticate.execute(sandboxKey.secret);
    expect(apiKeys.lookups).to.equal(1);
    await apiKeys.revoke({} as never, 'org_1', sandboxKey.key.id, new Date());
    feed.announce(sandboxKey.key.id);
    expect(await authenticate.execute(sandboxKey.secret)).to.equal(null);
  });

  it('remembering keys: an unknown secret is always looked up, so a key works the moment it is created', async () => {
    const { authenticate, create, apiKeys } = await world(true);
    const next = 'sk_live_secret00000002';
    expect(await authenticate.execute(next)).to.equal(null);
    const created = await create.execute({ organizationId: 'org_1', environment: 'live', name: 'Live' });
    expect(created.secret).to.equal(next);
    expect((await authenticate.execute(next))?.id).to.equal(created.key.id);
    expect(apiKeys.lookups).to.equal(2);
  });
});
