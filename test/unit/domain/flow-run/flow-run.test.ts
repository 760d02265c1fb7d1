import { expect } from 'chai';
import { endWaitingRun, newFlowRun, type FlowRunState } from '../../../../domain/flow-run/flow-run';

const waiting: FlowRunState = {
  ...newFlowRun(null),
  status: 'waiting',
  cursor: 'charge',
  waitingFor: { kind: 'bank_notice', nodeId: 'charge', accountId: 'ca_1', attemptId: 'att_1', since: '2026-11-26T10:00:00.000Z', expiresAt: '2026-11-26T11:00:00.000Z' },
};

describe('endWaitingRun (a waiting run ended from outside the graph, as a void)', () => {
  it('ends a waiting run canceled at the node it waited at, waiting for nothing, with no step added', () => {
    const ended = endWaitingRun(waiting, { reason: 'voided', message: 'Voided.' });
    expect(ended).to.deep.include({ status: 'ended', waitingFor: null, cursor: null, route: null, steps: [] });
    expect(ended.outcome).to.deep.equal({ result: 'canceled', reason: 'voided', message: 'Voided.', nodeId: 'charge' });
  });

  it('leaves a run that is not waiting as it is (an ended one keeps its outcome)', () => {
    const ended: FlowRunState = { ...newFlowRun(null), status: 'ended', outcome: { result: 'approved', reason: 'approved', message: 'ok', nodeId: 'approve' } };
    expect(endWaitingRun(ended, { reason: 'voided', message: 'Voided.' })).to.equal(ended);
    const running = newFlowRun(null);
    expect(endWaitingRun(running, { reason: 'voided', message: 'Voided.' })).to.equal(running);
  });
});
