import {
  applyChallengeTrigger,
  assertChallengeUsable,
  assertMayEnroll,
  hashChallengeToken,
  isChallengeExpired,
  proposeAuthenticator,
  recordChallengeFailure,
  restartForEnrollment,
  type ChallengeStage,
  type LoginChallenge,
} from '../../domain/identity/login-challenge';
import { generateRecoveryCodes, hashRecoveryCode } from '../../domain/identity/recovery-codes';
import { base32Encode, otpauthUrl, TOTP_SECRET_BYTES, verifyTotp } from '../../domain/identity/totp';
import { confirmAuthenticator, recordAuthenticatorUse } from '../../domain/identity/user';
import { DomainError } from '../../domain/shared/domain-error';
import type { Transaction } from '../../domain/ports/transactor';
import { sendAccountAlert } from './account-alerts';
import { randomToken, type IdentityDeps } from './identity-deps';
import { issueSession, type TokenPair } from './issue-session';

export interface MfaStatusResult {
  readonly stage: ChallengeStage;
  readonly expiresAt: Date;
}

export interface MfaSetupResult {
  readonly manualKey: string;
  readonly otpauthUrl: string;
  readonly qrCode: string;
}

export type MfaVerifyResult =
  | ({ readonly kind: 'tokens'; readonly recoveryCodes: string[] | null; readonly userId: string } & TokenPair)
  | { readonly kind: 'enroll'; readonly challengeToken: string; readonly stage: ChallengeStage; readonly userId: string };

type Outcome<T> = { ok: true; value: T } | { ok: false; error: DomainError };

/** The second-factor steps of a login: status, authenticator enrollment, and code verification. */
export class MfaChallenge {
  constructor(private readonly deps: IdentityDeps) {}

  async status(challengeToken: string): Promise<MfaStatusResult> {
    const challenge = await this.deps.transactor.read((tx) => this.deps.challenges.findByTokenHash(tx, hashChallengeToken(challengeToken)));
    // Completed and locked challenges still report their stage until they expire; unknown or expired ones do not.
    if (!challenge || isChallengeExpired(challenge, this.deps.clock.now())) {
      throw new DomainError('invalid_challenge', 'The challenge is invalid or expired; sign in again', { param: 'body.challengeToken' });
    }
    return { stage: challenge.stage, expiresAt: challenge.expiresAt };
  }

  /** The user a challenge belongs to (per-account rate limits of verify), or null when unknown. */
  async subject(challengeToken: string): Promise<string | null> {
    const challenge = await this.deps.transactor.read((tx) => this.deps.challenges.findByTokenHash(tx, hashChallengeToken(challengeToken)));
    return challenge?.userId ?? null;
  }

  /** Proposes a new TOTP secret; it becomes the user's authenticator only when a code from it is verified. */
  async setup(challengeToken: string): Promise<MfaSetupResult> {
    const secret = base32Encode(this.deps.random.bytes(TOTP_SECRET_BYTES));
    const user = await this.deps.transactor.run(async (tx) => {
      const challenge = assertChallengeUsable(
        await this.deps.challenges.findByTokenHash(tx, hashChallengeToken(challengeToken), true),
        this.deps.clock.now(),
      );
      const user = await this.deps.users.findById(tx, challenge.userId);
      assertMayEnroll(challenge, Boolean(user?.authenticator));
      await this.deps.challenges.update(tx, proposeAuthenticator(challenge, secret));
      return user;
    });
    const url = otpauthUrl(secret, user?.email ?? 'account', this.deps.settings.issuer);
    // Rendered by this server (the port's adapter), never by a third-party service: the secret must not leave it.
    const qrCode = await this.deps.qrCodes.pngDataUrl(url);
    return { manualKey: secret, otpauthUrl: url, qrCode };
  }

  async verify(input: { challengeToken: string; mfaCode?: string; recoveryCode?: string }): Promise<MfaVerifyResult> {
    if ((input.mfaCode === undefined) === (input.recoveryCode === undefined)) {
      throw new DomainError('validation_failed', 'Send exactly one of mfaCode or recoveryCode', { param: 'body.mfaCode' });
    }
    const newChallengeToken = randomToken(this.deps);
    const newCodes = generateRecoveryCodes(this.deps.random);
    // Failures are committed before the error is thrown, so wrong codes count even though the request fails.
    const outcome = await this.deps.transactor.run(async (tx): Promise<Outcome<MfaVerifyResult>> => {
      const now = this.deps.clock.now();
      const challenge = assertChallengeUsable(
        await this.deps.challenges.findByTokenHash(tx, hashChallengeToken(input.challengeToken), true),
        now,
      );
      const user = await this.deps.users.findById(tx, challenge.userId, true);
      if (!user) throw new DomainError('invalid_challenge', 'The challenge is invalid or expired; sign in again', { param: 'body.challengeToken' });

      if (input.recoveryCode !== undefined) {
        if (challenge.stage !== 'mfa_required') {
          return this.fail(tx, challenge, new DomainError('invalid_state', 'A recovery code replaces a working authenticator; enroll one instead', { param: 'body.recoveryCode', state: challenge.stage, trigger: 'recovery_code' }), false);
        }
        if (!(await this.deps.recoveryCodes.consume(tx, user.id, hashRecoveryCode(input.recoveryCode), now))) {
          return this.fail(tx, challenge, new DomainError('invalid_recovery_code', 'The recovery code is invalid or already used', { param: 'body.recoveryCode' }));
        }
        const restarted = restartForEnrollment(challenge, newChallengeToken, now);
        await this.deps.challenges.update(tx, restarted);
        void sendAccountAlert(this.deps, user, 'recovery_code_used');
        return { ok: true, value: { kind: 'enroll', challengeToken: newChallengeToken, stage: restarted.stage, userId: user.id } };
      }

      const code = input.mfaCode!;
      if (challenge.stage === 'mfa_setup_required') {
        // The user row is locked above: of two enrollments racing, the second sees the first's authenticator.
        assertMayEnroll(challenge, Boolean(user.authenticator));
        if (!challenge.pendingSecret) {
          return this.fail(tx, challenge, new DomainError('mfa_setup_required', 'Enroll an authenticator first (mfa/setup)', { param: 'body.challengeToken' }), false);
        }
        const check = verifyTotp(challenge.pendingSecret, code, now, null);
        if (!check.ok) return this.fail(tx, challenge, invalidCode());
        await this.deps.users.update(tx, confirmAuthenticator(user, challenge.pendingSecret, check.step, now));
        if (user.authenticator) void sendAccountAlert(this.deps, user, 'authenticator_replaced');
        await this.deps.challenges.update(tx, applyChallengeTrigger(challenge, 'authenticator_confirmed'));
        // The first enrollment creates the recovery codes; re-enrolling after a recovery keeps the remaining ones.
        let recoveryCodes: string[] | null = null;
        if ((await this.deps.recoveryCodes.countAvailable(tx, user.id)) === 0) {
          await this.deps.recoveryCodes.replaceAll(tx, user.id, newCodes.map(hashRecoveryCode), now);
          recoveryCodes = newCodes;
        }
        const tokens = await this.openSession(tx, user.id, challenge.organizationId);
        return { ok: true, value: { kind: 'tokens', ...tokens, recoveryCodes, userId: user.id } };
      }

      if (!user.authenticator) {
        return this.fail(tx, challenge, new DomainError('mfa_setup_required', 'Enroll an authenticator first (mfa/setup)'), false);
      }
      const check = verifyTotp(user.authenticator.secret, code, now, user.authenticator.lastUsedStep);
      if (!check.ok) return this.fail(tx, challenge, invalidCode());
      await this.deps.users.update(tx, recordAuthenticatorUse(user, check.step));
      await this.deps.challenges.update(tx, applyChallengeTrigger(challenge, 'code_verified'));
      const tokens = await this.openSession(tx, user.id, challenge.organizationId);
      return { ok: true, value: { kind: 'tokens', ...tokens, recoveryCodes: null, userId: user.id } };
    });
    if (!outcome.ok) throw outcome.error;
    return outcome.value;
  }

  private async openSession(tx: Transaction, userId: string, organizationId: string): Promise<TokenPair> {
    if (!(await this.deps.memberships.find(tx, userId, organizationId))) {
      throw new DomainError('forbidden', 'The account is no longer reachable with this login');
    }
    return issueSession(this.deps, tx, userId, organizationId);
  }

  private async fail(tx: Transaction, challenge: LoginChallenge, error: DomainError, counts = true): Promise<Outcome<never>> {
    if (counts) await this.deps.challenges.update(tx, recordChallengeFailure(challenge));
    return { ok: false, error };
  }
}

function invalidCode(): DomainError {
  return new DomainError('invalid_mfa_code', 'The authentication code is invalid or was already used', { param: 'body.mfaCode' });
}
