import { expect } from 'chai';
import type { FlowGraph, FlowNode } from '../../../../domain/flow/flow-graph';
import type { FlowPaymentFacts } from '../../../../domain/flow/flow-rules';
import type { RoutableAccount, RoutingPaymentProjection } from '../../../../domain/payment/routing/direct-routing';
import { directRouting } from '../../../../domain/payment/routing/direct-routing';
import { FLOW_RUN_TRANSITIONS, newFlowRun, nextRunStatus, type FlowRunState, type FlowRunStatus, type FlowRunTrigger } from '../../../../domain/flow-run/flow-run';
import { stepFlowRun, type AcquirerCallOutcome, type FlowAction, type FlowRunInput, type FlowStepResult } from '../../../../domain/flow-run/flow-step';
import { directRoutingGraph } from '../../../../domain/flow-run/direct-graph';
import { DomainError } from '../../../../domain/shared/domain-error';
import { account, cardPayment, e, facts, graph, minimalGraph, n } from '../flow/fixtures';

const ACCOUNTS: RoutableAccount[] = [
  account('ca_1', { costBasisPoints: 300, capabilities: ['card', 'pix', 'debit_card', 'three_ds'] }),
  account('ca_2', { costBasisPoints: 100 }),
  account('ca_3', { costBasisPoints: 200, capabilities: ['card', 'split'] }),
];

const T0 = new Date('2026-11-26T10:00:00.000Z');

interface Options {
  facts?: Partial<FlowPaymentFacts>;
  payment?: Partial<RoutingPaymentProjection>;
  accounts?: RoutableAccount[];
  now?: Date;
  threeDsTimeoutSeconds?: number;
}

/** Drives one run: each call feeds an input with a context built from the same options. */
function driver(g: FlowGraph, options: Options = {}) {
  let attempt = 0;
  let state: FlowRunState = newFlowRun(null);
  const context = (now: Date) => ({
    graph: g,
    payment: { ...cardPayment, ...options.payment },
    facts: facts(options.facts),
    accounts: options.accounts ?? ACCOUNTS,
    random: () => 0,
    newAttemptId: () => `att_${++attempt}`,
    now,
    threeDsTimeoutSeconds: options.threeDsTimeoutSeconds ?? null,
  });
  return {
    feed(input: FlowRunInput, now = options.now ?? T0): FlowStepResult {
      const result = stepFlowRun(context(now), state, input);
      state = result.run;
      return result;
    },
    /** Answers the pending acquirer call with `outcome`. */
    answer(action: FlowAction, outcome: AcquirerCallOutcome, now?: Date): FlowStepResult {
      expect(action.kind).to.equal('call_acquirer');
      return this.feed({ kind: 'acquirer_outcome', attemptId: (action as Extract<FlowAction, { kind: 'call_acquirer' }>).attemptId, outcome }, now);
    },
    get run(): FlowRunState {
      return state;
    },
  };
}

const calls = (action: FlowAction) => (action.kind === 'call_acquirer' ? action.accountId : null);
const ended = (action: FlowAction) => {
  expect(action.kind, JSON.stringify(action)).to.equal('end');
  return (action as Extract<FlowAction, { kind: 'end' }>).outcome;
};
/** nodeId:exit for each step, with each acquirer call of the node as @account=result. */
const trail = (run: FlowRunState) => run.steps.map((s) => `${s.nodeId}:${s.exit ?? '-'}${(s.calls ?? []).map((c) => `@${c.accountId}=${c.result}`).join('')}`);
const acq = (id: string, accountId: string): FlowNode => n(id, 'acquirer', { connectorAccountId: accountId });

describe('flow run: the step function', () => {
  describe('the lifecycle table', () => {
    it('allows exactly the listed (state, trigger) pairs', () => {
      const states: FlowRunStatus[] = ['running', 'waiting', 'ended'];
      const triggers: FlowRunTrigger[] = ['wait', 'resume', 'end'];
      for (const status of states) {
        for (const trigger of triggers) {
          const expected = (FLOW_RUN_TRANSITIONS[status] as Partial<Record<FlowRunTrigger, FlowRunStatus>>)[trigger];
          if (expected) expect(nextRunStatus({ status }, trigger)).to.equal(expected);
          else expect(() => nextRunStatus({ status }, trigger), `${status} + ${trigger}`).to.throw(DomainError);
        }
      }
    });
  });

  describe('acquirer nodes', () => {
    it('calls the account, saves the attempt it waits for, and leaves by approved to approve', () => {
      const d = driver(minimalGraph('ca_1'));
      const first = d.feed({ kind: 'start' });
      expect(first.action).to.deep.equal({ kind: 'call_acquirer', nodeId: 'a', accountId: 'ca_1', attemptId: 'att_1' });
      expect(first.run.status).to.equal('waiting');
      expect(first.run.waitingFor).to.include({ kind: 'acquirer_outcome', accountId: 'ca_1', attemptId: 'att_1' });
      const last = d.answer(first.action, 'approved');
      expect(ended(last.action)).to.include({ result: 'approved', reason: 'approved', nodeId: 'ok' });
      expect(last.run.authorization).to.deep.equal({ accountId: 'ca_1', attemptId: 'att_1' });
      expect(trail(last.run)).to.deep.equal(['t:next', 'a:approved@ca_1=approved', 'ok:-']);
      expect(last.run.status).to.equal('ended');
    });

    it('leaves by declined on an issuer decline and ends declined (no fallback)', () => {
      const d = driver(graph([n('t', 'trigger'), n('r', 'route', { connectorAccountIds: ['ca_1', 'ca_2'] }), n('ok', 'approve'), n('no', 'decline')], [e('t', 'r'), e('r', 'ok', 'approved'), e('r', 'no', 'declined')]));
      const last = d.answer(d.feed({ kind: 'start' }).action, 'declined');
      expect(ended(last.action)).to.include({ result: 'declined', reason: 'issuer_declined' });
      expect(last.run.tried).to.deep.equal(['ca_1']);
    });

    it('falls back within a route node on a technical failure, then out by its error port to the next node', () => {
      const g = graph(
        [n('t', 'trigger'), n('r', 'route', { connectorAccountIds: ['ca_1', 'ca_2'] }), acq('b', 'ca_3'), n('ok', 'approve'), n('no', 'decline')],
        [e('t', 'r'), e('r', 'ok', 'approved'), e('r', 'no', 'declined'), e('r', 'b', 'error'), e('b', 'ok', 'approved'), e('b', 'no', 'declined')],
      );
      const d = driver(g);
      let step = d.feed({ kind: 'start' });
      expect(calls(step.action)).to.equal('ca_1');
      step = d.answer(step.action, 'technical_failure');
      expect(calls(step.action)).to.equal('ca_2');
      step = d.answer(step.action, 'technical_failure');
      expect(calls(step.action)).to.equal('ca_3');
      step = d.answer(step.action, 'approved');
      expect(ended(step.action).result).to.equal('approved');
      expect(trail(step.run)).to.deep.equal(['t:next', 'r:error@ca_1=technical_failure@ca_2=technical_failure', 'b:approved@ca_3=approved', 'ok:-']);
      const route = step.run.steps[1]!;
      expect(route.calls!.map((c) => c.attemptId)).to.deep.equal(['att_1', 'att_2']);
    });

    it('does not call an account again at a later node', () => {
      const g = graph(
        [n('t', 'trigger'), acq('a', 'ca_1'), n('r', 'route', { connectorAccountIds: ['ca_1', 'ca_2'] }), n('ok', 'approve'), n('no', 'decline')],
        [e('t', 'a'), e('a', 'ok', 'approved'), e('a', 'no', 'declined'), e('a', 'r', 'error'), e('r', 'ok', 'approved'), e('r', 'no', 'declined')],
      );
      const d = driver(g);
      const second = d.answer(d.feed({ kind: 'start' }).action, 'technical_failure');
      expect(calls(second.action)).to.equal('ca_2');
    });

    it('ends all_accounts_failed when every account failed and the error port ends routing', () => {
      const d = driver(minimalGraph('ca_1'));
      const last = d.answer(d.feed({ kind: 'start' }).action, 'technical_failure');
      expect(ended(last.action)).to.include({ result: 'failed', reason: 'all_accounts_failed' });
    });

    it('ends failed authentication_required when the issuer asks for 3DS', () => {
      const d = driver(minimalGraph('ca_1'));
      expect(ended(d.answer(d.feed({ kind: 'start' }).action, 'authentication_required').action).reason).to.equal('authentication_required');
    });

    it('orders a route node by lowest cost and by weight', () => {
      const cheap = driver(graph([n('t', 'trigger'), n('r', 'route', { strategy: 'lowest_cost', connectorAccountIds: ['ca_1', 'ca_3', 'ca_2'] }), n('ok', 'approve')], [e('t', 'r'), e('r', 'ok', 'approved')]));
      expect(cheap.feed({ kind: 'start' }).run.route?.candidates).to.deep.equal(['ca_2', 'ca_3', 'ca_1']);
      const weighted = driver(graph([n('t', 'trigger'), n('r', 'route', { strategy: 'weighted', connectorAccountIds: ['ca_1', 'ca_2'], weights: [0, 1] }), n('ok', 'approve')], [e('t', 'r'), e('r', 'ok', 'approved')]));
      expect(calls(weighted.feed({ kind: 'start' }).action)).to.equal('ca_2');
    });

    it('names why no account could be called: pinned elsewhere, none enabled, no split capability', () => {
      const pinned = driver(minimalGraph('ca_1'), { payment: { pinnedConnectorAccountId: 'ca_2' } });
      expect(ended(pinned.feed({ kind: 'start' }).action).reason).to.equal('pinned_account_unavailable');
      const disabled = driver(minimalGraph('ca_1'), { accounts: [account('ca_1', { enabled: false })] });
      expect(ended(disabled.feed({ kind: 'start' }).action).reason).to.equal('no_account_available');
      const split = driver(minimalGraph('ca_1'), { payment: { hasSplits: true } });
      expect(ended(split.feed({ kind: 'start' }).action).reason).to.equal('split_not_supported');
      const splitOk = driver(minimalGraph('ca_3'), { payment: { hasSplits: true } });
      expect(calls(splitOk.feed({ kind: 'start' }).action)).to.equal('ca_3');
    });

    it('refuses an answer for another attempt than the one it waits for', () => {
      const d = driver(minimalGraph());
      d.feed({ kind: 'start' });
      expect(() => d.feed({ kind: 'acquirer_outcome', attemptId: 'att_other', outcome: 'approved' })).to.throw(DomainError, /waits for attempt att_1/);
    });
  });

  describe('conditions, switches and variables', () => {
    // t -> v (set tier=big) -> c (amount >= 50000): true -> a1, false -> s (switch on variables.tier: big -> a2; default -> decline)
    const g = graph(
      [
        n('t', 'trigger'),
        n('v', 'set_variable', { name: 'tier', value: 'big' }),
        n('c', 'condition', { field: 'amount', operator: 'gte', value: 50_000 }),
        n('s', 'switch', { field: 'variables.tier', cases: [{ value: 'small' }, { value: 'big' }] }),
        acq('a1', 'ca_1'),
        acq('a2', 'ca_2'),
        n('ok', 'approve'),
        n('no', 'decline'),
      ],
      [
        e('t', 'v'), e('v', 'c'), e('c', 'a1', 'true'), e('c', 's', 'false'), e('s', 'no', 'case_1'), e('s', 'a2', 'case_2'), e('s', 'no', 'default'),
        e('a1', 'ok', 'approved'), e('a1', 'no', 'declined'), e('a2', 'ok', 'approved'), e('a2', 'no', 'declined'),
      ],
    );

    it('a true condition leads to its true port', () => {
      const step = driver(g, { facts: { amount: 90_000 } }).feed({ kind: 'start' });
      expect(calls(step.action)).to.equal('ca_1');
      expect(trail(step.run)).to.deep.equal(['t:next', 'v:next', 'c:true']);
    });

    it('a false condition leads on, and a switch reads a variable set earlier on the path', () => {
      const step = driver(g, { facts: { amount: 100 } }).feed({ kind: 'start' });
      expect(calls(step.action)).to.equal('ca_2');
      expect(trail(step.run)).to.deep.equal(['t:next', 'v:next', 'c:false', 's:case_2']);
      expect(step.run.variables).to.deep.equal({ tier: 'big' });
    });

    it('a decline reached by the rules ends declined_by_flow without calling anyone', () => {
      const rules = graph([n('t', 'trigger'), n('c', 'condition', { field: 'amount', operator: 'gt', value: 1 }), n('no', 'decline'), acq('a', 'ca_1')], [e('t', 'c'), e('c', 'no', 'true'), e('c', 'a', 'false')]);
      const step = driver(rules).feed({ kind: 'start' });
      expect(ended(step.action)).to.include({ result: 'failed', reason: 'declined_by_flow', nodeId: 'no' });
      expect(step.run.tried).to.deep.equal([]);
    });

    it('an unwired port ends the run flow_incomplete, and an approve without authorization does not approve', () => {
      const open = graph([n('t', 'trigger'), n('c', 'condition', { field: 'amount', operator: 'gt', value: 1 })], [e('t', 'c')]);
      expect(ended(driver(open).feed({ kind: 'start' }).action).reason).to.equal('flow_incomplete');
      const free = graph([n('t', 'trigger'), n('ok', 'approve')], [e('t', 'ok')]);
      expect(ended(driver(free).feed({ kind: 'start' }).action)).to.include({ result: 'failed', reason: 'flow_incomplete' });
    });

    it('a node type the step function does not know (a stored graph of a later version) ends the run node_not_supported', () => {
      // Every type of FLOW_NODE_TYPES runs since the split node; only a type unknown to this version is left.
      const g2 = graph([n('t', 'trigger'), n('x', 'teleport' as FlowNode['type'])], [e('t', 'x')]);
      expect(ended(driver(g2).feed({ kind: 'start' }).action).reason).to.equal('node_not_supported');
    });
  });

  describe('resuming from each kind of wait', () => {
    const later = new Date(T0.getTime() + 90_000);

    it('three_ds: pauses with its deadline and resumes by the result port', () => {
      const g = graph(
        [n('t', 'trigger'), n('3ds', 'three_ds', { connectorAccountId: 'ca_1' }), acq('a', 'ca_1'), n('ok', 'approve'), n('no', 'decline')],
        [e('t', '3ds'), e('3ds', 'a', 'authenticated'), e('3ds', 'no', 'failed'), e('3ds', 'no', 'unavailable', 'x'), e('a', 'ok', 'approved'), e('a', 'no', 'declined')],
      );
      const d = driver(g, { threeDsTimeoutSeconds: 600 });
      const paused = d.feed({ kind: 'start' });
      expect(paused.action).to.deep.equal({ kind: 'wait', wait: { kind: 'three_ds_result', nodeId: '3ds', since: T0.toISOString(), expiresAt: '2026-11-26T10:10:00.000Z' } });
      const resumed = d.feed({ kind: 'three_ds_result', result: 'authenticated' }, later);
      expect(calls(resumed.action)).to.equal('ca_1');
      const step3ds = resumed.run.steps.find((s) => s.nodeId === '3ds')!;
      expect(step3ds).to.include({ exit: 'authenticated', startedAt: T0.toISOString(), endedAt: later.toISOString() });

      const failed = driver(g);
      failed.feed({ kind: 'start' });
      expect(ended(failed.feed({ kind: 'three_ds_result', result: 'failed' }).action).reason).to.equal('declined_by_flow');

      const expired = driver(g, { threeDsTimeoutSeconds: 60 });
      expired.feed({ kind: 'start' });
      expect(ended(expired.feed({ kind: 'expired' }, later).action)).to.include({ result: 'failed', reason: 'authentication_expired' });
    });

    it('three_ds at an account that cannot authenticate (no capability, disabled) leaves by unavailable without waiting', () => {
      const g = graph(
        [n('t', 'trigger'), n('3ds', 'three_ds', { connectorAccountId: 'ca_2' }), acq('a', 'ca_2'), n('ok', 'approve'), n('no', 'decline')],
        [e('t', '3ds'), e('3ds', 'no', 'authenticated'), e('3ds', 'no', 'failed', 'f'), e('3ds', 'a', 'unavailable'), e('a', 'ok', 'approved'), e('a', 'no', 'declined')],
      );
      const started = driver(g).feed({ kind: 'start' });
      expect(calls(started.action)).to.equal('ca_2');
      expect(started.run.steps.find((s) => s.nodeId === '3ds')).to.include({ exit: 'unavailable' });
    });

    it('debit_card: an acquirer is called only after an authenticated three_ds step (creation rule 5)', () => {
      const g = graph(
        [n('t', 'trigger'), n('3ds', 'three_ds', { connectorAccountId: 'ca_1' }), acq('a', 'ca_1'), n('ok', 'approve'), n('no', 'decline')],
        [e('t', '3ds'), e('3ds', 'a', 'authenticated'), e('3ds', 'no', 'failed'), e('3ds', 'a', 'unavailable', 'u'), e('a', 'ok', 'approved'), e('a', 'no', 'declined')],
      );
      const debit = { payment: { methodType: 'debit_card' as const } };
      const authenticated = driver(g, debit);
      authenticated.feed({ kind: 'start' });
      expect(calls(authenticated.feed({ kind: 'three_ds_result', result: 'authenticated' }).action)).to.equal('ca_1');

      const unavailable = driver(g, debit);
      unavailable.feed({ kind: 'start' });
      const refused = unavailable.feed({ kind: 'three_ds_result', result: 'unavailable' });
      expect(ended(refused.action)).to.include({ result: 'failed', reason: 'authentication_required' });
      expect(refused.run.steps.find((s) => s.nodeId === 'a')!.calls).to.deep.equal([]);

      // Without any three_ds node on the way, nothing is charged either.
      const direct = graph([n('t', 'trigger'), acq('a', 'ca_1'), n('ok', 'approve'), n('no', 'decline')], [e('t', 'a'), e('a', 'ok', 'approved'), e('a', 'no', 'declined')]);
      expect(ended(driver(direct, debit).feed({ kind: 'start' }).action)).to.include({ reason: 'authentication_required' });
    });

    it('review: pauses until a decision and follows its port', () => {
      const g = graph(
        [n('t', 'trigger'), n('rv', 'review'), acq('a', 'ca_1'), n('ok', 'approve'), n('no', 'decline')],
        [e('t', 'rv'), e('rv', 'a', 'approved'), e('rv', 'no', 'declined'), e('a', 'ok', 'approved'), e('a', 'no', 'declined')],
      );
      const approve = driver(g);
      expect(approve.feed({ kind: 'start' }).action).to.deep.include({ kind: 'wait' });
      expect(approve.run.waitingFor?.kind).to.equal('review_decision');
      expect(calls(approve.feed({ kind: 'review_decision', decision: 'approved' }).action)).to.equal('ca_1');
      const decline = driver(g);
      decline.feed({ kind: 'start' });
      expect(ended(decline.feed({ kind: 'review_decision', decision: 'declined' }).action).reason).to.equal('declined_by_flow');
      const noDeadline = driver(g);
      noDeadline.feed({ kind: 'start' });
      expect(() => noDeadline.feed({ kind: 'expired' })).to.throw(DomainError, /no deadline/);
    });

    it('timer: a delay node waits until due and then leaves by next', () => {
      const g = graph([n('t', 'trigger'), n('d', 'delay', { minutes: 30 }), acq('a', 'ca_1'), n('ok', 'approve')], [e('t', 'd'), e('d', 'a'), e('a', 'ok', 'approved')]);
      const d = driver(g);
      const paused = d.feed({ kind: 'start' });
      expect(paused.run.waitingFor).to.deep.equal({ kind: 'timer', nodeId: 'd', since: T0.toISOString(), dueAt: '2026-11-26T10:30:00.000Z' });
      expect(calls(d.feed({ kind: 'timer_fired' }, later).action)).to.equal('ca_1');
    });

    it('bank notice: a charge issued waits for the bank; paid approves, expired cancels', () => {
      const g = minimalGraph('ca_1');
      const paid = driver(g, { payment: { methodType: 'pix' } });
      const issued = paid.answer(paid.feed({ kind: 'start' }).action, 'pending_payment');
      expect(issued.run.waitingFor).to.include({ kind: 'bank_notice', accountId: 'ca_1', attemptId: 'att_1' });
      const done = paid.feed({ kind: 'bank_notice', status: 'paid' }, later);
      expect(ended(done.action)).to.include({ result: 'approved' });
      expect(done.run.authorization).to.deep.equal({ accountId: 'ca_1', attemptId: 'att_1' });

      const lapsed = driver(g, { payment: { methodType: 'pix' } });
      lapsed.answer(lapsed.feed({ kind: 'start' }).action, 'pending_payment');
      expect(ended(lapsed.feed({ kind: 'bank_notice', status: 'expired' }).action)).to.include({ result: 'canceled', reason: 'expired' });
      const timedOut = driver(g, { payment: { methodType: 'pix' } });
      timedOut.answer(timedOut.feed({ kind: 'start' }).action, 'pending_payment');
      expect(ended(timedOut.feed({ kind: 'expired' }).action).result).to.equal('canceled');
    });

    it('refuses an input the run does not wait for, a second start and anything after the end', () => {
      const d = driver(minimalGraph());
      d.feed({ kind: 'start' });
      expect(() => d.feed({ kind: 'review_decision', decision: 'approved' })).to.throw(DomainError, /waits for acquirer_outcome/);
      expect(() => d.feed({ kind: 'start' })).to.throw(DomainError, /already started/);
      d.feed({ kind: 'acquirer_outcome', attemptId: 'att_1', outcome: 'declined' });
      expect(() => d.feed({ kind: 'timer_fired' })).to.throw(DomainError, /has ended/);
    });

    it('resumes from the saved state alone (a restart between steps changes nothing)', () => {
      const g = graph([n('t', 'trigger'), n('rv', 'review'), acq('a', 'ca_1'), n('ok', 'approve'), n('no', 'decline')], [e('t', 'rv'), e('rv', 'a', 'approved'), e('rv', 'no', 'declined'), e('a', 'ok', 'approved'), e('a', 'no', 'declined')]);
      const d = driver(g);
      d.feed({ kind: 'start' });
      const saved = JSON.parse(JSON.stringify(d.run)) as FlowRunState;
      const resumed = stepFlowRun(
        { graph: g, payment: cardPayment, facts: facts(), accounts: ACCOUNTS, random: () => 0, newAttemptId: () => 'att_after_restart', now: T0 },
        saved,
        { kind: 'review_decision', decision: 'approved' },
      );
      expect(resumed.action).to.deep.equal({ kind: 'call_acquirer', nodeId: 'a', accountId: 'ca_1', attemptId: 'att_after_restart' });
    });
  });

  describe('direct routing as a built-in graph', () => {
    it('calls the accounts in the order direct routing ranks them, then ends failed when all failed', () => {
      const projection = { ...cardPayment };
      const ranked = directRouting(projection, ACCOUNTS);
      expect(ranked.ok).to.equal(true);
      const d = driver(directRoutingGraph(projection, ACCOUNTS));
      let step = d.feed({ kind: 'start' });
      const called: string[] = [];
      while (step.action.kind === 'call_acquirer') {
        called.push(step.action.accountId);
        step = d.answer(step.action, 'technical_failure');
      }
      expect(called).to.deep.equal(ranked.ok ? ranked.accounts.map((a) => a.id) : []);
      expect(ended(step.action).reason).to.equal('all_accounts_failed');
    });

    it('without any account for the method, ends no_account_available', () => {
      const step = driver(directRoutingGraph({ methodType: 'boleto' }, ACCOUNTS), { payment: { methodType: 'boleto' } }).feed({ kind: 'start' });
      expect(ended(step.action)).to.include({ result: 'failed', reason: 'no_account_available' });
    });
  });
});
