import { generateRecoveryCodes, hashRecoveryCode } from '../../domain/identity/recovery-codes';
import { verifyTotp } from '../../domain/identity/totp';
import { recordAuthenticatorUse } from '../../domain/identity/user';
import { DomainError } from '../../domain/shared/domain-error';
import type { IdentityDeps } from './identity-deps';

/** Count and regeneration of recovery codes; regeneration needs the password and a fresh TOTP code. */
export class RecoveryCodeManagement {
  constructor(private readonly deps: IdentityDeps) {}

  async count(userId: string): Promise<{ available: number }> {
    return { available: await this.deps.transactor.read((tx) => this.deps.recoveryCodes.countAvailable(tx, userId)) };
  }

  async regenerate(userId: string, currentPassword: string, mfaCode: string): Promise<{ recoveryCodes: string[] }> {
    const user = await this.deps.transactor.read((tx) => this.deps.users.findById(tx, userId));
    if (!user) throw new DomainError('unauthorized', 'The session has ended');
    if (!(await this.deps.hasher.verify(currentPassword, user.passwordHash))) {
      throw new DomainError('invalid_current_password', 'The current password is incorrect', { param: 'body.currentPassword' });
    }
    const codes = generateRecoveryCodes(this.deps.random);
    await this.deps.transactor.run(async (tx) => {
      const now = this.deps.clock.now();
      const locked = await this.deps.users.findById(tx, userId, true);
      if (!locked?.authenticator) throw new DomainError('mfa_setup_required', 'Enroll an authenticator first');
      const check = verifyTotp(locked.authenticator.secret, mfaCode, now, locked.authenticator.lastUsedStep);
      if (!check.ok) throw new DomainError('invalid_mfa_code', 'The authentication code is invalid or was already used', { param: 'body.mfaCode' });
      await this.deps.users.update(tx, recordAuthenticatorUse(locked, check.step));
      await this.deps.recoveryCodes.replaceAll(tx, userId, codes.map(hashRecoveryCode), now);
    });
    return { recoveryCodes: codes };
  }
}
