import type { Organization } from '../../domain/organization/organization';
import { isSessionActive } from '../../domain/identity/session';
import { isRole, scopesOfRole, type Role } from '../../domain/identity/roles';
import type { User } from '../../domain/identity/user';
import { DomainError, NotFoundError } from '../../domain/shared/domain-error';
import type { IdentityDeps } from './identity-deps';
import { issueSession, type TokenPair } from './issue-session';

export interface SessionIdentity {
  readonly user: User;
  readonly organizationId: string;
  readonly role: Role;
  readonly scopes: string[];
  readonly sessionId: string;
}

export interface AccountView {
  readonly organization: Organization;
  readonly role: Role;
}

/**
 * Accounts reachable with one login: the company and its brands. A brand is an organization whose parent is
 * the company; it has its own operational data and no trial of its own.
 */
export class Accounts {
  constructor(private readonly deps: IdentityDeps) {}

  /** Resolves a dashboard access token to the live session behind it, or null. */
  async authenticate(accessToken: string): Promise<SessionIdentity | null> {
    const now = this.deps.clock.now();
    const claims = this.deps.accessTokens.verify(accessToken, now);
    if (!claims) return null;
    return this.deps.transactor.read(async (tx) => {
      const session = await this.deps.sessions.findById(tx, claims.sessionId);
      if (!session || session.userId !== claims.userId || session.organizationId !== claims.organizationId) return null;
      const user = await this.deps.users.findById(tx, claims.userId);
      if (!user || !isSessionActive(session, user.tokensValidAfter, now)) return null;
      const membership = await this.deps.memberships.find(tx, user.id, claims.organizationId);
      if (!membership || !isRole(membership.role)) return null;
      return { user, organizationId: claims.organizationId, role: membership.role, scopes: scopesOfRole(membership.role), sessionId: session.id };
    });
  }

  async list(userId: string): Promise<AccountView[]> {
    return this.deps.transactor.read(async (tx) => {
      const memberships = await this.deps.memberships.listByUser(tx, userId);
      const views: AccountView[] = [];
      for (const membership of memberships) {
        const organization = await this.deps.organizations.findById(tx, membership.organizationId);
        if (organization) views.push({ organization, role: membership.role });
      }
      return views;
    });
  }

  async userView(userId: string): Promise<User | null> {
    return this.deps.transactor.read((tx) => this.deps.users.findById(tx, userId));
  }

  /**
   * Whether the company behind an organization may have the free trial (a brand answers for its company).
   * False when the document or owner e-mail already had one, or for organizations created without a profile
   * only when a claim exists (operators' CLI).
   */
  async trialEligibility(organizationId: string): Promise<{ companyId: string; eligible: boolean }> {
    return this.deps.transactor.read(async (tx) => {
      const organization = await this.deps.organizations.findById(tx, organizationId);
      if (!organization) throw new NotFoundError('organization', organizationId);
      const companyId = organization.parentOrganizationId ?? organization.id;
      const profile = await this.deps.companies.findByOrganization(tx, companyId);
      return { companyId, eligible: profile ? profile.trialEligible : true };
    });
  }

  async organization(id: string): Promise<Organization | null> {
    return this.deps.transactor.read((tx) => this.deps.organizations.findById(tx, id));
  }

  /** Only the owner of the company may add a brand; the brand hangs off the company even when asked from a brand. */
  async createBrand(userId: string, currentOrganizationId: string, input: { name: string; website: string }): Promise<{ organization: Organization; website: string }> {
    return this.deps.transactor.run(async (tx) => {
      const current = await this.deps.organizations.findById(tx, currentOrganizationId);
      if (!current) throw new NotFoundError('organization', currentOrganizationId);
      const companyId = current.parentOrganizationId ?? current.id;
      const membership = await this.deps.memberships.find(tx, userId, companyId);
      if (membership?.role !== 'owner') throw new DomainError('forbidden', 'Only the company owner can create brands');
      const now = this.deps.clock.now();
      const organization: Organization = { id: this.deps.ids.next('org_'), name: input.name.trim(), parentOrganizationId: companyId, createdAt: now };
      await this.deps.organizations.insert(tx, organization);
      await this.deps.companies.insert(tx, {
        organizationId: organization.id,
        document: '',
        legalName: '',
        name: organization.name,
        activity: '',
        website: input.website,
        address: { postalCode: '', line1: '', streetNumber: '', complement: '', neighborhood: '', city: '', state: '' },
        trialEligible: false,
        createdAt: now,
      });
      await this.deps.memberships.insert(tx, { userId, organizationId: organization.id, role: 'owner', createdAt: now });
      return { organization, website: input.website };
    });
  }

  /** New tokens in the target account with the role held there; the current session is left as it is. */
  async switchAccount(userId: string, organizationId: string): Promise<TokenPair> {
    return this.deps.transactor.run(async (tx) => {
      const membership = await this.deps.memberships.find(tx, userId, organizationId);
      if (!membership) throw new NotFoundError('account', organizationId);
      return issueSession(this.deps, tx, userId, organizationId);
    });
  }
}
