import type { LoginChallenge } from '../identity/login-challenge';
import type { PasswordResetToken } from '../identity/password-reset';
import type { SessionFamily } from '../identity/session';
import type { Membership, User } from '../identity/user';
import type { CompanyProfile } from '../identity/company';
import type { Transaction } from './transactor';

/** Dashboard users. E-mail is unique (normalized to lower case); `forUpdate` locks the row for the unit of work. */
export interface UserRepository {
  insert(tx: Transaction, user: User): Promise<void>;
  update(tx: Transaction, user: User): Promise<void>;
  findById(tx: Transaction, id: string, forUpdate?: boolean): Promise<User | null>;
  findByEmail(tx: Transaction, email: string): Promise<User | null>;
}

/** Who may act in which organization, with which role. */
export interface MembershipRepository {
  insert(tx: Transaction, membership: Membership): Promise<void>;
  find(tx: Transaction, userId: string, organizationId: string): Promise<Membership | null>;
  listByUser(tx: Transaction, userId: string): Promise<Membership[]>;
  /** Members of one organization with their e-mail (security alerts go to owners and administrators). */
  listAdminEmails(tx: Transaction, organizationId: string): Promise<string[]>;
}

/** Company registration data (document, legal name, address) and the trial claims that stop a second trial. */
export interface CompanyRepository {
  insert(tx: Transaction, company: CompanyProfile): Promise<void>;
  findByOrganization(tx: Transaction, organizationId: string): Promise<CompanyProfile | null>;
  /** True when the document or e-mail (normalized, hashed) already started a trial. */
  trialAlreadyClaimed(tx: Transaction, claims: readonly string[]): Promise<boolean>;
  recordTrialClaims(tx: Transaction, organizationId: string, claims: readonly string[], at: Date): Promise<void>;
}

export interface LoginChallengeRepository {
  insert(tx: Transaction, challenge: LoginChallenge): Promise<void>;
  update(tx: Transaction, challenge: LoginChallenge): Promise<void>;
  findByTokenHash(tx: Transaction, tokenHash: string, forUpdate?: boolean): Promise<LoginChallenge | null>;
}

export interface SessionRepository {
  insert(tx: Transaction, session: SessionFamily): Promise<void>;
  update(tx: Transaction, session: SessionFamily): Promise<void>;
  findById(tx: Transaction, id: string, forUpdate?: boolean): Promise<SessionFamily | null>;
  listActiveByUser(tx: Transaction, userId: string): Promise<SessionFamily[]>;
}

/** Single-use recovery codes, stored as digests. `consume` is atomic: two concurrent uses cannot both win. */
export interface RecoveryCodeRepository {
  replaceAll(tx: Transaction, userId: string, hashes: readonly string[], at: Date): Promise<void>;
  consume(tx: Transaction, userId: string, hash: string, at: Date): Promise<boolean>;
  countAvailable(tx: Transaction, userId: string): Promise<number>;
}

export interface PasswordResetRepository {
  insert(tx: Transaction, token: PasswordResetToken): Promise<void>;
  findByTokenHash(tx: Transaction, tokenHash: string, forUpdate?: boolean): Promise<PasswordResetToken | null>;
  markUsed(tx: Transaction, id: string, at: Date): Promise<void>;
  /** Earlier unused links of the user stop working when a new one is issued or a reset succeeds. */
  supersedeForUser(tx: Transaction, userId: string, at: Date): Promise<void>;
}
