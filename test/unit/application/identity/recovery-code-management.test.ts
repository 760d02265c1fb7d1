import { expect } from 'chai';
import { MfaChallenge } from '../../../../application/identity/mfa-challenge';
import { RecoveryCodeManagement } from '../../../../application/identity/recovery-code-management';
import { Register } from '../../../../application/identity/register';
import type { RegisterInput } from '../../../../domain/identity/register-rules';
import { hashRecoveryCode, RECOVERY_CODE_COUNT } from '../../../../domain/identity/recovery-codes';
import { totpAt } from '../../../../domain/identity/totp';
import { fakeIdentity } from '../../../support/identity-fakes';
import { refusal } from '../../../support/refusal';

const PASSWORD = 'correct horse battery';
const registration: RegisterInput = {
  name: 'Ana',
  email: 'ana@example.com',
  password: PASSWORD,
  phone: '',
  acceptedTerms: true,
  authorizedRepresentative: true,
  company: {
    document: '11.222.333/0001-81',
    legalName: 'ACME LTDA',
    name: 'ACME',
    activity: 'Retail',
    website: '',
    address: { postalCode: '01310100', line1: 'Av Paulista', streetNumber: '1', complement: '', neighborhood: 'Centro', city: 'SP', state: 'SP' },
  },
};

/** A registered user; enrolled: with an authenticator (and the recovery codes its enrollment created). */
async function user(enrolled = true) {
  const world = fakeIdentity();
  const registered = await new Register(world.deps).execute(registration);
  let secret = '';
  if (enrolled) {
    const mfa = new MfaChallenge(world.deps);
    secret = (await mfa.setup(registered.challengeToken)).manualKey;
    await mfa.verify({ challengeToken: registered.challengeToken, mfaCode: totpAt(secret, world.clock.now()) });
    world.clock.advance(30_000);
  }
  const codes = () => world.store.state.codes.filter((c) => c.userId === registered.user.id);
  return { ...world, userId: registered.user.id, secret, codes, manage: new RecoveryCodeManagement(world.deps), freshCode: () => totpAt(secret, world.clock.now()) };
}

describe('RecoveryCodeManagement (count and regenerate recovery codes)', () => {
  it('counts the codes not used yet', async () => {
    const { manage, userId, store } = await user();
    expect(await manage.count(userId)).to.deep.equal({ available: RECOVERY_CODE_COUNT });
    store.state.codes[0]!.usedAt = new Date();
    expect(await manage.count(userId)).to.deep.equal({ available: RECOVERY_CODE_COUNT - 1 });
  });

  it('with the password and a fresh code: a new set replaces every old code, stored only as hashes', async () => {
    const { manage, userId, codes, freshCode } = await user();
    const oldHashes = codes().map((c) => c.hash);
    const { recoveryCodes } = await manage.regenerate(userId, PASSWORD, freshCode());
    expect(recoveryCodes).to.have.length(RECOVERY_CODE_COUNT);
    expect(codes().map((c) => c.hash)).to.deep.equal(recoveryCodes.map(hashRecoveryCode));
    expect(codes().map((c) => c.hash)).not.to.include.members(oldHashes);
    expect(JSON.stringify(codes())).not.to.include(recoveryCodes[0]);
    expect(await manage.count(userId)).to.deep.equal({ available: RECOVERY_CODE_COUNT });
  });

  it('a wrong password is invalid_current_password and changes nothing', async () => {
    const { manage, userId, codes, freshCode } = await user();
    const before = codes();
    expect(await refusal(manage.regenerate(userId, 'wrong password', freshCode()))).to.deep.equal({ code: 'invalid_current_password', param: 'body.currentPassword' });
    expect(codes()).to.deep.equal(before);
  });

  it('a wrong code, or the same code used twice, is invalid_mfa_code and changes nothing', async () => {
    const { manage, userId, codes, freshCode } = await user();
    const before = codes();
    expect(await refusal(manage.regenerate(userId, PASSWORD, '000000'))).to.deep.equal({ code: 'invalid_mfa_code', param: 'body.mfaCode' });
    expect(codes()).to.deep.equal(before);
    const code = freshCode();
    const { recoveryCodes } = await manage.regenerate(userId, PASSWORD, code);
    expect(await refusal(manage.regenerate(userId, PASSWORD, code))).to.deep.equal({ code: 'invalid_mfa_code', param: 'body.mfaCode' });
    expect(codes().map((c) => c.hash)).to.deep.equal(recoveryCodes.map(hashRecoveryCode));
  });

  it('a user without an authenticator is mfa_setup_required; an unknown user is unauthorized', async () => {
    const { manage, userId, codes } = await user(false);
    expect(await refusal(manage.regenerate(userId, PASSWORD, '123456'))).to.deep.equal({ code: 'mfa_setup_required', param: null });
    expect(codes()).to.deep.equal([]);
    expect(await refusal(manage.regenerate('usr_nowhere', PASSWORD, '123456'))).to.deep.equal({ code: 'unauthorized', param: null });
  });
});
