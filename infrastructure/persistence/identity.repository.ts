import type { CompanyProfile } from '../../domain/identity/company';
import type { ChallengePurpose, ChallengeStage, LoginChallenge } from '../../domain/identity/login-challenge';
import type { PasswordResetToken } from '../../domain/identity/password-reset';
import type { Role } from '../../domain/identity/roles';
import type { RevocationReason, SessionFamily } from '../../domain/identity/session';
import type { Membership, User } from '../../domain/identity/user';
import type {
  CompanyRepository,
  LoginChallengeRepository,
  MembershipRepository,
  PasswordResetRepository,
  RecoveryCodeRepository,
  SessionRepository,
  UserRepository,
} from '../../domain/ports/identity-repositories';
import type { CredentialCipher } from '../../domain/ports/credential-cipher';
import type { Transaction } from '../../domain/ports/transactor';
import { entityManager } from './mikro-orm-transactor';

/**
 * TOTP secrets are sealed with the installation's AES-256-GCM credentials key (bound to the user id), so a
 * database dump alone does not give anyone's second factor. Values written without a cipher stay readable.
 */
export class TotpSecretSealer {
  constructor(private readonly cipher: CredentialCipher | null) {}

  seal(secret: string | null, userId: string): string | null {
    if (secret === null || !this.cipher) return secret;
    const sealed = this.cipher.seal(secret, `totp:${userId}`);
    return `sealed:${sealed.keyId}:${sealed.ciphertext}`;
  }

  open(stored: string | null, userId: string): string | null {
    if (stored === null || !stored.startsWith('sealed:')) return stored;
    if (!this.cipher) throw new Error('a sealed TOTP secret needs the credentials key');
    const [, keyId, ciphertext] = stored.split(':');
    return this.cipher.open({ keyId: keyId!, ciphertext: ciphertext! }, `totp:${userId}`);
  }
}

type Row = Record<string, unknown>;
const date = (value: unknown): Date => (value instanceof Date ? value : new Date(String(value)));
const maybeDate = (value: unknown): Date | null => (value === null || value === undefined ? null : date(value));
const exec = <T = Row[]>(tx: Transaction, sql: string, params: unknown[] = []) => entityManager(tx).execute<T & Row[]>(sql, params);
const lock = (forUpdate?: boolean) => (forUpdate ? ' for update' : '');

// Explicit column lists, not `select *`: a column a migration adds must not change a prepared statement's result type.
const USER_COLUMNS = 'id, name, email, phone, password_hash, totp_secret, totp_confirmed_at, totp_last_used_step, tokens_valid_after, created_at';
const MEMBERSHIP_COLUMNS = 'user_id, organization_id, role, created_at';
const COMPANY_COLUMNS = 'profile, trial_eligible, created_at';
const CHALLENGE_COLUMNS = 'id, user_id, organization_id, token_hash, stage, purpose, pending_secret, failures, created_at, expires_at';
const SESSION_COLUMNS = 'id, user_id, organization_id, current_token_hash, generation, created_at, expires_at, revoked_at, revoked_reason';
const PASSWORD_RESET_COLUMNS = 'id, user_id, token_hash, created_at, expires_at, used_at';

function toUser(row: Row, sealer: TotpSecretSealer): User {
  const secret = sealer.open((row.totp_secret as string | null) ?? null, row.id as string);
  return {
    id: row.id as string,
    name: row.name as string,
    email: row.email as string,
    phone: row.phone as string,
    passwordHash: row.password_hash as string,
    authenticator: secret
      ? {
          secret,
          confirmedAt: date(row.totp_confirmed_at),
          lastUsedStep: row.totp_last_used_step === null ? null : Number(row.totp_last_used_step),
        }
      : null,
    tokensValidAfter: date(row.tokens_valid_after),
    createdAt: date(row.created_at),
  };
}

export class SqlUserRepository implements UserRepository {
  private readonly sealer: TotpSecretSealer;

  constructor(cipher: CredentialCipher | null = null) {
    this.sealer = new TotpSecretSealer(cipher);
  }

  async insert(tx: Transaction, user: User): Promise<void> {
    await exec(
      tx,
      `insert into identity_users (id, name, email, phone, password_hash, totp_secret, totp_confirmed_at, totp_last_used_step, tokens_valid_after, created_at)
       values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [user.id, user.name, user.email, user.phone, user.passwordHash, this.sealer.seal(user.authenticator?.secret ?? null, user.id),
        user.authenticator?.confirmedAt ?? null, user.authenticator?.lastUsedStep ?? null, user.tokensValidAfter, user.createdAt],
    );
  }

  async update(tx: Transaction, user: User): Promise<void> {
    await exec(
      tx,
      `update identity_users set name = ?, email = ?, phone = ?, password_hash = ?, totp_secret = ?, totp_confirmed_at = ?,
         totp_last_used_step = ?, tokens_valid_after = ? where id = ?`,
      [user.name, user.email, user.phone, user.passwordHash, this.sealer.seal(user.authenticator?.secret ?? null, user.id),
        user.authenticator?.confirmedAt ?? null, user.authenticator?.lastUsedStep ?? null, user.tokensValidAfter, user.id],
    );
  }

  async findById(tx: Transaction, id: string, forUpdate?: boolean): Promise<User | null> {
    const rows = await exec(tx, `select ${USER_COLUMNS} from identity_users where id = ?${lock(forUpdate)}`, [id]);
    return rows[0] ? toUser(rows[0], this.sealer) : null;
  }

  async findByEmail(tx: Transaction, email: string): Promise<User | null> {
    const rows = await exec(tx, `select ${USER_COLUMNS} from identity_users where email = ?`, [email]);
    return rows[0] ? toUser(rows[0], this.sealer) : null;
  }
}

const toMembership = (row: Row): Membership => ({
  userId: row.user_id as string,
  organizationId: row.organization_id as string,
  role: row.role as Role,
  createdAt: date(row.created_at),
});

export class SqlMembershipRepository implements MembershipRepository {
  async insert(tx: Transaction, m: Membership): Promise<void> {
    await exec(tx, `insert into identity_memberships (user_id, organization_id, role, created_at) values (?, ?, ?, ?)`, [
      m.userId, m.organizationId, m.role, m.createdAt,
    ]);
  }

  async find(tx: Transaction, userId: string, organizationId: string): Promise<Membership | null> {
    const rows = await exec(tx, `select ${MEMBERSHIP_COLUMNS} from identity_memberships where user_id = ? and organization_id = ?`, [userId, organizationId]);
    return rows[0] ? toMembership(rows[0]) : null;
  }

  async listByUser(tx: Transaction, userId: string): Promise<Membership[]> {
    const rows = await exec(tx, `select ${MEMBERSHIP_COLUMNS} from identity_memberships where user_id = ? order by created_at, organization_id`, [userId]);
    return rows.map(toMembership);
  }

  async listAdminEmails(tx: Transaction, organizationId: string): Promise<string[]> {
    const rows = await exec(
      tx,
      `select u.email from identity_memberships m join identity_users u on u.id = m.user_id
        where m.organization_id = ? and m.role in ('owner', 'administrator') order by m.created_at`,
      [organizationId],
    );
    return rows.map((row) => row.email as string);
  }
}

export class SqlCompanyRepository implements CompanyRepository {
  async insert(tx: Transaction, company: CompanyProfile): Promise<void> {
    const { organizationId, trialEligible, createdAt, ...profile } = company;
    await exec(
      tx,
      `insert into identity_organization_profiles (organization_id, document, profile, trial_eligible, created_at) values (?, ?, ?::jsonb, ?, ?)`,
      [organizationId, profile.document, JSON.stringify(profile), trialEligible, createdAt],
    );
  }

  async findByOrganization(tx: Transaction, organizationId: string): Promise<CompanyProfile | null> {
    const rows = await exec(tx, `select ${COMPANY_COLUMNS} from identity_organization_profiles where organization_id = ?`, [organizationId]);
    const row = rows[0];
    if (!row) return null;
    const profile = (typeof row.profile === 'string' ? JSON.parse(row.profile) : row.profile) as Omit<CompanyProfile, 'organizationId' | 'trialEligible' | 'createdAt'>;
    return { ...profile, organizationId, trialEligible: Boolean(row.trial_eligible), createdAt: date(row.created_at) };
  }

  async trialAlreadyClaimed(tx: Transaction, claims: readonly string[]): Promise<boolean> {
    if (claims.length === 0) return false;
    const rows = await exec(tx, `select 1 from identity_trial_claims where claim in (${claims.map(() => '?').join(', ')}) limit 1`, [...claims]);
    return rows.length > 0;
  }

  async recordTrialClaims(tx: Transaction, organizationId: string, claims: readonly string[], at: Date): Promise<void> {
    for (const claim of claims) {
      await exec(tx, `insert into identity_trial_claims (claim, organization_id, created_at) values (?, ?, ?) on conflict (claim) do nothing`, [
        claim, organizationId, at,
      ]);
    }
  }
}

const toChallenge = (row: Row, sealer: TotpSecretSealer): LoginChallenge => ({
  id: row.id as string,
  userId: row.user_id as string,
  organizationId: row.organization_id as string,
  tokenHash: row.token_hash as string,
  stage: row.stage as ChallengeStage,
  purpose: row.purpose as ChallengePurpose,
  pendingSecret: sealer.open((row.pending_secret as string | null) ?? null, row.user_id as string),
  failures: Number(row.failures),
  createdAt: date(row.created_at),
  expiresAt: date(row.expires_at),
});

export class SqlLoginChallengeRepository implements LoginChallengeRepository {
  private readonly sealer: TotpSecretSealer;

  constructor(cipher: CredentialCipher | null = null) {
    this.sealer = new TotpSecretSealer(cipher);
  }

  async insert(tx: Transaction, c: LoginChallenge): Promise<void> {
    await exec(
      tx,
      `insert into identity_challenges (id, user_id, organization_id, token_hash, stage, purpose, pending_secret, failures, created_at, expires_at)
       values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [c.id, c.userId, c.organizationId, c.tokenHash, c.stage, c.purpose, this.sealer.seal(c.pendingSecret, c.userId), c.failures, c.createdAt, c.expiresAt],
    );
  }

  async update(tx: Transaction, c: LoginChallenge): Promise<void> {
    await exec(
      tx,
      `update identity_challenges set token_hash = ?, stage = ?, purpose = ?, pending_secret = ?, failures = ?, expires_at = ? where id = ?`,
      [c.tokenHash, c.stage, c.purpose, this.sealer.seal(c.pendingSecret, c.userId), c.failures, c.expiresAt, c.id],
    );
  }

  async findByTokenHash(tx: Transaction, tokenHash: string, forUpdate?: boolean): Promise<LoginChallenge | null> {
    const rows = await exec(tx, `select ${CHALLENGE_COLUMNS} from identity_challenges where token_hash = ?${lock(forUpdate)}`, [tokenHash]);
    return rows[0] ? toChallenge(rows[0], this.sealer) : null;
  }
}

const toSession = (row: Row): SessionFamily => ({
  id: row.id as string,
  userId: row.user_id as string,
  organizationId: row.organization_id as string,
  currentTokenHash: row.current_token_hash as string,
  generation: Number(row.generation),
  createdAt: date(row.created_at),
  expiresAt: date(row.expires_at),
  revokedAt: maybeDate(row.revoked_at),
  revokedReason: (row.revoked_reason as RevocationReason | null) ?? null,
});

export class SqlSessionRepository implements SessionRepository {
  async insert(tx: Transaction, s: SessionFamily): Promise<void> {
    await exec(
      tx,
      `insert into identity_sessions (id, user_id, organization_id, current_token_hash, generation, created_at, expires_at, revoked_at, revoked_reason)
       values (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [s.id, s.userId, s.organizationId, s.currentTokenHash, s.generation, s.createdAt, s.expiresAt, s.revokedAt, s.revokedReason],
    );
  }

  async update(tx: Transaction, s: SessionFamily): Promise<void> {
    await exec(tx, `update identity_sessions set current_token_hash = ?, generation = ?, revoked_at = ?, revoked_reason = ? where id = ?`, [
      s.currentTokenHash, s.generation, s.revokedAt, s.revokedReason, s.id,
    ]);
  }

  async findById(tx: Transaction, id: string, forUpdate?: boolean): Promise<SessionFamily | null> {
    const rows = await exec(tx, `select ${SESSION_COLUMNS} from identity_sessions where id = ?${lock(forUpdate)}`, [id]);
    return rows[0] ? toSession(rows[0]) : null;
  }

  async listActiveByUser(tx: Transaction, userId: string): Promise<SessionFamily[]> {
    const rows = await exec(tx, `select ${SESSION_COLUMNS} from identity_sessions where user_id = ? and revoked_at is null order by created_at for update`, [userId]);
    return rows.map(toSession);
  }
}

export class SqlRecoveryCodeRepository implements RecoveryCodeRepository {
  async replaceAll(tx: Transaction, userId: string, hashes: readonly string[], at: Date): Promise<void> {
    await exec(tx, `delete from identity_recovery_codes where user_id = ?`, [userId]);
    for (const hash of hashes) {
      await exec(tx, `insert into identity_recovery_codes (user_id, code_hash, created_at, used_at) values (?, ?, ?, null)`, [userId, hash, at]);
    }
  }

  async consume(tx: Transaction, userId: string, hash: string, at: Date): Promise<boolean> {
    const rows = await exec(
      tx,
      `update identity_recovery_codes set used_at = ? where user_id = ? and code_hash = ? and used_at is null returning code_hash`,
      [at, userId, hash],
    );
    return rows.length === 1;
  }

  async countAvailable(tx: Transaction, userId: string): Promise<number> {
    const rows = await exec(tx, `select count(*)::int as n from identity_recovery_codes where user_id = ? and used_at is null`, [userId]);
    return Number(rows[0]?.n ?? 0);
  }
}

const toReset = (row: Row): PasswordResetToken => ({
  id: row.id as string,
  userId: row.user_id as string,
  tokenHash: row.token_hash as string,
  createdAt: date(row.created_at),
  expiresAt: date(row.expires_at),
  usedAt: maybeDate(row.used_at),
});

export class SqlPasswordResetRepository implements PasswordResetRepository {
  async insert(tx: Transaction, t: PasswordResetToken): Promise<void> {
    await exec(tx, `insert into identity_password_resets (id, user_id, token_hash, created_at, expires_at, used_at) values (?, ?, ?, ?, ?, ?)`, [
      t.id, t.userId, t.tokenHash, t.createdAt, t.expiresAt, t.usedAt,
    ]);
  }

  async findByTokenHash(tx: Transaction, tokenHash: string, forUpdate?: boolean): Promise<PasswordResetToken | null> {
    const rows = await exec(tx, `select ${PASSWORD_RESET_COLUMNS} from identity_password_resets where token_hash = ?${lock(forUpdate)}`, [tokenHash]);
    return rows[0] ? toReset(rows[0]) : null;
  }

  async markUsed(tx: Transaction, id: string, at: Date): Promise<void> {
    await exec(tx, `update identity_password_resets set used_at = ? where id = ?`, [at, id]);
  }

  async supersedeForUser(tx: Transaction, userId: string, at: Date): Promise<void> {
    await exec(tx, `update identity_password_resets set used_at = ? where user_id = ? and used_at is null`, [at, userId]);
  }
}
