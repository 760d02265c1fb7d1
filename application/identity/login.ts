import { openChallenge, type ChallengeStage } from '../../domain/identity/login-challenge';
import { normalizeEmail } from '../../domain/identity/register-rules';
import type { Membership } from '../../domain/identity/user';
import { DomainError } from '../../domain/shared/domain-error';
import { randomToken, type IdentityDeps } from './identity-deps';

export interface LoginResult {
  readonly challengeToken: string;
  readonly stage: ChallengeStage;
  /** For per-account rate limiting at the edge; never returned to the client. */
  readonly userId: string;
}

/**
 * E-mail and password open a second-factor challenge and nothing else. Unknown e-mail and wrong password
 * give the same answer after the same work (a password hash is always verified), so login does not reveal
 * which e-mails exist.
 */
export class Login {
  private dummyHash: Promise<string> | null = null;

  constructor(private readonly deps: IdentityDeps) {}

  async execute(input: { email: string; password: string }): Promise<LoginResult> {
    const email = normalizeEmail(input.email);
    const user = await this.deps.transactor.read((tx) => this.deps.users.findByEmail(tx, email));
    const encoded = user?.passwordHash ?? (await this.dummy());
    const ok = await this.deps.hasher.verify(input.password, encoded);
    if (!user || !ok) throw new DomainError('invalid_credentials', 'The e-mail or password is incorrect');
    const token = randomToken(this.deps);
    return this.deps.transactor.run(async (tx) => {
      const memberships = await this.deps.memberships.listByUser(tx, user.id);
      const home = homeMembership(memberships);
      if (!home) throw new DomainError('invalid_credentials', 'The e-mail or password is incorrect');
      const challenge = openChallenge({
        id: this.deps.ids.next('chl_'),
        userId: user.id,
        organizationId: home.organizationId,
        token,
        hasConfirmedAuthenticator: user.authenticator !== null,
        purpose: 'login',
        now: this.deps.clock.now(),
      });
      await this.deps.challenges.insert(tx, challenge);
      return { challengeToken: token, stage: challenge.stage, userId: user.id };
    });
  }

  private dummy(): Promise<string> {
    this.dummyHash ??= this.deps.hasher.hash('not-a-real-password-but-a-timing-equalizer');
    return this.dummyHash;
  }
}

/** The account a login opens first: the oldest membership with the owner role, else the oldest one. */
export function homeMembership(memberships: readonly Membership[]): Membership | null {
  const sorted = [...memberships].sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
  return sorted.find((m) => m.role === 'owner') ?? sorted[0] ?? null;
}
