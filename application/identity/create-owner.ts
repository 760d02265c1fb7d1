import { trialClaims } from '../../domain/identity/company';
import { issueResetToken, RESET_TOKEN_TTL_MS } from '../../domain/identity/password-reset';
import { normalizeEmail } from '../../domain/identity/register-rules';
import type { User } from '../../domain/identity/user';
import { DomainError } from '../../domain/shared/domain-error';
import { randomToken, type IdentityDeps } from './identity-deps';

/**
 * Operators' path (CLI `org create --email`): the owner of an existing organization, with an unusable random
 * password and a one-time reset token so the owner chooses the password, then enrolls an authenticator at the
 * first login like everyone else.
 */
export class CreateOwner {
  constructor(private readonly deps: IdentityDeps) {}

  async execute(input: { organizationId: string; email: string; name?: string }): Promise<{ userId: string; email: string; resetToken: string; expiresAt: Date }> {
    const email = normalizeEmail(input.email);
    if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email) || email.length > 255) {
      throw new DomainError('validation_failed', '--email must be an e-mail address', { param: 'email' });
    }
    const passwordHash = await this.deps.hasher.hash(randomToken(this.deps));
    const resetToken = randomToken(this.deps);
    return this.deps.transactor.run(async (tx) => {
      if (await this.deps.users.findByEmail(tx, email)) {
        throw new DomainError('email_already_registered', 'A user with this e-mail already exists');
      }
      const now = this.deps.clock.now();
      const user: User = {
        id: this.deps.ids.next('usr_'),
        name: input.name ?? email.split('@')[0]!,
        email,
        phone: '',
        passwordHash,
        authenticator: null,
        tokensValidAfter: new Date(0),
        createdAt: now,
      };
      await this.deps.users.insert(tx, user);
      await this.deps.memberships.insert(tx, { userId: user.id, organizationId: input.organizationId, role: 'owner', createdAt: now });
      await this.deps.companies.recordTrialClaims(tx, input.organizationId, [trialClaims('', email)[1]!], now);
      await this.deps.resets.insert(tx, issueResetToken({ id: this.deps.ids.next('prt_'), userId: user.id, token: resetToken, now }));
      return { userId: user.id, email, resetToken, expiresAt: new Date(now.getTime() + RESET_TOKEN_TTL_MS) };
    });
  }
}
