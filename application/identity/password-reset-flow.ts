import { consumeResetToken, hashResetToken, isResetTokenValid, issueResetToken } from '../../domain/identity/password-reset';
import { normalizeEmail } from '../../domain/identity/register-rules';
import { revokeSession } from '../../domain/identity/session';
import { advanceTokensValidAfter, assertPasswordPolicy } from '../../domain/identity/user';
import { DomainError } from '../../domain/shared/domain-error';
import { sendAccountAlert } from './account-alerts';
import { randomToken, type IdentityDeps } from './identity-deps';

/**
 * Forgot password, link check, and reset. The request answers the same whether or not the e-mail exists, and
 * the e-mail leaves in the background so response time does not tell either.
 */
export class PasswordResetFlow {
  constructor(private readonly deps: IdentityDeps) {}

  /**
   * Answers at once; the lookup, the link and the e-mail happen in the background, so neither the answer nor its
   * timing tells whether the e-mail has an account. Returns the background work (tests may await it).
   */
  async forgotPassword(emailInput: string): Promise<{ delivery: Promise<void> }> {
    const email = normalizeEmail(emailInput);
    if (!this.deps.mailer.enabled) return { delivery: Promise.resolve() };
    const delivery = this.sendLink(email).catch((error: unknown) => this.deps.onBackgroundError?.(error, 'password reset e-mail'));
    return { delivery };
  }

  private async sendLink(email: string): Promise<void> {
    const token = randomToken(this.deps);
    const user = await this.deps.transactor.run(async (tx) => {
      const found = await this.deps.users.findByEmail(tx, email);
      if (!found) return null;
      const now = this.deps.clock.now();
      await this.deps.resets.supersedeForUser(tx, found.id, now);
      await this.deps.resets.insert(tx, issueResetToken({ id: this.deps.ids.next('prt_'), userId: found.id, token, now }));
      return found;
    });
    if (!user) return;
    const link = `${this.deps.settings.publicBaseUrl.replace(/\/$/, '')}/reset-password?token=${encodeURIComponent(token)}`;
    await this.deps.mailer.send({
      to: user.email,
      subject: 'Reset your password',
      text:
        `Hello ${user.name},\n\nSomeone asked to reset the password of your account. Open this link within 30 minutes to choose a new one:\n\n${link}\n\n` +
        `Reset token: ${token}\n\nIf it was not you, ignore this e-mail; your password stays the same.\n`,
    });
  }

  async check(resetToken: string): Promise<{ valid: boolean; expiresAt: Date | null }> {
    const token = await this.deps.transactor.read((tx) => this.deps.resets.findByTokenHash(tx, hashResetToken(resetToken)));
    const valid = isResetTokenValid(token, this.deps.clock.now());
    return { valid, expiresAt: valid ? token.expiresAt : null };
  }

  /** Single use; ends the user's sessions in every account; the authenticator and recovery codes stay. */
  async reset(resetToken: string, newPassword: string): Promise<void> {
    assertPasswordPolicy(newPassword, 'body.newPassword');
    const passwordHash = await this.deps.hasher.hash(newPassword);
    const user = await this.deps.transactor.run(async (tx) => {
      const now = this.deps.clock.now();
      const token = consumeResetToken(await this.deps.resets.findByTokenHash(tx, hashResetToken(resetToken), true), now);
      const user = await this.deps.users.findById(tx, token.userId, true);
      if (!user) throw new DomainError('invalid_reset_token', 'The reset link is invalid, expired or already used', { param: 'body.resetToken' });
      await this.deps.resets.markUsed(tx, token.id, now);
      await this.deps.resets.supersedeForUser(tx, user.id, now);
      await this.deps.users.update(tx, { ...advanceTokensValidAfter(user, now), passwordHash });
      for (const session of await this.deps.sessions.listActiveByUser(tx, user.id)) {
        await this.deps.sessions.update(tx, revokeSession(session, 'password_reset', now));
      }
      return user;
    });
    void sendAccountAlert(this.deps, user, 'password_reset');
  }
}
