import { isAuthLimitName, type AuthLimits, type Limit } from '../../edge/routes/auth.limits';

const UNIT_SECONDS = { s: 1, m: 60, h: 3600, d: 86_400 } as const;
const ENTRY = /^([a-z0-9_.]+)=(\d+)\/(\d+)([smhd])$/;

/**
 * RATE_LIMITS (contract.md section 8): comma-separated `name=count/window` with a window such as `90s`, `15m`,
 * `1h` or `1d`, for the names of edge/routes/auth.limits.ts. Throws one sentence naming the first bad entry:
 * a misspelt name must not silently leave a limit at its default.
 */
export function parseRateLimitOverrides(raw: string | undefined): Partial<AuthLimits> {
  const overrides: Partial<Record<string, Limit>> = {};
  for (const entry of (raw ?? '').split(',').map((part) => part.trim()).filter(Boolean)) {
    const match = ENTRY.exec(entry);
    if (!match) throw new Error(`RATE_LIMITS entry "${entry}" must be name=count/window, such as auth.register.address=20/15m`);
    const [, name, count, amount, unit] = match as unknown as [string, string, string, string, keyof typeof UNIT_SECONDS];
    if (!isAuthLimitName(name)) throw new Error(`RATE_LIMITS names "${name}", which is not a limit listed in docs/auth.md`);
    if (name in overrides) throw new Error(`RATE_LIMITS sets "${name}" twice`);
    const points = Number(count);
    const windowSeconds = Number(amount) * UNIT_SECONDS[unit];
    if (!Number.isSafeInteger(points) || points < 1 || !Number.isSafeInteger(windowSeconds) || windowSeconds < 1) {
      throw new Error(`RATE_LIMITS entry "${entry}" needs a count and a window of at least 1`);
    }
    overrides[name] = { points, windowSeconds };
  }
  return overrides as Partial<AuthLimits>;
}
