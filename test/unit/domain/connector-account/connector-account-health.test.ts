import { expect } from 'chai';
import {
  RECENT_CALLS_WINDOW,
  summarizeHealth,
  type CallOutcome,
  type CallRecord,
} from '../../../../domain/connector-account/connector-account-health';

const at = (minute: number) => new Date(Date.UTC(2026, 10, 22, 12, minute));
const calls = (...outcomes: CallOutcome[]): CallRecord[] =>
  outcomes.map((outcome, i) => ({ outcome, operation: 'authorize', latencyMs: 100 * (i + 1), at: at(50 - i) }));

describe('connector account health summary', () => {
  const cases: Array<{ name: string; history: Parameters<typeof summarizeHealth>[0]; status: string }> = [
    { name: 'nothing known', history: { lastVerification: null, recentCalls: [] }, status: 'unknown' },
    { name: 'a valid verification', history: { lastVerification: { result: 'valid', message: '', at: at(1) }, recentCalls: [] }, status: 'healthy' },
    { name: 'an invalid verification', history: { lastVerification: { result: 'invalid', message: '', at: at(1) }, recentCalls: [] }, status: 'failing' },
    { name: 'an unreachable verification', history: { lastVerification: { result: 'unreachable', message: '', at: at(1) }, recentCalls: [] }, status: 'failing' },
    {
      name: 'a failed verification followed by successful calls',
      history: { lastVerification: { result: 'invalid', message: '', at: at(1) }, recentCalls: calls('approved') },
      status: 'healthy',
    },
    { name: 'approvals and declines only (declines are the issuer, not the connector)', history: { lastVerification: null, recentCalls: calls('approved', 'declined') }, status: 'healthy' },
    { name: 'one failure among successes', history: { lastVerification: null, recentCalls: calls('timeout', 'approved', 'approved') }, status: 'degraded' },
    { name: 'half of the calls failing', history: { lastVerification: null, recentCalls: calls('technical_failure', 'timeout', 'approved', 'approved') }, status: 'failing' },
    { name: 'two failures are too few calls to call it failing', history: { lastVerification: null, recentCalls: calls('timeout', 'timeout') }, status: 'degraded' },
  ];
  for (const c of cases) {
    it(`${c.name} -> ${c.status}`, () => {
      expect(summarizeHealth(c.history).status).to.equal(c.status);
    });
  }

  it('counts outcomes over the window only, newest first, with average latency', () => {
    const many = calls(...(Array.from({ length: RECENT_CALLS_WINDOW + 5 }, (_, i) => (i === 0 ? 'timeout' : 'approved')) as CallOutcome[]));
    const summary = summarizeHealth({ lastVerification: null, recentCalls: many });
    expect(summary.recentCalls).to.include({ window: RECENT_CALLS_WINDOW, total: RECENT_CALLS_WINDOW, timeouts: 1, approved: RECENT_CALLS_WINDOW - 1 });
    expect(summary.recentCalls.lastCallAt).to.equal(at(50).toISOString());
    expect(summary.recentCalls.lastFailureAt).to.equal(at(50).toISOString());
    expect(summary.recentCalls.averageLatencyMs).to.equal(Math.round((100 * (RECENT_CALLS_WINDOW * (RECENT_CALLS_WINDOW + 1))) / 2 / RECENT_CALLS_WINDOW));
  });
});
