import { createHmac, timingSafeEqual } from 'node:crypto';
import type { AccessClaims, AccessTokens } from '../../domain/ports/access-tokens';

const HEADER = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url');

/**
 * Dashboard access tokens as compact JWTs signed with HMAC-SHA-256. Only HS256 is accepted (the header is
 * compared byte for byte, so `alg: none` or key confusion cannot apply). Claims: sub (user), org, sid
 * (session), iat, exp; iat_ms keeps millisecond precision for comparisons with tokensValidAfter.
 */
export class Hs256AccessTokens implements AccessTokens {
  private readonly key: Buffer;

  constructor(secret: string, private readonly issuer = 'payment-orchestration') {
    if (secret.length < 32) throw new Error('The session secret must be at least 32 characters');
    this.key = createHmac('sha256', secret).update('dashboard-access-token').digest();
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
    const expected = Buffer.from(this.signature(`${parts[0]}.${parts[1]}`));
    const given = Buffer.from(parts[2]!);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null;
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

  private signature(input: string): string {
    return createHmac('sha256', this.key).update(input).digest('base64url');
  }
}
