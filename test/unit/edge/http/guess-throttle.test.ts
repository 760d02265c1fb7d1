import { expect } from 'chai';
import { HttpError } from '../../../../edge/http/errors';
import { GuessThrottle } from '../../../../edge/http/guess-throttle';
import type { AttemptCounter, CountedVerdict } from '../../../../edge/http/rate-limiter';

/** Counts points per key in one never-ending window, as the PostgreSQL rate limiter does within a window. */
class CountingFake implements AttemptCounter {
  readonly held = new Map<string, number>();

  async consume(key: string, points: number): Promise<CountedVerdict> {
    const consumedPoints = (this.held.get(key) ?? 0) + 1;
    this.held.set(key, consumedPoints);
    const allowed = consumedPoints <= points;
    return { allowed, retryAfterSeconds: allowed ? 0 : 600, consumedPoints, resetsInSeconds: 600 };
  }

  async refund(key: string): Promise<void> {
    this.held.set(key, Math.max(0, (this.held.get(key) ?? 0) - 1));
  }
}

describe('guess throttle (failures per account and address, never the owner from a clean address)', () => {
  let counter: CountingFake;
  let throttle: GuessThrottle;
  const limits = {
    perAddress: { name: 'pair', points: 3, windowSeconds: 900 },
    perAccount: { name: 'account', points: 5, windowSeconds: 900 },
  };

  beforeEach(() => {
    counter = new CountingFake();
    throttle = new GuessThrottle(counter, limits);
  });

  const right = () => Promise.resolve('signed in');
  const wrong = () => Promise.reject(new Error('invalid_credentials'));
  const outcome = (promise: Promise<unknown>) =>
    promise.then(
      () => 'ok',
      (error: unknown) => (error instanceof HttpError ? `${error.status} ${error.options.headers?.['Retry-After']}` : 'wrong'),
    );

  it('refuses an address past its failures for that account, with Retry-After, before checking the guess', async () => {
    for (let i = 0; i < 3; i++) expect(await outcome(throttle.attempt('acct', '1.1.1.1', wrong))).to.equal('wrong');
    expect(await outcome(throttle.attempt('acct', '1.1.1.1', right))).to.equal('429 600');
    expect(await outcome(throttle.attempt('other', '1.1.1.1', right))).to.equal('ok');
  });

  it('counts failures only: successes and refusals are given back', async () => {
    for (let i = 0; i < 10; i++) expect(await outcome(throttle.attempt('acct', '1.1.1.1', right))).to.equal('ok');
    expect(counter.held.get('pair:acct:1.1.1.1')).to.equal(0);
    expect(counter.held.get('account:acct')).to.equal(0);
  });

  it('past the account cap refuses addresses that have failed, and still lets a clean address try', async () => {
    for (let i = 1; i <= 6; i++) expect(await outcome(throttle.attempt('acct', `10.0.0.${i}`, wrong))).to.equal('wrong');
    expect(await outcome(throttle.attempt('acct', '10.0.0.1', right))).to.equal('429 600');
    expect(await outcome(throttle.attempt('acct', '10.0.0.7', wrong))).to.equal('wrong');
    expect(await outcome(throttle.attempt('acct', '10.0.0.7', wrong))).to.equal('429 600');
    expect(await outcome(throttle.attempt('acct', '203.0.113.1', right))).to.equal('ok');
    expect(counter.held.get('account:acct')).to.equal(7);
  });
});
