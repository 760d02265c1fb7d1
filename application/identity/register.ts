import { trialClaims, type CompanyProfile } from '../../domain/identity/company';
import { openChallenge, type ChallengeStage } from '../../domain/identity/login-challenge';
import { checkRegisterRules, normalizeDocument, normalizeEmail, type RegisterInput } from '../../domain/identity/register-rules';
import { assertPasswordPolicy, type User } from '../../domain/identity/user';
import { DomainError } from '../../domain/shared/domain-error';
import type { Transaction } from '../../domain/ports/transactor';
import { randomToken, type IdentityDeps } from './identity-deps';

export interface RegisterResult {
  readonly challengeToken: string;
  readonly stage: ChallengeStage;
  readonly organization: { readonly id: string };
  readonly user: { readonly id: string };
  readonly trialEligible: boolean;
}

/**
 * Creates the company (root organization), its owner and an enrollment challenge. No session: the dashboard
 * opens only after the owner confirms an authenticator. A document or e-mail that already had a trial gives
 * a company without one.
 */
export class Register {
  constructor(private readonly deps: IdentityDeps) {}

  async execute(input: RegisterInput): Promise<RegisterResult> {
    checkRegisterRules(input);
    assertPasswordPolicy(input.password, 'body.password');
    const email = normalizeEmail(input.email);
    const passwordHash = await this.deps.hasher.hash(input.password);
    const token = randomToken(this.deps);
    return this.deps.transactor.run(async (tx) => this.create(tx, input, email, passwordHash, token)).catch((error: unknown) => {
      // Two registrations racing for one e-mail: the unique index decides, the loser gets the same answer.
      if (isUniqueViolation(error)) throw emailTaken();
      throw error;
    });
  }

  private async create(tx: Transaction, input: RegisterInput, email: string, passwordHash: string, token: string): Promise<RegisterResult> {
    if (await this.deps.users.findByEmail(tx, email)) {
      throw emailTaken();
    }
    const now = this.deps.clock.now();
    const organizationId = this.deps.ids.next('org_');
    await this.deps.organizations.insert(tx, { id: organizationId, name: input.company.name, parentOrganizationId: null, createdAt: now });
    const claims = trialClaims(input.company.document, email);
    const trialEligible = !(await this.deps.companies.trialAlreadyClaimed(tx, claims));
    const company: CompanyProfile = {
      ...input.company,
      document: normalizeDocument(input.company.document),
      organizationId,
      trialEligible,
      createdAt: now,
    };
    await this.deps.companies.insert(tx, company);
    await this.deps.companies.recordTrialClaims(tx, organizationId, claims, now);
    const user: User = {
      id: this.deps.ids.next('usr_'),
      name: input.name,
      email,
      phone: input.phone,
      passwordHash,
      authenticator: null,
      tokensValidAfter: new Date(0),
      createdAt: now,
    };
    await this.deps.users.insert(tx, user);
    await this.deps.memberships.insert(tx, { userId: user.id, organizationId, role: 'owner', createdAt: now });
    const challenge = openChallenge({
      id: this.deps.ids.next('chl_'),
      userId: user.id,
      organizationId,
      token,
      hasConfirmedAuthenticator: false,
      purpose: 'registration',
      now,
    });
    await this.deps.challenges.insert(tx, challenge);
    return { challengeToken: token, stage: challenge.stage, organization: { id: organizationId }, user: { id: user.id }, trialEligible };
  }
}

function emailTaken(): DomainError {
  return new DomainError('email_already_registered', 'An account with this e-mail already exists; sign in instead', { param: 'body.email' });
}

function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string; name?: string } | null;
  return e?.code === '23505' || e?.name === 'UniqueConstraintViolationException';
}
