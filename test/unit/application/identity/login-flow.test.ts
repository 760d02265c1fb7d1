import chai, { expect } from 'chai';
import chaiAsPromised from 'chai-as-promised';
import { Accounts } from '../../../../application/identity/accounts';
import { Login } from '../../../../application/identity/login';
import { MfaChallenge } from '../../../../application/identity/mfa-challenge';
import { PasswordResetFlow } from '../../../../application/identity/password-reset-flow';
import { Register } from '../../../../application/identity/register';
import { SessionLifecycle } from '../../../../application/identity/session-lifecycle';
import { totpAt } from '../../../../domain/identity/totp';
import type { RegisterInput } from '../../../../domain/identity/register-rules';
import { fakeIdentity } from '../../../support/identity-fakes';

chai.use(chaiAsPromised);

const input = (email = 'ana@example.com', document = '11.222.333/0001-81'): RegisterInput => ({
  name: 'Ana',
  email,
  password: 'correct horse battery',
  phone: '',
  acceptedTerms: true,
  authorizedRepresentative: true,
  company: {
    document,
    legalName: 'ACME LTDA',
    name: 'ACME',
    activity: 'Retail',
    website: '',
    address: { postalCode: '01310100', line1: 'Av Paulista', streetNumber: '1', complement: '', neighborhood: 'Centro', city: 'SP', state: 'SP' },
  },
});

async function enrolled() {
  const world = fakeIdentity();
  const mfa = new MfaChallenge(world.deps);
  const registered = await new Register(world.deps).execute(input());
  const setup = await mfa.setup(registered.challengeToken);
  const verified = await mfa.verify({ challengeToken: registered.challengeToken, mfaCode: totpAt(setup.manualKey, world.clock.now()) });
  world.clock.advance(30_000);
  if (verified.kind !== 'tokens') throw new Error('expected tokens');
  return { ...world, mfa, secret: setup.manualKey, tokens: verified, userId: registered.user.id };
}

describe('identity use cases (in-memory ports)', () => {
  it('registration opens enrollment and no session; a reused document gets no trial', async () => {
    const world = fakeIdentity();
    const register = new Register(world.deps);
    const first = await register.execute(input());
    expect(first.stage).to.equal('mfa_setup_required');
    expect(first.trialEligible).to.equal(true);
    expect(world.store.state.sessions.size).to.equal(0);
    const second = await register.execute(input('bob@example.com', '11222333000181'));
    expect(second.trialEligible).to.equal(false);
    await expect(register.execute(input('ANA@example.com', '529.982.247-25'))).to.be.rejected.and.eventually.have.property('code', 'email_already_registered');
  });

  it('a wrong code is counted even though the request fails (committed before the error)', async () => {
    const world = await enrolled();
    const login = await new Login(world.deps).execute({ email: 'ana@example.com', password: 'correct horse battery' });
    const wrong = totpAt(world.secret, new Date(world.clock.now().getTime() + 600_000));
    await expect(world.mfa.verify({ challengeToken: login.challengeToken, mfaCode: wrong })).to.be.rejected.and.eventually.have.property('code', 'invalid_mfa_code');
    const challenge = [...world.store.state.challenges.values()].find((c) => c.purpose === 'login')!;
    expect(challenge.failures).to.equal(1);
  });

  it('the first enrollment issues ten recovery codes once', async () => {
    const world = await enrolled();
    expect(world.tokens.recoveryCodes).to.have.length(10);
    const login = await new Login(world.deps).execute({ email: 'ana@example.com', password: 'correct horse battery' });
    const next = await world.mfa.verify({ challengeToken: login.challengeToken, mfaCode: totpAt(world.secret, world.clock.now()) });
    expect(next.kind === 'tokens' && next.recoveryCodes).to.equal(null);
  });

  it('refresh reuse is persisted as a revoked family even though the request fails', async () => {
    const world = await enrolled();
    const lifecycle = new SessionLifecycle(world.deps);
    const rotated = await lifecycle.refresh(world.tokens.refreshToken);
    await expect(lifecycle.refresh(world.tokens.refreshToken)).to.be.rejected.and.eventually.have.property('code', 'unauthorized');
    const family = [...world.store.state.sessions.values()][0]!;
    expect(family.revokedReason).to.equal('reuse_detected');
    await expect(lifecycle.refresh(rotated.refreshToken)).to.be.rejected;
    expect(await new Accounts(world.deps).authenticate(rotated.accessToken)).to.equal(null);
  });

  it('forgot-password sends nothing for unknown e-mails or when e-mail is disabled', async () => {
    const world = await enrolled();
    const flow = new PasswordResetFlow(world.deps);
    await (await flow.forgotPassword('ghost@example.com')).delivery;
    expect(world.mailer.sent).to.have.length(0);
    await (await flow.forgotPassword('Ana@Example.com')).delivery;
    expect(world.mailer.sent).to.have.length(1);
    expect(world.mailer.sent[0]!.text).to.contain('https://pay.example.com/reset-password?token=');

    const disabled = fakeIdentity();
    await new Register(disabled.deps).execute(input());
    const quiet = new PasswordResetFlow({ ...disabled.deps, mailer: { enabled: false, send: async () => expect.fail('must not send') } });
    await (await quiet.forgotPassword('ana@example.com')).delivery;
    expect(disabled.store.state.resets.size).to.equal(0);
  });

  it('reset keeps the authenticator and ends every session', async () => {
    const world = await enrolled();
    const flow = new PasswordResetFlow(world.deps);
    await (await flow.forgotPassword('ana@example.com')).delivery;
    const token = /Reset token: (\S+)/.exec(world.mailer.sent[0]!.text)![1]!;
    await flow.reset(token, 'a brand new password');
    const user = world.store.state.users.get(world.userId)!;
    expect(user.authenticator?.secret).to.equal(world.secret);
    expect(await new Accounts(world.deps).authenticate(world.tokens.accessToken)).to.equal(null);
    await expect(flow.reset(token, 'another new password')).to.be.rejected.and.eventually.have.property('code', 'invalid_reset_token');
  });
});
