import { expect } from 'chai';
import { newFlowRun, type FlowRunState } from '../../../../domain/flow-run/flow-run';
import { reviewOf } from '../../../../domain/flow-run/flow-review';
import { stepFlowRun, type FlowRunInput } from '../../../../domain/flow-run/flow-step';
import { account, cardPayment, e, facts, graph, n } from '../flow/fixtures';

const T0 = new Date('2026-11-26T10:00:00.000Z');
const T1 = new Date('2026-11-26T10:05:00.000Z');

/** trigger -> review; approved -> acquirer -> approve / decline; declined -> decline. */
const g = graph(
  [n('t', 'trigger'), n('rv', 'review'), n('a', 'acquirer', { connectorAccountId: 'ca_1' }), n('ok', 'approve'), n('no', 'decline')],
  [e('t', 'rv'), e('rv', 'a', 'approved'), e('rv', 'no', 'declined'), e('a', 'ok', 'approved'), e('a', 'no', 'declined')],
);

const step = (run: FlowRunState, input: FlowRunInput, now: Date) =>
  stepFlowRun({ graph: g, payment: cardPayment, facts: facts(), accounts: [account('ca_1')], random: () => 0, newAttemptId: () => 'att_1', now }, run, input);

describe('a payment review (reviewOf) and the review node of the step function', () => {
  it('no run, or a run that never met a review node, has no review', () => {
    expect(reviewOf(null)).to.equal(null);
    expect(reviewOf(newFlowRun(null))).to.equal(null);
  });

  it('pending while the run waits at the review node, with the node and since when', () => {
    const held = step(newFlowRun(null), { kind: 'start' }, T0);
    expect(held.action).to.deep.include({ kind: 'wait' });
    expect(reviewOf(held.run)).to.deep.equal({ status: 'pending', nodeId: 'rv', since: T0.toISOString() });
  });

  it('approved: the step keeps the merchant note and the time it waited; the run goes on to the acquirer', () => {
    const held = step(newFlowRun(null), { kind: 'start' }, T0);
    const decided = step(held.run, { kind: 'review_decision', decision: 'approved', note: 'Called the buyer.' }, T1);
    expect(decided.action).to.deep.include({ kind: 'call_acquirer', accountId: 'ca_1' });
    expect(decided.run.steps[1]).to.deep.include({ nodeId: 'rv', exit: 'approved', startedAt: T0.toISOString(), endedAt: T1.toISOString(), note: 'Called the buyer.' });
    expect(reviewOf(decided.run)).to.deep.equal({ status: 'approved', nodeId: 'rv', since: T0.toISOString(), decidedAt: T1.toISOString(), note: 'Called the buyer.' });
  });

  it('declined without a note: the declined exit, note null', () => {
    const held = step(newFlowRun(null), { kind: 'start' }, T0);
    const decided = step(held.run, { kind: 'review_decision', decision: 'declined' }, T1);
    expect(decided.action.kind).to.equal('end');
    expect(reviewOf(decided.run)).to.include({ status: 'declined', note: null });
  });

  it('a second decision finds no review wait and is refused (invalid_state)', () => {
    const held = step(newFlowRun(null), { kind: 'start' }, T0);
    const decided = step(held.run, { kind: 'review_decision', decision: 'declined' }, T1);
    expect(() => step(decided.run, { kind: 'review_decision', decision: 'approved' }, T1)).to.throw(/ended/);
  });
});
