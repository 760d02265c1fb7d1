import type { User } from '../../domain/identity/user';
import type { IdentityDeps } from './identity-deps';

export type AccountAlert = 'password_changed' | 'password_reset' | 'recovery_code_used' | 'authenticator_replaced';

const SUBJECTS: Record<AccountAlert, string> = {
  password_changed: 'Security alert: your password was changed',
  password_reset: 'Security alert: your password was reset',
  recovery_code_used: 'Security alert: a recovery code was used to sign in',
  authenticator_replaced: 'Security alert: a new authenticator app was enrolled',
};

/**
 * Tells the user about sensitive changes to their own account, so a takeover does not go unnoticed. Sent in the
 * background: a mail failure never fails the request.
 */
export function sendAccountAlert(deps: IdentityDeps, user: Pick<User, 'email' | 'name'>, alert: AccountAlert): Promise<void> {
  if (!deps.mailer.enabled) return Promise.resolve();
  const at = deps.clock.now().toISOString();
  return deps.mailer
    .send({
      to: user.email,
      subject: SUBJECTS[alert],
      text:
        `Hello ${user.name},\n\n${SUBJECTS[alert].replace('Security alert: ', '')} at ${at}.\n\n` +
        'If it was you, no action is needed. If not, reset your password now and contact your account owner.\n',
    })
    .catch((error: unknown) => deps.onBackgroundError?.(error, `account alert ${alert}`));
}
