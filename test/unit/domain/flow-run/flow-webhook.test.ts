import { expect } from 'chai';
import { newFlowRun } from '../../../../domain/flow-run/flow-run';
import { stepFlowRun } from '../../../../domain/flow-run/flow-step';
import { publishProblems } from '../../../../domain/flow/publish-check';
import { account, cardPayment, e, facts, graph, n } from '../flow/fixtures';

const T0 = new Date('2026-11-26T10:00:00.000Z');

describe('the webhook node of the step function', () => {
  const g = graph(
    [n('t', 'trigger'), n('tell', 'webhook', { channel: 'ops' }), n('a', 'acquirer', { connectorAccountId: 'ca_1' }), n('ok', 'approve'), n('no', 'decline')],
    [e('t', 'tell'), e('tell', 'a'), e('a', 'ok', 'approved'), e('a', 'no', 'declined')],
  );

  it('records one step by next with the node data as its notification, and walks on to the acquirer', () => {
    const step = stepFlowRun({ graph: g, payment: cardPayment, facts: facts(), accounts: [account('ca_1')], random: () => 0, newAttemptId: () => 'att_1', now: T0 }, newFlowRun(null), { kind: 'start' });
    expect(step.action).to.deep.include({ kind: 'call_acquirer', accountId: 'ca_1' });
    const told = step.run.steps.filter((s) => s.nodeId === 'tell');
    expect(told).to.deep.equal([{ nodeId: 'tell', type: 'webhook', exit: 'next', startedAt: T0.toISOString(), endedAt: T0.toISOString(), notification: { channel: 'ops' } }]);
  });

  it('is publishable with next wired; unwired or with data over 4096 characters it is refused', () => {
    const accounts = new Map([['ca_1', { kind: 'acquirer' as const }]]);
    expect(publishProblems(g, 'payment.authorization_requested', accounts)).to.deep.equal([]);
    const loose = graph([n('t', 'trigger'), n('tell', 'webhook', { text: 'x'.repeat(4_100) })], [e('t', 'tell')]);
    const messages = publishProblems(loose, 'payment.authorization_requested', accounts).map((p) => p.message);
    expect(messages).to.include('Node tell: data is at most 4096 characters as JSON.');
    expect(messages.join(' ')).to.match(/Port next of node tell \(webhook\) leads nowhere/);
  });
});
