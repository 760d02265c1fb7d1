import { ACCESS_TOKEN_TTL_SECONDS, formatRefreshToken, startSession } from '../../domain/identity/session';
import type { Transaction } from '../../domain/ports/transactor';
import { randomToken, type IdentityDeps } from './identity-deps';

export interface TokenPair {
  readonly accessToken: string;
  readonly refreshToken: string;
  readonly tokenType: 'Bearer';
  readonly expiresIn: number;
}

/** Starts a session (refresh family) for a user in one organization and signs its first access token. */
export async function issueSession(
  deps: IdentityDeps,
  tx: Transaction,
  userId: string,
  organizationId: string,
): Promise<TokenPair> {
  const now = deps.clock.now();
  const secret = randomToken(deps);
  const session = startSession({ id: deps.ids.next('ses_'), userId, organizationId, secret, now });
  await deps.sessions.insert(tx, session);
  return {
    accessToken: signAccess(deps, userId, organizationId, session.id, now),
    refreshToken: formatRefreshToken(session.id, secret),
    tokenType: 'Bearer',
    expiresIn: ACCESS_TOKEN_TTL_SECONDS,
  };
}

export function signAccess(deps: IdentityDeps, userId: string, organizationId: string, sessionId: string, now: Date): string {
  return deps.accessTokens.sign({
    userId,
    organizationId,
    sessionId,
    issuedAt: now,
    expiresAt: new Date(now.getTime() + ACCESS_TOKEN_TTL_SECONDS * 1000),
  });
}
