import { createHash } from 'node:crypto';
import { DomainError } from '../shared/domain-error';

/**
 * A dashboard session is a refresh-token family: one login (or account switch) starts it, and every refresh
 * rotates its token. Only the latest token is valid; presenting an earlier one means a copy leaked, so the
 * whole family is revoked and both holders must sign in again (OAuth 2.0 Security BCP, refresh rotation).
 */
export const ACCESS_TOKEN_TTL_SECONDS = 15 * 60;
export const SESSION_TTL_MS = 30 * 24 * 60 * 60 * 1000;

export type RevocationReason = 'logout' | 'reuse_detected' | 'password_changed' | 'password_reset' | 'expired';

export interface SessionFamily {
  readonly id: string;
  readonly userId: string;
  readonly organizationId: string;
  readonly currentTokenHash: string;
  readonly generation: number;
  readonly createdAt: Date;
  readonly expiresAt: Date;
  readonly revokedAt: Date | null;
  readonly revokedReason: RevocationReason | null;
}

export function hashRefreshSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/** Refresh tokens are `<familyId>.<secret>`: the family is found by id, the secret compared by hash. */
export function formatRefreshToken(familyId: string, secret: string): string {
  return `${familyId}.${secret}`;
}

export function parseRefreshToken(token: string): { familyId: string; secret: string } | null {
  const dot = token.lastIndexOf('.');
  if (dot <= 0 || dot === token.length - 1) return null;
  return { familyId: token.slice(0, dot), secret: token.slice(dot + 1) };
}

export function startSession(params: {
  id: string;
  userId: string;
  organizationId: string;
  secret: string;
  now: Date;
}): SessionFamily {
  return {
    id: params.id,
    userId: params.userId,
    organizationId: params.organizationId,
    currentTokenHash: hashRefreshSecret(params.secret),
    generation: 1,
    createdAt: params.now,
    expiresAt: new Date(params.now.getTime() + SESSION_TTL_MS),
    revokedAt: null,
    revokedReason: null,
  };
}

/** Whether the session still authorizes requests (access tokens are checked against their family too). */
export function isSessionActive(session: SessionFamily, tokensValidAfter: Date, now: Date): boolean {
  return (
    session.revokedAt === null &&
    now.getTime() < session.expiresAt.getTime() &&
    session.createdAt.getTime() >= tokensValidAfter.getTime()
  );
}

export type RotationResult =
  | { outcome: 'rotated'; session: SessionFamily }
  | { outcome: 'reuse_detected'; session: SessionFamily };

/**
 * Rotates the family on a refresh. An inactive family refuses; a stale token revokes the family (the caller
 * must persist the returned session in both outcomes, then refuse the request on reuse).
 */
export function rotateSession(
  session: SessionFamily,
  presentedSecret: string,
  nextSecret: string,
  tokensValidAfter: Date,
  now: Date,
): RotationResult {
  if (!isSessionActive(session, tokensValidAfter, now)) {
    throw new DomainError('unauthorized', 'The refresh token is no longer valid; sign in again');
  }
  if (hashRefreshSecret(presentedSecret) !== session.currentTokenHash) {
    return { outcome: 'reuse_detected', session: revokeSession(session, 'reuse_detected', now) };
  }
  return {
    outcome: 'rotated',
    session: { ...session, currentTokenHash: hashRefreshSecret(nextSecret), generation: session.generation + 1 },
  };
}

export function revokeSession(session: SessionFamily, reason: RevocationReason, now: Date): SessionFamily {
  if (session.revokedAt) return session;
  return { ...session, revokedAt: now, revokedReason: reason };
}

/** Change of password: every other session of the user ends; the one that changed it continues. */
export function sessionsToEndOnPasswordChange(sessions: readonly SessionFamily[], currentSessionId: string): SessionFamily[] {
  return sessions.filter((s) => s.id !== currentSessionId && s.revokedAt === null);
}
