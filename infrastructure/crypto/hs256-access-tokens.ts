import { createHmac, timingSafeEqual } from 'node:crypto';
import type { AccessClaims, AccessTokens } from '../../domain/ports/access-tokens';

const HEADER = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url');

/**
 * Dashboard access tokens as compact JWTs signed with HMAC-SHA-256. Only HS256 is accepted (the header is
 * compared byte for byte, so `alg: none` or key confusion cannot apply). Claims: sub (user), org, sid
 * (session), iat, exp; iat_ms keeps millisecond precision for comparisons with tokensValidAfter.
 *
 * Several secrets, current first (SESSION_SECRET=new,old): tokens are signed with the first and verified with
 * each, so rotating the secret signs nobody out; the old one is dropped once the tokens it signed have expired
 * (ACCESS_TOKEN_TTL_SECONDS, docs/operations.md).
 */
export class Hs256AccessTokens implements AccessTokens {
  private readonly keys: readonly Buffer[];

  constructor(secrets: string | readonly string[], private readonly issuer = 'payment-orchestration') {
    const list = typeof secrets === 'string' ? [secrets] : secrets;
    if (list.length === 0) throw new Error('At least one session secret is required');
    if (list.some((secret) => secret.length < 32)) throw new Error('The session secret must be at least 32 characters (each entry of SESSION_SECRET)');
    this.keys = list.map((secret) => createHmac('sha256', secret).update('dashboard-access-token').digest());
  }

  sign(claims: AccessClaims): string {
    const payload = Buffer.from(
      JSON.stringify({
        iss: this.issuer,
        sub: claims.userId,
        org: claims.organizationId,
        sid: claims.sessionId,
        iat: Math.floor(claims.issuedAt.getTime() / 1000),
        iat_ms: claims.issuedAt.getTime(),
        exp: Math.floor(claims.expiresAt.getTime() / 1000),
      }),
    ).toString('base64url');
    return `${HEADER}.${payload}.${this.signature(`${HEADER}.${payload}`)}`;
  }

  verify(token: string, now: Date): AccessClaims | null {
    if (token.length > 4096) return null;
    const parts = token.split('.');
    if (parts.length !== 3 || parts[0] !== HEADER) return null;
    if (!this.signedByAnyKey(`${parts[0]}.${parts[1]}`, parts[2]!)) return null;
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8')) as Record<string, unknown>;
    } catch {
      return null;
    }
    const { sub, org, sid, iat_ms: iatMs, exp, iss } = body;
    if (iss !== this.issuer || typeof sub !== 'string' || typeof org !== 'string' || typeof sid !== 'string') return null;
    if (typeof iatMs !== 'number' || typeof exp !== 'number') return null;
    if (now.getTime() >= exp * 1000) return null;
    return { userId: sub, organizationId: org, sessionId: sid, issuedAt: new Date(iatMs), expiresAt: new Date(exp * 1000) };
  }

  /** Every key is tried (no early exit), so the time taken does not say which key, if any, signed it. */
  private signedByAnyKey(input: string, signature: string): boolean {
    const given = Buffer.from(signature);
    let matched = false;
    for (const key of this.keys) {
      const expected = Buffer.from(this.signature(input, key));
      if (expected.length === given.length && timingSafeEqual(expected, given)) matched = true;
    }
    return matched;
  }

  private signature(input: string, key: Buffer = this.keys[0]!): string {
    return createHmac('sha256', key).update(input).digest('base64url');
  }
}

/** SESSION_SECRET as configured: comma-separated, current first (base64 secrets hold no comma); blanks ignored. */
export function sessionSecretsOf(configured: string): string[] {
  return configured.split(',').map((secret) => secret.trim()).filter((secret) => secret !== '');
}
