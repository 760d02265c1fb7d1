/** What a dashboard access token says: who, in which organization, under which session (refresh family). */
export interface AccessClaims {
  readonly userId: string;
  readonly organizationId: string;
  readonly sessionId: string;
  readonly issuedAt: Date;
  readonly expiresAt: Date;
}

/** Signs and verifies short-lived access tokens (HS256). `verify` returns null for anything invalid or expired. */
export interface AccessTokens {
  sign(claims: AccessClaims): string;
  verify(token: string, now: Date): AccessClaims | null;
}
