import { expect } from 'chai';
import type { FlowGraph } from '../../../../domain/flow/flow-graph';
import { newFlowRun, type FlowRunState } from '../../../../domain/flow-run/flow-run';
import { stepFlowRun, type AcquirerCallOutcome, type FlowAction, type FlowRunInput, type FlowStepResult } from '../../../../domain/flow-run/flow-step';
import type { RetryGate } from '../../../../domain/flow-run/retry-node';
import type { RetryVerdict } from '../../../../domain/payment/retry/brand-retry-rules';
import { account, cardPayment, e, facts, graph, n } from '../flow/fixtures';

const T0 = new Date('2026-11-30T10:00:00.000Z');
const MINUTE = 60_000;
const ACCOUNTS = [account('ca_1', { costBasisPoints: 100 }), account('ca_2', { costBasisPoints: 200 })];
const REFUSED: RetryVerdict = { allowed: false, reason: 'brand_retry_limit', message: 'Visa allows at most 15 retries (test)' };

/** t -> route [ca_1, ca_2] -> ok; declined -> retry r -> route (retry) / no (exhausted). */
const retryGraph = (maxAttempts = 2, intervalMinutes = 30): FlowGraph =>
  graph(
    [n('t', 'trigger'), n('a', 'route', { strategy: 'priority', connectorAccountIds: ['ca_1', 'ca_2'] }), n('r', 'retry', { maxAttempts, intervalMinutes }), n('ok', 'approve'), n('no', 'decline')],
    [e('t', 'a'), e('a', 'ok', 'approved'), e('a', 'r', 'declined'), e('r', 'a', 'retry'), e('r', 'no', 'exhausted')],
  );

/** A gate answering from the verdicts the test sets, counting what it was asked. */
function scriptedGate() {
  const asked: Array<'call' | 'retry'> = [];
  const verdicts: Record<'call' | 'retry', RetryVerdict> = { call: { allowed: true }, retry: { allowed: true } };
  const gate: RetryGate = { verdict: (use) => (asked.push(use), verdicts[use]) };
  return { gate, asked, verdicts };
}

function driver(g: FlowGraph, gate?: RetryGate) {
  let attempt = 0;
  let state: FlowRunState = newFlowRun({ flowId: 'flw_1', name: 'retry', version: 1 });
  return {
    feed(input: FlowRunInput, now = T0): FlowStepResult {
      const result = stepFlowRun(
        { graph: g, payment: cardPayment, facts: facts(), accounts: ACCOUNTS, random: () => 0, newAttemptId: () => `att_${++attempt}`, now, ...(gate ? { retryGate: gate } : {}) },
        state,
        input,
      );
      state = result.run;
      return result;
    },
    answer(action: FlowAction, outcome: AcquirerCallOutcome, now = T0): FlowStepResult {
      if (action.kind !== 'call_acquirer') throw new Error(`expected a call, got ${JSON.stringify(action)}`);
      return this.feed({ kind: 'acquirer_outcome', attemptId: action.attemptId, outcome }, now);
    },
    get run() {
      return state;
    },
  };
}

describe('retry node (step function)', () => {
  it('after a decline waits its interval on a durable timer, then routes afresh (the same account again)', () => {
    const run = driver(retryGraph());
    const first = run.feed({ kind: 'start' });
    const waiting = run.answer(first.action, 'declined');
    expect(waiting.action).to.deep.equal({ kind: 'wait', wait: { kind: 'timer', nodeId: 'r', since: T0.toISOString(), dueAt: new Date(T0.getTime() + 30 * MINUTE).toISOString() } });
    const later = new Date(T0.getTime() + 30 * MINUTE);
    const again = run.feed({ kind: 'timer_fired' }, later);
    expect(again.action).to.include({ kind: 'call_acquirer', accountId: 'ca_1' });
    const done = run.answer(again.action, 'approved', later);
    expect(done.action).to.deep.include({ kind: 'end' });
    expect(done.run.outcome).to.include({ result: 'approved' });
    expect(done.run.steps.map((s) => [s.nodeId, s.exit])).to.deep.equal([['t', 'next'], ['a', 'declined'], ['r', 'retry'], ['a', 'approved'], ['ok', null]]);
  });

  it('leaves by exhausted once maxAttempts retries are spent: the decline says why', () => {
    const run = driver(retryGraph(2));
    let step = run.feed({ kind: 'start' });
    for (let i = 0; i < 2; i++) {
      step = run.answer(step.action, 'declined');
      expect(step.action.kind).to.equal('wait');
      step = run.feed({ kind: 'timer_fired' });
    }
    const end = run.answer(step.action, 'declined');
    expect(end.run.outcome).to.include({ result: 'declined', reason: 'retries_exhausted' });
    expect(end.run.steps.at(-2)).to.include({ nodeId: 'r', exit: 'exhausted', note: 'Retry node r spent its 2 attempts.' });
  });

  it('leaves by exhausted when the gate refuses (brand budget or irreversible decline), with its reason', () => {
    const { gate, verdicts, asked } = scriptedGate();
    const run = driver(retryGraph(5), gate);
    const first = run.feed({ kind: 'start' });
    verdicts.retry = REFUSED;
    const end = run.answer(first.action, 'declined');
    expect(end.run.outcome).to.include({ result: 'declined', reason: 'brand_retry_limit', message: REFUSED.message });
    expect(end.run.steps.find((s) => s.nodeId === 'r')).to.include({ exit: 'exhausted', note: REFUSED.message });
    expect(asked).to.deep.equal(['call', 'retry']);
  });

  it('a fallback stops before a budget: routing leaves by error without calling, and the run fails with brand_retry_limit', () => {
    const { gate, verdicts } = scriptedGate();
    const run = driver(retryGraph(), gate);
    const first = run.feed({ kind: 'start' });
    expect(first.action).to.include({ kind: 'call_acquirer', accountId: 'ca_1' });
    verdicts.call = REFUSED;
    const end = run.answer(first.action, 'technical_failure');
    expect(end.action.kind).to.equal('end');
    expect(end.run.outcome).to.include({ result: 'failed', reason: 'brand_retry_limit', message: REFUSED.message });
    const routeStep = end.run.steps.find((s) => s.nodeId === 'a')!;
    expect(routeStep).to.include({ exit: 'error', note: REFUSED.message });
    expect(routeStep.calls!.map((c) => c.accountId)).to.deep.equal(['ca_1']);
  });

  it('a first call the budget forbids is never made', () => {
    const { gate, verdicts } = scriptedGate();
    verdicts.call = REFUSED;
    const run = driver(retryGraph(), gate);
    const end = run.feed({ kind: 'start' });
    expect(end.action.kind).to.equal('end');
    expect(end.run.outcome).to.include({ result: 'failed', reason: 'brand_retry_limit' });
  });
});
