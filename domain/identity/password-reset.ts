import { createHash } from 'node:crypto';
import { DomainError } from '../shared/domain-error';

/**
 * A password reset link: single use, valid 30 minutes (spec Limits). Asking again supersedes earlier links,
 * so only the newest e-mail works. The token is stored as a SHA-256 digest.
 */
export const RESET_TOKEN_TTL_MS = 30 * 60 * 1000;

export interface PasswordResetToken {
  readonly id: string;
  readonly userId: string;
  readonly tokenHash: string;
  readonly createdAt: Date;
  readonly expiresAt: Date;
  readonly usedAt: Date | null;
}

export function hashResetToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export function issueResetToken(params: { id: string; userId: string; token: string; now: Date }): PasswordResetToken {
  return {
    id: params.id,
    userId: params.userId,
    tokenHash: hashResetToken(params.token),
    createdAt: params.now,
    expiresAt: new Date(params.now.getTime() + RESET_TOKEN_TTL_MS),
    usedAt: null,
  };
}

export function isResetTokenValid(token: PasswordResetToken | null, now: Date): token is PasswordResetToken {
  return token !== null && token.usedAt === null && now.getTime() < token.expiresAt.getTime();
}

export function consumeResetToken(token: PasswordResetToken | null, now: Date): PasswordResetToken {
  if (!isResetTokenValid(token, now)) {
    throw new DomainError('invalid_reset_token', 'The reset link is invalid, expired or already used', { param: 'body.resetToken' });
  }
  return { ...token, usedAt: now };
}
