import { DomainError } from '../shared/domain-error';
import type { Role } from './roles';

/** A confirmed authenticator app: its TOTP secret and the last accepted time step (replay guard). */
export interface Authenticator {
  readonly secret: string;
  readonly confirmedAt: Date;
  readonly lastUsedStep: number | null;
}

/** A person who signs in to the dashboard. One login reaches every organization it is a member of. */
export interface User {
  readonly id: string;
  readonly name: string;
  readonly email: string;
  readonly phone: string;
  readonly passwordHash: string;
  readonly authenticator: Authenticator | null;
  /** Every session (refresh family) created before this instant is void: logout and password reset advance it. */
  readonly tokensValidAfter: Date;
  readonly createdAt: Date;
}

/** A user's role in one organization (the company or one of its brands). */
export interface Membership {
  readonly userId: string;
  readonly organizationId: string;
  readonly role: Role;
  readonly createdAt: Date;
}

export const PASSWORD_MIN = 12;
export const PASSWORD_MAX = 256;

export function assertPasswordPolicy(password: string, param: string): void {
  if (password.length < PASSWORD_MIN || password.length > PASSWORD_MAX) {
    throw new DomainError('validation_failed', `The password must be ${PASSWORD_MIN} to ${PASSWORD_MAX} characters`, { param });
  }
}

export function advanceTokensValidAfter(user: User, now: Date): User {
  const next = now.getTime() > user.tokensValidAfter.getTime() ? now : new Date(user.tokensValidAfter.getTime() + 1);
  return { ...user, tokensValidAfter: next };
}

/** Confirming a new authenticator replaces the old one (after a recovery code, the lost phone stops working). */
export function confirmAuthenticator(user: User, secret: string, usedStep: number, now: Date): User {
  return { ...user, authenticator: { secret, confirmedAt: now, lastUsedStep: usedStep } };
}

export function recordAuthenticatorUse(user: User, step: number): User {
  if (!user.authenticator) throw new DomainError('invalid_state', 'No authenticator is enrolled');
  return { ...user, authenticator: { ...user.authenticator, lastUsedStep: step } };
}

/** The company (root organization) owner is the only one who may create brands. */
export function isCompanyOwner(memberships: readonly Membership[], userId: string, companyId: string): boolean {
  return memberships.some((m) => m.userId === userId && m.organizationId === companyId && m.role === 'owner');
}
