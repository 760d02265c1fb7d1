import { HttpError } from './errors';
import type { AttemptCounter } from './rate-limiter';

export interface GuessLimits {
  /** Name and size of the failures allowed for one account from one address. */
  readonly perAddress: { readonly name: string; readonly points: number; readonly windowSeconds: number };
  /** Name and size of the failures for one account from every address, past which the account is under attack. */
  readonly perAccount: { readonly name: string; readonly points: number; readonly windowSeconds: number };
}

/**
 * Throttles guessing one account's secret (a password, a second-factor code) without letting a stranger lock the
 * owner out. Failures are counted per (account, address): an address that keeps failing is refused for that
 * account. Failures are also counted per account: past that cap the account is under attack, and every address
 * that has already failed against it is refused until its window ends, so a guesser spread over many addresses
 * gets one guess per address per window. An address that has not failed against the account is always let
 * through, so the owner's correct secret from a clean address is never refused.
 *
 * An attempt is counted when it starts (parallel guesses are bounded too) and given back when it succeeds or is
 * refused without being checked, so the counters hold failures only.
 */
export class GuessThrottle {
  constructor(
    private readonly counter: AttemptCounter,
    private readonly limits: GuessLimits,
  ) {}

  async attempt<T>(account: string, address: string, guess: () => Promise<T>): Promise<T> {
    const { perAddress, perAccount } = this.limits;
    const pairKey = `${perAddress.name}:${account}:${address}`;
    const accountKey = `${perAccount.name}:${account}`;
    const giveBackPair = () => this.counter.refund(pairKey, perAddress.points, perAddress.windowSeconds);
    const giveBackAccount = () => this.counter.refund(accountKey, perAccount.points, perAccount.windowSeconds);

    const pair = await this.counter.consume(pairKey, perAddress.points, perAddress.windowSeconds);
    if (!pair.allowed) throw tooManyAttempts(pair.retryAfterSeconds);
    const accountWide = await this.counter.consume(accountKey, perAccount.points, perAccount.windowSeconds);
    const addressHasFailed = pair.consumedPoints > 1;
    if (!accountWide.allowed && addressHasFailed) {
      await giveBackAccount();
      await giveBackPair();
      throw tooManyAttempts(pair.resetsInSeconds);
    }
    const result = await guess();
    await giveBackAccount();
    await giveBackPair();
    return result;
  }
}

function tooManyAttempts(retryAfterSeconds: number): HttpError {
  return new HttpError('rate_limited', 'Too many failed attempts for this account from this address; retry after the time in Retry-After', {
    headers: { 'Retry-After': String(Math.max(1, retryAfterSeconds)) },
  });
}
