import { expect } from 'chai';
import type { AcquirerDecision, CallFailureNote } from '../../../../application/payments/authorization-run';
import { runContext } from '../../../../application/payments/authorization-run';
import { settleRunOutcome } from '../../../../application/payments/run-outcome';
import { directRoutingGraph } from '../../../../domain/flow-run/direct-graph';
import { newFlowRun } from '../../../../domain/flow-run/flow-run';
import { stepFlowRun, type AcquirerCallOutcome, type FlowStepResult } from '../../../../domain/flow-run/flow-step';
import type { FlowGraph } from '../../../../domain/flow/flow-graph';
import type { Payment } from '../../../../domain/payment/payment';
import type { PaymentConnectorAccount } from '../../../../domain/ports/payment-connectors';
import { processingPayment, T0 } from '../../../support/builders/payment.builder';
import { account, approved } from '../../../support/payment-fakes';

const caA = account('ca_a', 100, { name: 'Main acquirer', config: { preAuthorizationExpiryAction: 'void' } });
const caB = account('ca_b', 200, { name: 'Backup' });
const analysis = { provider: 'clearsale', providerStatus: 'reject', score: 91, triggeredRules: ['velocity'] };
let ids = 0;
const options = (extra: { recovered?: boolean } = {}) => ({ now: T0, newAssessmentId: () => `afa_${++ids}`, ...extra });

/** A run of `graph` started on `payment` over `accounts`, then fed these acquirer outcomes in order. */
function runTo(payment: Payment, graph: FlowGraph, accounts: PaymentConnectorAccount[], outcomes: AcquirerCallOutcome[], tweak: { hasSplits?: boolean } = {}): FlowStepResult {
  const base = runContext(payment, graph, accounts, () => 0);
  let n = 0;
  const context = { ...base, payment: { ...base.payment, ...tweak }, now: T0, newAttemptId: () => `att_${++n}` };
  let step = stepFlowRun(context, newFlowRun(null), { kind: 'start' });
  for (const outcome of outcomes) {
    if (step.action.kind !== 'call_acquirer') throw new Error('the run is not calling an acquirer');
    step = stepFlowRun(context, step.run, { kind: 'acquirer_outcome', attemptId: step.action.attemptId, outcome });
  }
  return step;
}
const direct = (accounts: PaymentConnectorAccount[]) => directRoutingGraph({ methodType: 'card' }, accounts);
const eventTypes = (payment: Payment) => payment.pullEvents().map((e) => e.type);

describe('settleRunOutcome (what a driven run does to its payment)', () => {
  it('approved: the payment is approved on the deciding account with its references and the account expiry action', () => {
    const payment = processingPayment({ captureMethod: 'manual' });
    payment.pullEvents();
    const step = runTo(payment, direct([caA, caB]), [caA, caB], ['approved']);
    const decision: AcquirerDecision = { kind: 'approved', account: caA, output: approved() };
    settleRunOutcome(payment, { step, decision, lastFailure: null }, options());
    const p = payment.view();
    expect([p.status, p.connectorAccountId, p.expiryAction]).to.deep.equal(['authorized', 'ca_a', 'void']);
    expect(p.acquirer).to.deep.include({ nsu: '1', tid: 'T', authorizationCode: 'A', acquirerPaymentId: 'acq_1' });
    expect(p.flowRun?.outcome?.result).to.equal('approved');
    expect(eventTypes(payment)).to.deep.equal(['payment.authorized']);
  });

  it('declined: the payment fails with the issuer decline (its code), routing stopped as issuer_declined, no error of ours', () => {
    const payment = processingPayment();
    payment.pullEvents();
    const step = runTo(payment, direct([caA, caB]), [caA, caB], ['declined']);
    settleRunOutcome(payment, { step, decision: { kind: 'declined', account: caA, rawCode: '51' }, lastFailure: null }, options());
    const p = payment.view();
    expect([p.status, p.decline?.rawCode, p.connectorAccountId, p.routingStopReason, p.error]).to.deep.equal(['failed', '51', 'ca_a', 'issuer_declined', null]);
  });

  it("the acquirer's own antifraud analysis is registered before the outcome it came with", () => {
    const payment = processingPayment();
    payment.pullEvents();
    const step = runTo(payment, direct([caA]), [caA], ['declined']);
    settleRunOutcome(payment, { step, decision: { kind: 'declined', account: caA, rawCode: '59', fraudAnalysis: analysis }, lastFailure: null }, options());
    const types = eventTypes(payment);
    expect(types[0]).to.equal('antifraud.assessment_completed');
    expect(types.slice(1)).to.include('payment.failed');
    expect(payment.view().antifraud[0]).to.deep.include({ origin: 'acquirer', provider: 'clearsale', connectorAccountId: 'ca_a' });
  });

  it('every account failed: failed with connector_unavailable naming the last error and its account', () => {
    const payment = processingPayment();
    const step = runTo(payment, direct([caA, caB]), [caA, caB], ['technical_failure', 'technical_failure']);
    const lastFailure: CallFailureNote = { account: { id: 'ca_b', name: 'Backup' }, message: 'connection refused' };
    settleRunOutcome(payment, { step, decision: null, lastFailure }, options());
    const p = payment.view();
    expect([p.status, p.routingStopReason]).to.deep.equal(['failed', 'all_accounts_failed']);
    expect(p.error).to.deep.equal({
      code: 'connector_unavailable',
      message: 'No connector account could process the payment; last error: connection refused',
      stage: 'authorization',
      connectorAccount: { id: 'ca_b', name: 'Backup' },
    });
  });

  it('finished by recovery, the connector_unavailable message says it was recovered after an interruption', () => {
    const payment = processingPayment();
    const step = runTo(payment, direct([caA]), [caA], ['technical_failure']);
    settleRunOutcome(payment, { step, decision: null, lastFailure: null }, options({ recovered: true }));
    expect(payment.view().error).to.deep.include({ code: 'connector_unavailable', message: 'No connector account could process the payment (recovered after an interruption).', connectorAccount: null });
  });

  it('a demand for authentication ends failed with authentication_required on the account that asked', () => {
    const payment = processingPayment();
    const step = runTo(payment, direct([caA, caB]), [caA, caB], ['authentication_required']);
    settleRunOutcome(payment, { step, decision: { kind: 'authentication_required', account: caA }, lastFailure: null }, options());
    const p = payment.view();
    expect([p.status, p.routingStopReason, p.error?.code, p.error?.stage, p.error?.connectorAccount]).to.deep.equal(['failed', 'authentication_required', 'authentication_required', 'authorization', { id: 'ca_a', name: 'Main acquirer' }]);
  });

  it('no account can take the payment: failed at the routing stage with no_connector_available', () => {
    const payment = processingPayment();
    const step = runTo(payment, direct([]), [], []);
    settleRunOutcome(payment, { step, decision: null, lastFailure: null }, options());
    const p = payment.view();
    expect([p.status, p.error?.code, p.error?.stage, p.error?.connectorAccount]).to.deep.equal(['failed', 'no_connector_available', 'routing', null]);
    expect(p.routingStopReason).to.equal(step.action.kind === 'end' ? step.action.outcome.reason : null);
  });

  it('a split payment no account can split: failed with split_not_supported', () => {
    const payment = processingPayment();
    const step = runTo(payment, direct([caA]), [caA], [], { hasSplits: true });
    settleRunOutcome(payment, { step, decision: null, lastFailure: null }, options());
    expect([payment.view().error?.code, payment.view().routingStopReason]).to.deep.equal(['split_not_supported', 'split_not_supported']);
  });

  it('a flow that declines the payment itself: failed with declined_by_flow', () => {
    const at = { x: 0, y: 0 };
    const declining: FlowGraph = {
      nodes: [{ id: 't', type: 'trigger', position: at, data: {} }, { id: 'no', type: 'decline', position: at, data: {} }],
      edges: [{ id: 'e1', source: 't', target: 'no', sourcePort: 'next' }],
    };
    const payment = processingPayment();
    const step = runTo(payment, declining, [caA], []);
    settleRunOutcome(payment, { step, decision: null, lastFailure: null }, options());
    expect([payment.view().status, payment.view().error?.code, payment.view().routingStopReason]).to.deep.equal(['failed', 'declined_by_flow', 'declined_by_flow']);
  });

  it('a run that still waits leaves the payment processing, with the run as it now stands', () => {
    const payment = processingPayment();
    payment.pullEvents();
    const step = runTo(payment, direct([caA, caB]), [caA, caB], ['technical_failure']);
    expect(step.action.kind).to.equal('call_acquirer');
    settleRunOutcome(payment, { step, decision: null, lastFailure: null }, options());
    expect(payment.view().status).to.equal('processing');
    expect(payment.view().flowRun?.tried).to.deep.equal(['ca_a', 'ca_b']);
    expect(eventTypes(payment)).to.deep.equal([]);
  });
});
