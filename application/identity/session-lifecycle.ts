import { formatRefreshToken, hashRefreshSecret, isSessionActive, parseRefreshToken, revokeSession, rotateSession, ACCESS_TOKEN_TTL_SECONDS } from '../../domain/identity/session';
import { advanceTokensValidAfter, assertPasswordPolicy } from '../../domain/identity/user';
import { DomainError } from '../../domain/shared/domain-error';
import { sendAccountAlert } from './account-alerts';
import { randomToken, type IdentityDeps } from './identity-deps';
import { signAccess, type TokenPair } from './issue-session';

export interface SessionRef {
  readonly userId: string;
  readonly sessionId: string;
}

function expired(): DomainError {
  return new DomainError('unauthorized', 'The refresh token is invalid or expired; sign in again');
}

/** Refresh (with rotation and reuse detection), logout and change of password. */
export class SessionLifecycle {
  constructor(private readonly deps: IdentityDeps) {}

  async refresh(refreshToken: string): Promise<TokenPair> {
    const parsed = parseRefreshToken(refreshToken);
    if (!parsed) throw expired();
    const nextSecret = randomToken(this.deps);
    const outcome = await this.deps.transactor.run(async (tx) => {
      const now = this.deps.clock.now();
      const session = await this.deps.sessions.findById(tx, parsed.familyId, true);
      if (!session) return { error: expired() };
      const user = await this.deps.users.findById(tx, session.userId);
      if (!user || !isSessionActive(session, user.tokensValidAfter, now)) return { error: expired() };
      const rotation = rotateSession(session, parsed.secret, nextSecret, user.tokensValidAfter, now);
      await this.deps.sessions.update(tx, rotation.session);
      if (rotation.outcome === 'reuse_detected') {
        // Committed: both holders of the leaked family must sign in again.
        return { error: new DomainError('unauthorized', 'This refresh token was already used; the session has been ended for safety') };
      }
      if (!(await this.deps.memberships.find(tx, user.id, session.organizationId))) return { error: expired() };
      return {
        tokens: {
          accessToken: signAccess(this.deps, user.id, session.organizationId, session.id, now),
          refreshToken: formatRefreshToken(session.id, nextSecret),
          tokenType: 'Bearer' as const,
          expiresIn: ACCESS_TOKEN_TTL_SECONDS,
        },
      };
    });
    if ('error' in outcome) throw outcome.error;
    return outcome.tokens;
  }

  /** Every refresh token of the user, in every account, stops working at once. */
  async logout(ref: SessionRef): Promise<void> {
    await this.deps.transactor.run(async (tx) => {
      const now = this.deps.clock.now();
      const user = await this.deps.users.findById(tx, ref.userId, true);
      if (!user) throw new DomainError('unauthorized', 'The session has ended');
      await this.deps.users.update(tx, advanceTokensValidAfter(user, now));
      const current = await this.deps.sessions.findById(tx, ref.sessionId, true);
      if (current) await this.deps.sessions.update(tx, revokeSession(current, 'logout', now));
    });
  }

  /** The session that changes the password continues; every other session of the user ends. */
  async changePassword(ref: SessionRef, currentPassword: string, newPassword: string): Promise<void> {
    assertPasswordPolicy(newPassword, 'body.newPassword');
    const user = await this.deps.transactor.read((tx) => this.deps.users.findById(tx, ref.userId));
    if (!user) throw new DomainError('unauthorized', 'The session has ended');
    if (!(await this.deps.hasher.verify(currentPassword, user.passwordHash))) {
      throw new DomainError('invalid_current_password', 'The current password is incorrect', { param: 'body.currentPassword' });
    }
    const passwordHash = await this.deps.hasher.hash(newPassword);
    await this.deps.transactor.run(async (tx) => {
      const now = this.deps.clock.now();
      const locked = await this.deps.users.findById(tx, ref.userId, true);
      if (!locked) throw new DomainError('unauthorized', 'The session has ended');
      await this.deps.users.update(tx, { ...locked, passwordHash });
      for (const session of await this.deps.sessions.listActiveByUser(tx, ref.userId)) {
        if (session.id !== ref.sessionId) await this.deps.sessions.update(tx, revokeSession(session, 'password_changed', now));
      }
      await this.deps.resets.supersedeForUser(tx, ref.userId, now);
    });
    void sendAccountAlert(this.deps, user, 'password_changed');
  }
}

export { hashRefreshSecret };
