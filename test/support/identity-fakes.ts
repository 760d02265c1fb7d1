/**
 * In-memory fakes of the identity and security ports for unit tests of the use cases. The transactor keeps
 * transaction semantics that matter to the rules: a unit of work that throws leaves no trace (rollback).
 */
import { randomBytes } from 'node:crypto';
import type { IdentityDeps } from '../../application/identity/identity-deps';
import type { CompanyProfile } from '../../domain/identity/company';
import type { LoginChallenge } from '../../domain/identity/login-challenge';
import type { PasswordResetToken } from '../../domain/identity/password-reset';
import type { SessionFamily } from '../../domain/identity/session';
import type { Membership, User } from '../../domain/identity/user';
import type { Organization } from '../../domain/organization/organization';
import type { AccessClaims, AccessTokens } from '../../domain/ports/access-tokens';
import type { MailMessage, Mailer } from '../../domain/ports/mailer';
import type { ScopedCardAttempt } from '../../domain/ports/security-repositories';
import type { Transaction, Transactor } from '../../domain/ports/transactor';
import type { SecurityIncident } from '../../domain/security/security-incident';
import { ManualClock } from '../../infrastructure/clock/system-clock';

export interface State {
  organizations: Map<string, Organization>;
  users: Map<string, User>;
  memberships: Membership[];
  companies: Map<string, CompanyProfile>;
  claims: Set<string>;
  challenges: Map<string, LoginChallenge>;
  sessions: Map<string, SessionFamily>;
  codes: Array<{ userId: string; hash: string; usedAt: Date | null }>;
  resets: Map<string, PasswordResetToken>;
  attempts: ScopedCardAttempt[];
  incidents: Map<string, SecurityIncident>;
}

const emptyState = (): State => ({
  organizations: new Map(),
  users: new Map(),
  memberships: [],
  companies: new Map(),
  claims: new Set(),
  challenges: new Map(),
  sessions: new Map(),
  codes: [],
  resets: new Map(),
  attempts: [],
  incidents: new Map(),
});

export class FakeStore implements Transactor {
  state: State = emptyState();
  commits = 0;

  async run<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
    const before = structuredClone(this.state);
    try {
      const result = await work({} as Transaction);
      this.commits += 1;
      return result;
    } catch (error) {
      this.state = before;
      throw error;
    }
  }

  async read<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
    return work({} as Transaction);
  }
}

export class RecordingMailer implements Mailer {
  readonly sent: MailMessage[] = [];
  constructor(readonly enabled = true) {}
  async send(message: MailMessage): Promise<void> {
    if (this.enabled) this.sent.push(message);
  }
}

/** Readable tokens for unit tests: the claims as JSON (the HS256 adapter has its own tests). */
export class PlainAccessTokens implements AccessTokens {
  sign(claims: AccessClaims): string {
    return Buffer.from(JSON.stringify(claims)).toString('base64url');
  }
  verify(token: string, now: Date): AccessClaims | null {
    try {
      const raw = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as Record<string, string>;
      const claims = { ...raw, issuedAt: new Date(raw.issuedAt!), expiresAt: new Date(raw.expiresAt!) } as unknown as AccessClaims;
      return now < claims.expiresAt ? claims : null;
    } catch {
      return null;
    }
  }
}

export function fakeIdentity(clock = new ManualClock(new Date('2026-11-22T04:00:01Z'))) {
  const store = new FakeStore();
  const mailer = new RecordingMailer();
  let sequence = 0;
  const s = () => store.state;
  const deps: IdentityDeps = {
    transactor: store,
    organizations: {
      insert: async (_tx, o) => void s().organizations.set(o.id, o),
      findById: async (_tx, id) => s().organizations.get(id) ?? null,
    },
    users: {
      insert: async (_tx, u) => void s().users.set(u.id, u),
      update: async (_tx, u) => void s().users.set(u.id, u),
      findById: async (_tx, id) => s().users.get(id) ?? null,
      findByEmail: async (_tx, email) => [...s().users.values()].find((u) => u.email === email) ?? null,
    },
    memberships: {
      insert: async (_tx, m) => void s().memberships.push(m),
      find: async (_tx, userId, organizationId) => s().memberships.find((m) => m.userId === userId && m.organizationId === organizationId) ?? null,
      listByUser: async (_tx, userId) => s().memberships.filter((m) => m.userId === userId),
      listAdminEmails: async (_tx, organizationId) =>
        s().memberships.filter((m) => m.organizationId === organizationId && ['owner', 'administrator'].includes(m.role)).map((m) => s().users.get(m.userId)!.email),
    },
    companies: {
      insert: async (_tx, c) => void s().companies.set(c.organizationId, c),
      findByOrganization: async (_tx, id) => s().companies.get(id) ?? null,
      trialAlreadyClaimed: async (_tx, claims) => claims.some((c) => s().claims.has(c)),
      recordTrialClaims: async (_tx, _org, claims) => claims.forEach((c) => s().claims.add(c)),
    },
    challenges: {
      insert: async (_tx, c) => void s().challenges.set(c.id, c),
      update: async (_tx, c) => void s().challenges.set(c.id, c),
      findByTokenHash: async (_tx, hash) => [...s().challenges.values()].find((c) => c.tokenHash === hash) ?? null,
    },
    sessions: {
      insert: async (_tx, x) => void s().sessions.set(x.id, x),
      update: async (_tx, x) => void s().sessions.set(x.id, x),
      findById: async (_tx, id) => s().sessions.get(id) ?? null,
      listActiveByUser: async (_tx, userId) => [...s().sessions.values()].filter((x) => x.userId === userId && !x.revokedAt),
    },
    recoveryCodes: {
      replaceAll: async (_tx, userId, hashes) => {
        s().codes = s().codes.filter((c) => c.userId !== userId).concat(hashes.map((hash) => ({ userId, hash, usedAt: null })));
      },
      consume: async (_tx, userId, hash, at) => {
        const code = s().codes.find((c) => c.userId === userId && c.hash === hash && !c.usedAt);
        if (!code) return false;
        code.usedAt = at;
        return true;
      },
      countAvailable: async (_tx, userId) => s().codes.filter((c) => c.userId === userId && !c.usedAt).length,
    },
    resets: {
      insert: async (_tx, t) => void s().resets.set(t.id, t),
      findByTokenHash: async (_tx, hash) => [...s().resets.values()].find((t) => t.tokenHash === hash) ?? null,
      markUsed: async (_tx, id, at) => void s().resets.set(id, { ...s().resets.get(id)!, usedAt: at }),
      supersedeForUser: async (_tx, userId, at) => {
        for (const t of s().resets.values()) if (t.userId === userId && !t.usedAt) s().resets.set(t.id, { ...t, usedAt: at });
      },
    },
    hasher: {
      hash: async (password) => `plain:${password}`,
      verify: async (password, encoded) => encoded === `plain:${password}`,
    },
    accessTokens: new PlainAccessTokens(),
    random: { bytes: (n) => randomBytes(n) },
    ids: { next: (prefix) => `${prefix}${String(++sequence).padStart(6, '0')}` },
    clock,
    mailer,
    // The text itself, so a test can read what would have been drawn.
    qrCodes: { pngDataUrl: async (text) => `data:text/plain,${encodeURIComponent(text)}` },
    settings: { issuer: 'Payments', publicBaseUrl: 'https://pay.example.com' },
  };
  return { deps, store, mailer, clock };
}
