import { expect } from 'chai';
import {
  DEFAULT_RETRY_POLICY,
  decideAfterFailure,
  maxAttempts,
  shouldAutoDisable,
} from '../../../../domain/webhook/retry-policy';

const t0 = new Date('2026-01-01T00:00:00.000Z');
const mid = () => 0.5;

describe('retry policy', () => {
  it('has 7 attempts with the spec schedule before attempts 2..7', () => {
    expect(maxAttempts(DEFAULT_RETRY_POLICY)).to.equal(7);
    const table: Array<[number, number]> = [[1, 30], [2, 120], [3, 600], [4, 3600], [5, 21600], [6, 86400]];
    for (const [attempt, seconds] of table) {
      const d = decideAfterFailure(DEFAULT_RETRY_POLICY, attempt, t0, mid);
      expect(d.kind).to.equal('retry');
      if (d.kind === 'retry') {
        expect(d.nextAttempt).to.equal(attempt + 1);
        expect(d.nextRetryAt.getTime() - t0.getTime()).to.equal(seconds * 1000);
      }
    }
  });
  it('is exhausted after the 7th attempt fails', () => {
    expect(decideAfterFailure(DEFAULT_RETRY_POLICY, 7, t0, mid)).to.deep.equal({ kind: 'exhausted' });
  });
  it('applies jitter of plus or minus 20 percent from the injected random', () => {
    const low = decideAfterFailure(DEFAULT_RETRY_POLICY, 1, t0, () => 0);
    const high = decideAfterFailure(DEFAULT_RETRY_POLICY, 1, t0, () => 0.999999);
    expect(low.kind === 'retry' && low.delayMs).to.equal(24000);
    expect(high.kind === 'retry' && Math.round(high.delayMs / 1000)).to.equal(36);
  });
  it('follows a configured schedule (WEBHOOK_RETRY_SCHEDULE, parsed by the configuration)', () => {
    const policy = { scheduleSeconds: [1, 2, 3, 4, 5, 6] };
    expect(maxAttempts(policy)).to.equal(7);
    const d = decideAfterFailure(policy, 2, t0, mid);
    expect(d.kind === 'retry' && d.delayMs).to.equal(2000);
    expect(decideAfterFailure(policy, 7, t0, mid)).to.deep.equal({ kind: 'exhausted' });
  });
});

describe('auto-disable rule', () => {
  const day = 24 * 3600 * 1000;
  const at = (ms: number) => new Date(t0.getTime() + ms);
  it('needs both 20 consecutive failures and 3 days without success', () => {
    expect(shouldAutoDisable({ consecutiveFailures: 20, lastSuccessAt: t0, createdAt: t0 }, at(3 * day))).to.equal(true);
    expect(shouldAutoDisable({ consecutiveFailures: 19, lastSuccessAt: t0, createdAt: t0 }, at(10 * day))).to.equal(false);
    expect(shouldAutoDisable({ consecutiveFailures: 500, lastSuccessAt: t0, createdAt: t0 }, at(3 * day - 1))).to.equal(false);
  });
  it('counts from registration when there never was a success', () => {
    expect(shouldAutoDisable({ consecutiveFailures: 20, lastSuccessAt: null, createdAt: t0 }, at(3 * day))).to.equal(true);
    expect(shouldAutoDisable({ consecutiveFailures: 20, lastSuccessAt: null, createdAt: t0 }, at(2 * day))).to.equal(false);
  });
  it('counts from the last success, not registration, when there was one', () => {
    expect(shouldAutoDisable({ consecutiveFailures: 20, lastSuccessAt: at(5 * day), createdAt: t0 }, at(6 * day))).to.equal(false);
  });
});
