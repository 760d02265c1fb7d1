import { expect } from 'chai';
import type { FlowGraph } from '../../../../domain/flow/flow-graph';
import type { RoutableAccount, RoutingPaymentProjection } from '../../../../domain/payment/routing/direct-routing';
import { newFlowRun, type FlowRunState } from '../../../../domain/flow-run/flow-run';
import { stepFlowRun, type FlowRunInput, type FlowStepResult } from '../../../../domain/flow-run/flow-step';
import type { NodeCallResult } from '../../../../domain/flow-run/flow-node-calls';
import { account, cardPayment, e, facts, graph, n } from '../flow/fixtures';

const T0 = new Date('2026-11-26T10:00:00.000Z');
const ACCOUNTS: RoutableAccount[] = [account('ca_1', { capabilities: ['card', 'zero_auth'] }), account('ca_2', { capabilities: ['card'] })];

function driver(g: FlowGraph, payment: Partial<RoutingPaymentProjection> = {}, accounts = ACCOUNTS) {
  let state: FlowRunState = newFlowRun(null);
  let attempt = 0;
  return (input: FlowRunInput): FlowStepResult => {
    const step = stepFlowRun(
      { graph: g, payment: { ...cardPayment, ...payment }, facts: facts(), accounts, random: () => 0, newAttemptId: () => `att_${++attempt}`, now: T0 },
      state,
      input,
    );
    state = step.run;
    return step;
  };
}

const analysis = (recommendation: 'approve' | 'review' | 'decline' | 'error'): NodeCallResult => ({
  call: 'antifraud',
  analysis: { assessmentId: 'afa_1', connectorAccountId: 'af_1', provider: 'sandbox-antifraud', recommendation, score: 12, triggeredRules: [] },
});

/** trigger -> antifraud: approve -> acquirer -> approve; review/decline/error -> decline (each exit its own node). */
const screened = () =>
  graph(
    [n('t', 'trigger'), n('af', 'antifraud', { connectorAccountId: 'af_1' }), n('a', 'acquirer', { connectorAccountId: 'ca_1' }), n('ok', 'approve'), n('rev', 'review'), n('no', 'decline'), n('err', 'decline')],
    [e('t', 'af'), e('af', 'a', 'approve'), e('af', 'rev', 'review'), e('af', 'no', 'decline'), e('af', 'err', 'error'), e('a', 'ok', 'approved'), e('a', 'no', 'declined'), e('rev', 'a', 'approved'), e('rev', 'no', 'declined')],
  );

describe('flow run: antifraud, zero_auth and capture nodes', () => {
  describe('antifraud', () => {
    it('asks the node account (call_node) and waits for its answer, no attempt id spent', () => {
      const step = driver(screened())({ kind: 'start' });
      expect(step.action).to.deep.equal({ kind: 'call_node', nodeId: 'af', call: 'antifraud', accountId: 'af_1' });
      expect(step.run.waitingFor).to.include({ kind: 'node_call', nodeId: 'af', call: 'antifraud', accountId: 'af_1' });
    });

    const exits: Array<[ 'approve' | 'review' | 'decline' | 'error', string ]> = [['approve', 'call_acquirer'], ['review', 'wait'], ['decline', 'end'], ['error', 'end']];
    for (const [recommendation, action] of exits) {
      it(`leaves by ${recommendation}, with the analysis on its step`, () => {
        const feed = driver(screened());
        feed({ kind: 'start' });
        const step = feed({ kind: 'node_call_outcome', result: analysis(recommendation) });
        expect(step.action.kind).to.equal(action);
        expect(step.run.steps.find((s) => s.nodeId === 'af')).to.deep.include({ type: 'antifraud', exit: recommendation, antifraud: analysis(recommendation).call === 'antifraud' ? (analysis(recommendation) as any).analysis : null });
      });
    }

    it('a decline verdict ends the run declined_by_flow at the decline node', () => {
      const feed = driver(screened());
      feed({ kind: 'start' });
      const step = feed({ kind: 'node_call_outcome', result: analysis('decline') });
      expect(step.action).to.deep.include({ kind: 'end' });
      expect((step.action as any).outcome).to.include({ result: 'failed', reason: 'declined_by_flow', nodeId: 'no' });
    });

    it('refuses a zero_auth answer while waiting for an antifraud one', () => {
      const feed = driver(screened());
      feed({ kind: 'start' });
      expect(() => feed({ kind: 'node_call_outcome', result: { call: 'zero_auth', verification: { status: 'valid', connectorAccountId: 'ca_1', rawCode: '00' } } })).to.throw(/waits for node_call/);
    });
  });

  describe('zero_auth', () => {
    const verifying = (accountId: string) =>
      graph(
        [n('t', 'trigger'), n('z', 'zero_auth', { connectorAccountId: accountId }), n('a', 'acquirer', { connectorAccountId: 'ca_1' }), n('ok', 'approve'), n('no', 'decline'), n('later', 'review')],
        [e('t', 'z'), e('z', 'a', 'valid'), e('z', 'no', 'invalid'), e('z', 'later', 'unavailable'), e('a', 'ok', 'approved'), e('a', 'no', 'declined'), e('later', 'a', 'approved'), e('later', 'no', 'declined')],
      );

    it('verifies the card at an account with zero_auth and leaves by the verdict', () => {
      for (const status of ['valid', 'invalid', 'unavailable'] as const) {
        const feed = driver(verifying('ca_1'));
        expect(feed({ kind: 'start' }).action).to.deep.equal({ kind: 'call_node', nodeId: 'z', call: 'zero_auth', accountId: 'ca_1' });
        const step = feed({ kind: 'node_call_outcome', result: { call: 'zero_auth', verification: { status, connectorAccountId: 'ca_1', rawCode: null } } });
        expect(step.run.steps.find((s) => s.nodeId === 'z')).to.deep.include({ exit: status, verification: { status, connectorAccountId: 'ca_1', rawCode: null } });
      }
    });

    it('leaves by unavailable at once when the account cannot verify cards, or the payment has no card', () => {
      for (const [accountId, payment] of [['ca_2', {}], ['ca_404', {}], ['ca_1', { methodType: 'pix' }]] as const) {
        const step = driver(verifying(accountId), payment as Partial<RoutingPaymentProjection>)({ kind: 'start' });
        expect(step.action.kind, accountId).to.equal('wait');
        expect(step.run.steps.find((s) => s.nodeId === 'z')).to.deep.include({ exit: 'unavailable', verification: { status: 'unavailable', connectorAccountId: accountId, rawCode: null } });
      }
    });
  });

  describe('capture', () => {
    it('approved -> capture -> approve: the run is approved with the capture step after the authorization', () => {
      const g = graph(
        [n('t', 'trigger'), n('a', 'acquirer', { connectorAccountId: 'ca_1' }), n('cap', 'capture'), n('ok', 'approve'), n('no', 'decline')],
        [e('t', 'a'), e('a', 'cap', 'approved'), e('a', 'no', 'declined'), e('cap', 'ok')],
      );
      const feed = driver(g);
      const call = feed({ kind: 'start' });
      const step = feed({ kind: 'acquirer_outcome', attemptId: (call.action as any).attemptId, outcome: 'approved' });
      expect((step.action as any).outcome).to.include({ result: 'approved' });
      expect(step.run.steps.map((s) => [s.nodeId, s.exit])).to.deep.equal([['t', 'next'], ['a', 'approved'], ['cap', 'next'], ['ok', null]]);
    });

    it('a capture reached without an authorization (a stored graph publishing would refuse) ends the run flow_incomplete', () => {
      const g = graph([n('t', 'trigger'), n('cap', 'capture'), n('ok', 'approve')], [e('t', 'cap'), e('cap', 'ok')]);
      const step = driver(g)({ kind: 'start' });
      expect((step.action as any).outcome).to.include({ result: 'failed', reason: 'flow_incomplete', nodeId: 'cap' });
    });
  });
});
