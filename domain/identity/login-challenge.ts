import { createHash } from 'node:crypto';
import { DomainError } from '../shared/domain-error';
import { transition, type TransitionTable } from '../shared/state-machine';

/**
 * The second-factor challenge a password (or a registration) opens. It never grants dashboard access by
 * itself: only `completed` lets the caller issue tokens, and a challenge completes once.
 *
 *   password_ok (no confirmed authenticator) -> mfa_setup_required --authenticator_confirmed--> completed
 *   password_ok (confirmed authenticator)    -> mfa_required --code_verified--> completed
 *                                               mfa_required --recovery_code_used--> mfa_setup_required
 *
 * A recovery code proves the person but not a working authenticator, so the challenge goes back to enrollment
 * with a fresh token; the old authenticator stays in force until the new one is confirmed.
 */
export const CHALLENGE_STAGES = ['mfa_setup_required', 'mfa_required', 'completed', 'locked'] as const;
export type ChallengeStage = (typeof CHALLENGE_STAGES)[number];
export type ChallengeTrigger = 'authenticator_confirmed' | 'code_verified' | 'recovery_code_used' | 'too_many_failures';

export const CHALLENGE_TRANSITIONS = {
  mfa_setup_required: { authenticator_confirmed: 'completed', too_many_failures: 'locked' },
  mfa_required: { code_verified: 'completed', recovery_code_used: 'mfa_setup_required', too_many_failures: 'locked' },
  completed: {},
  locked: {},
} as const satisfies TransitionTable<ChallengeStage, ChallengeTrigger>;

export const CHALLENGE_TTL_MS = 10 * 60 * 1000;
export const CHALLENGE_MAX_FAILURES = 5;

export type ChallengePurpose = 'registration' | 'login' | 'recovery';

export interface LoginChallenge {
  readonly id: string;
  readonly userId: string;
  readonly organizationId: string;
  readonly tokenHash: string;
  readonly stage: ChallengeStage;
  readonly purpose: ChallengePurpose;
  /** Base32 secret proposed by mfa/setup, confirmed by the first valid code. */
  readonly pendingSecret: string | null;
  readonly failures: number;
  readonly createdAt: Date;
  readonly expiresAt: Date;
}

export function hashChallengeToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** The stage right after a valid password (or a registration, which has no authenticator yet). */
export function stageAfterPassword(hasConfirmedAuthenticator: boolean): ChallengeStage {
  return hasConfirmedAuthenticator ? 'mfa_required' : 'mfa_setup_required';
}

export function openChallenge(params: {
  id: string;
  userId: string;
  organizationId: string;
  token: string;
  hasConfirmedAuthenticator: boolean;
  purpose: ChallengePurpose;
  now: Date;
}): LoginChallenge {
  return {
    id: params.id,
    userId: params.userId,
    organizationId: params.organizationId,
    tokenHash: hashChallengeToken(params.token),
    stage: stageAfterPassword(params.hasConfirmedAuthenticator),
    purpose: params.purpose,
    pendingSecret: null,
    failures: 0,
    createdAt: params.now,
    expiresAt: new Date(params.now.getTime() + CHALLENGE_TTL_MS),
  };
}

export function isChallengeExpired(challenge: LoginChallenge, now: Date): boolean {
  return now.getTime() >= challenge.expiresAt.getTime();
}

/** A challenge the caller may still act on; expired, completed and locked ones all read as invalid. */
export function assertChallengeUsable(challenge: LoginChallenge | null, now: Date): LoginChallenge {
  if (!challenge || isChallengeExpired(challenge, now) || challenge.stage === 'completed' || challenge.stage === 'locked') {
    throw new DomainError('invalid_challenge', 'The challenge is invalid or expired; sign in again', { param: 'body.challengeToken' });
  }
  return challenge;
}

export function applyChallengeTrigger(challenge: LoginChallenge, trigger: ChallengeTrigger): LoginChallenge {
  return { ...challenge, stage: transition('challenge', CHALLENGE_TRANSITIONS, challenge.stage, trigger) };
}

/** mfa/setup is only for a challenge waiting for enrollment; it may be called again to get a new secret. */
export function proposeAuthenticator(challenge: LoginChallenge, secretBase32: string): LoginChallenge {
  if (challenge.stage !== 'mfa_setup_required') {
    throw new DomainError('invalid_state', 'This challenge does not enroll an authenticator; verify a code instead', {
      state: challenge.stage,
      trigger: 'setup',
    });
  }
  return { ...challenge, pendingSecret: secretBase32 };
}

/**
 * An enrollment challenge opened while the user had no confirmed authenticator (registration, or a login then)
 * enrolls only while there is still none. Once one is confirmed, through another challenge, replacing it takes a
 * recovery code: a stale challenge and the password alone must not. A recovery challenge is the one that may.
 */
export function assertMayEnroll(challenge: LoginChallenge, hasConfirmedAuthenticator: boolean): void {
  if (challenge.stage === 'mfa_setup_required' && challenge.purpose !== 'recovery' && hasConfirmedAuthenticator) {
    throw new DomainError('invalid_challenge', 'An authenticator was enrolled since this challenge was opened; sign in again', { param: 'body.challengeToken' });
  }
}

/** A wrong code counts; the fifth locks the challenge so codes cannot be guessed through one challenge. */
export function recordChallengeFailure(challenge: LoginChallenge): LoginChallenge {
  const failures = challenge.failures + 1;
  const counted = { ...challenge, failures };
  return failures >= CHALLENGE_MAX_FAILURES ? applyChallengeTrigger(counted, 'too_many_failures') : counted;
}

/** After a recovery code: back to enrollment under a new token; the old token stops working. */
export function restartForEnrollment(challenge: LoginChallenge, newToken: string, now: Date): LoginChallenge {
  const next = applyChallengeTrigger(challenge, 'recovery_code_used');
  return {
    ...next,
    tokenHash: hashChallengeToken(newToken),
    purpose: 'recovery',
    pendingSecret: null,
    failures: 0,
    expiresAt: new Date(now.getTime() + CHALLENGE_TTL_MS),
  };
}
