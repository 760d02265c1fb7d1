import { expect } from 'chai';
import { DomainError } from '../../../../domain/shared/domain-error';
import {
  applyChallengeTrigger,
  assertChallengeUsable,
  assertMayEnroll,
  CHALLENGE_STAGES,
  CHALLENGE_TRANSITIONS,
  hashChallengeToken,
  openChallenge,
  proposeAuthenticator,
  recordChallengeFailure,
  restartForEnrollment,
  type ChallengeStage,
  type ChallengeTrigger,
} from '../../../../domain/identity/login-challenge';

const now = new Date('2026-11-22T04:00:00Z');
const open = (hasConfirmedAuthenticator: boolean) =>
  openChallenge({ id: 'chl_1', userId: 'usr_1', organizationId: 'org_1', token: 't'.repeat(43), hasConfirmedAuthenticator, purpose: 'login', now });

describe('login challenge state machine', () => {
  it('starts at enrollment without an authenticator and at code entry with one', () => {
    expect(open(false).stage).to.equal('mfa_setup_required');
    expect(open(true).stage).to.equal('mfa_required');
  });

  it('walks every (stage, trigger) pair against the table', () => {
    const triggers: ChallengeTrigger[] = ['authenticator_confirmed', 'code_verified', 'recovery_code_used', 'too_many_failures'];
    const expected: Record<ChallengeStage, Partial<Record<ChallengeTrigger, ChallengeStage>>> = {
      mfa_setup_required: { authenticator_confirmed: 'completed', too_many_failures: 'locked' },
      mfa_required: { code_verified: 'completed', recovery_code_used: 'mfa_setup_required', too_many_failures: 'locked' },
      completed: {},
      locked: {},
    };
    expect(CHALLENGE_TRANSITIONS).to.deep.equal(expected);
    for (const stage of CHALLENGE_STAGES) {
      for (const trigger of triggers) {
        const challenge = { ...open(true), stage };
        const target = expected[stage][trigger];
        if (target) expect(applyChallengeTrigger(challenge, trigger).stage).to.equal(target);
        else expect(() => applyChallengeTrigger(challenge, trigger)).to.throw(DomainError).with.property('code', 'invalid_state');
      }
    }
  });

  it('a recovery code sends the challenge back to enrollment under a new token', () => {
    const challenge = open(true);
    const restarted = restartForEnrollment(challenge, 'n'.repeat(43), new Date(now.getTime() + 1000));
    expect(restarted.stage).to.equal('mfa_setup_required');
    expect(restarted.tokenHash).to.equal(hashChallengeToken('n'.repeat(43)));
    expect(restarted.tokenHash).to.not.equal(challenge.tokenHash);
  });

  it('setup is refused unless the challenge waits for enrollment', () => {
    expect(proposeAuthenticator(open(false), 'ABC').pendingSecret).to.equal('ABC');
    expect(() => proposeAuthenticator(open(true), 'ABC')).to.throw(DomainError).with.property('code', 'invalid_state');
  });

  it('locks after five failures', () => {
    let challenge = open(true);
    for (let i = 0; i < 4; i++) challenge = recordChallengeFailure(challenge);
    expect(challenge.stage).to.equal('mfa_required');
    challenge = recordChallengeFailure(challenge);
    expect(challenge.stage).to.equal('locked');
    expect(() => assertChallengeUsable(challenge, now)).to.throw(DomainError).with.property('code', 'invalid_challenge');
  });

  it('expires after ten minutes and a completed challenge cannot be used again', () => {
    const challenge = open(true);
    expect(assertChallengeUsable(challenge, new Date(now.getTime() + 599_000))).to.equal(challenge);
    expect(() => assertChallengeUsable(challenge, new Date(now.getTime() + 600_000))).to.throw(DomainError);
    expect(() => assertChallengeUsable(applyChallengeTrigger(challenge, 'code_verified'), now)).to.throw(DomainError);
    expect(() => assertChallengeUsable(null, now)).to.throw(DomainError);
  });

  it('an enrollment challenge of a login or registration enrolls only while no authenticator is confirmed; a recovery one replaces it', () => {
    const enrolling = open(false);
    expect(() => assertMayEnroll(enrolling, false)).not.to.throw();
    expect(() => assertMayEnroll(enrolling, true)).to.throw(DomainError, /sign in again/);
    expect(() => assertMayEnroll({ ...enrolling, purpose: 'registration' }, true)).to.throw(DomainError);
    const recovering = restartForEnrollment(open(true), 'n'.repeat(43), now);
    expect(recovering.purpose).to.equal('recovery');
    expect(() => assertMayEnroll(recovering, true)).not.to.throw();
  });
});
