import { expect } from 'chai';
import { CreateOwner } from '../../../../application/identity/create-owner';
import { PasswordResetFlow } from '../../../../application/identity/password-reset-flow';
import { RESET_TOKEN_TTL_MS } from '../../../../domain/identity/password-reset';
import { trialClaims } from '../../../../domain/identity/company';
import { fakeIdentity } from '../../../support/identity-fakes';
import { refusal } from '../../../support/refusal';

function world() {
  const setup = fakeIdentity();
  return { ...setup, createOwner: new CreateOwner(setup.deps) };
}

describe('CreateOwner (operators create the owner of an existing organization)', () => {
  it('creates the user as owner of the organization, e-mail normalized, name from the e-mail when none is given', async () => {
    const { createOwner, store } = world();
    const owner = await createOwner.execute({ organizationId: 'org_1', email: 'Ana@Example.COM' });
    expect(owner.email).to.equal('ana@example.com');
    expect(store.state.users.get(owner.userId)).to.deep.include({ email: 'ana@example.com', name: 'ana', authenticator: null });
    expect(store.state.memberships).to.deep.equal([{ userId: owner.userId, organizationId: 'org_1', role: 'owner', createdAt: store.state.users.get(owner.userId)!.createdAt }]);
  });

  it('the one-time reset token is stored only as its hash, valid for the reset TTL, and lets the owner choose the password', async () => {
    const { createOwner, store, clock, deps } = world();
    const owner = await createOwner.execute({ organizationId: 'org_1', email: 'ana@example.com', name: 'Ana' });
    expect(owner.expiresAt.getTime()).to.equal(clock.now().getTime() + RESET_TOKEN_TTL_MS);
    expect(JSON.stringify([...store.state.resets.values()])).not.to.include(owner.resetToken);
    // the random password is not the token (which the operator sees)
    expect(await deps.hasher.verify(owner.resetToken, store.state.users.get(owner.userId)!.passwordHash)).to.equal(false);
    await new PasswordResetFlow(deps).reset(owner.resetToken, 'a new long passphrase');
    expect(await deps.hasher.verify('a new long passphrase', store.state.users.get(owner.userId)!.passwordHash)).to.equal(true);
  });

  it('records the e-mail trial claim, so a later registration with it gets no trial', async () => {
    const { createOwner, store } = world();
    await createOwner.execute({ organizationId: 'org_1', email: 'ana@example.com' });
    expect(store.state.claims.has(trialClaims('', 'ana@example.com')[1]!)).to.equal(true);
  });

  it('an invalid e-mail is validation_failed on email and stores nothing', async () => {
    const { createOwner, store } = world();
    expect(await refusal(createOwner.execute({ organizationId: 'org_1', email: 'not-an-email' }))).to.deep.equal({ code: 'validation_failed', param: 'email' });
    expect([store.state.users.size, store.state.memberships.length, store.state.resets.size]).to.deep.equal([0, 0, 0]);
  });

  it('an e-mail already registered is email_already_registered and changes nothing', async () => {
    const { createOwner, store } = world();
    await createOwner.execute({ organizationId: 'org_1', email: 'ana@example.com' });
    const before = structuredClone(store.state);
    expect(await refusal(createOwner.execute({ organizationId: 'org_2', email: 'ANA@example.com' }))).to.deep.equal({ code: 'email_already_registered', param: null });
    expect(store.state).to.deep.equal(before);
  });
});
