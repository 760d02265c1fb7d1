/**
 * The dashboard's rate limits, by the names operators override with RATE_LIMITS (contract.md section 8) and
 * docs/auth.md lists. A name reads `auth.<route>.<what it counts>`; `address` is the client address
 * (edge/http/client-address.ts), `account` the e-mail or user signing in.
 */
export interface Limit {
  readonly points: number;
  readonly windowSeconds: number;
}

const FIFTEEN_MINUTES = 15 * 60;
const per15m = (points: number): Limit => ({ points, windowSeconds: FIFTEEN_MINUTES });

export const DEFAULT_AUTH_LIMITS = {
  'auth.register.address': per15m(20),
  'auth.login.address': per15m(100),
  /** Wrong passwords for one account from one address: past it, that address is refused for that account. */
  'auth.login.account_address': per15m(5),
  /** Wrong passwords for one account from every address: past it, only addresses that have not failed may try. */
  'auth.login.account': per15m(10),
  'auth.mfa.status.address': per15m(300),
  'auth.mfa.setup.address': per15m(100),
  'auth.mfa.verify.address': per15m(100),
  'auth.mfa.verify.account_address': per15m(5),
  'auth.mfa.verify.account': per15m(10),
  'auth.refresh.address': per15m(300),
  'auth.recovery_codes.user': per15m(10),
  'auth.forgot_password.address': per15m(30),
  'auth.forgot_password.email_address': per15m(5),
  /** Reset e-mails sent to one account; past it requests are still answered 201, and nothing is sent or voided. */
  'auth.forgot_password.email': per15m(5),
  'auth.password_reset_check.address': per15m(100),
  'auth.reset_password.address': per15m(50),
} as const satisfies Record<string, Limit>;

export type AuthLimitName = keyof typeof DEFAULT_AUTH_LIMITS;
export type AuthLimits = Readonly<Record<AuthLimitName, Limit>>;

export const AUTH_LIMIT_NAMES = Object.keys(DEFAULT_AUTH_LIMITS) as AuthLimitName[];

export function isAuthLimitName(name: string): name is AuthLimitName {
  return Object.prototype.hasOwnProperty.call(DEFAULT_AUTH_LIMITS, name);
}
