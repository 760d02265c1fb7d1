import { expect } from 'chai';
import type { FlowGraph, FlowNode } from '../../../../domain/flow/flow-graph';
import type { RoutableAccount, RoutingPaymentProjection } from '../../../../domain/payment/routing/direct-routing';
import { newFlowRun, type FlowRunState } from '../../../../domain/flow-run/flow-run';
import { EXECUTABLE_NODE_TYPES, stepFlowRun, type FlowAction, type FlowStepResult } from '../../../../domain/flow-run/flow-step';
import { account, cardPayment, e, facts, graph, n } from '../flow/fixtures';

const T0 = new Date('2026-11-26T10:00:00.000Z');
const CAN_SPLIT = account('ca_split', { costBasisPoints: 300, capabilities: ['card', 'split'] });
const CANNOT_SPLIT = account('ca_plain', { costBasisPoints: 100, capabilities: ['card'] });

const split = (data: Record<string, unknown>): FlowNode => n('split', 'split', data);
const SELLER_90 = { splits: [{ recipientId: 'rcp_seller', type: 'percentage', value: 9_000, liableForChargeback: true }] };

/** trigger -> split -> [condition on hasSplits ->] route over both accounts (cheapest first) -> approve / decline. */
function splitGraph(data: Record<string, unknown>, options: { condition?: boolean } = {}): FlowGraph {
  const route = n('route', 'route', { strategy: 'lowest_cost', connectorAccountIds: ['ca_plain', 'ca_split'] });
  const nodes = [n('t', 'trigger'), split(data), route, n('ok', 'approve'), n('no', 'decline')];
  const edges = [e('route', 'ok', 'approved'), e('route', 'no', 'declined')];
  if (options.condition) {
    nodes.push(n('has', 'condition', { field: 'hasSplits', operator: 'eq', value: true }));
    edges.push(e('t', 'split'), e('split', 'has'), e('has', 'route', 'true'), e('has', 'no', 'false'));
  } else {
    edges.push(e('t', 'split'), e('split', 'route'));
  }
  return graph(nodes, edges);
}

function start(g: FlowGraph, options: { payment?: Partial<RoutingPaymentProjection>; accounts?: RoutableAccount[]; recipientIds?: ReadonlySet<string> } = {}): FlowStepResult {
  const payment = { ...cardPayment, ...options.payment };
  return stepFlowRun(
    {
      graph: g,
      payment,
      facts: facts({ amount: payment.amount, hasSplits: payment.hasSplits }),
      accounts: options.accounts ?? [CAN_SPLIT, CANNOT_SPLIT],
      random: () => 0,
      newAttemptId: () => 'att_1',
      now: T0,
      ...(options.recipientIds ? { recipientIds: options.recipientIds } : {}),
    },
    newFlowRun(null),
    { kind: 'start' },
  );
}

const splitStep = (run: FlowRunState) => run.steps.find((s) => s.nodeId === 'split')!;
const called = (action: FlowAction) => (action.kind === 'call_acquirer' ? action.accountId : action.kind);

describe('flow run: the split node', () => {
  it('is a node type the step function runs', () => {
    expect(EXECUTABLE_NODE_TYPES).to.include('split');
  });

  it('gives a payment without splits the node\'s shares, then routes only to accounts that execute splits', () => {
    const { run, action } = start(splitGraph(SELLER_90), { recipientIds: new Set(['rcp_seller']) });
    expect(splitStep(run)).to.include({ exit: 'next', type: 'split' });
    expect(splitStep(run).split).to.deep.equal([
      {
        recipientId: 'rcp_seller', type: 'percentage', value: 9_000, amount: 9_000, liableForChargeback: true, chargeProcessingFee: false,
        commissionRateBps: 0, commissionFixedAmount: 0, netAmount: null, feeAmount: 0, capturedAmount: 0, refundedAmount: 0,
      },
    ]);
    // ca_plain is the cheaper account, but cannot execute the split: skipped.
    expect(called(action)).to.equal('ca_split');
    expect(run.route?.candidates).to.deep.equal(['ca_split']);
  });

  it('computes shares by the request\'s rules: percentages rounded down, the remainder taker gets the cents', () => {
    const data = {
      splits: [
        { recipientId: 'rcp_a', type: 'percentage', value: 3_333 },
        { recipientId: 'rcp_b', type: 'percentage', value: 3_333 },
        { recipientId: 'rcp_c', type: 'fixed', value: 300 },
      ],
      remainderRecipientId: 'rcp_b',
    };
    const { run } = start(splitGraph(data), { payment: { amount: 1_001 }, recipientIds: new Set(['rcp_a', 'rcp_b', 'rcp_c']) });
    // 1001 x 33.33 % = 333.63 each, rounded down to 333; the two percentages together are 667.26 -> 667: rcp_b takes 1 more.
    expect(splitStep(run).split!.map((s) => [s.recipientId, s.amount])).to.deep.equal([['rcp_a', 333], ['rcp_b', 334], ['rcp_c', 300]]);
  });

  it('keeps a payment\'s own splits: the node records why and gives none', () => {
    const { run, action } = start(splitGraph(SELLER_90), { payment: { hasSplits: true }, recipientIds: new Set(['rcp_seller']) });
    expect(splitStep(run).split).to.equal(undefined);
    expect(splitStep(run).note).to.match(/splits of its own; they are kept/);
    expect(called(action)).to.equal('ca_split');
  });

  it('a condition after it sees hasSplits true, as the saved payment will', () => {
    const { run } = start(splitGraph(SELLER_90, { condition: true }), { recipientIds: new Set(['rcp_seller']) });
    expect(run.steps.find((s) => s.nodeId === 'has')!.exit).to.equal('true');
  });

  it('with no account after it able to execute splits, the run fails split_not_supported before any call', () => {
    const { run, action } = start(splitGraph(SELLER_90), { accounts: [CANNOT_SPLIT], recipientIds: new Set(['rcp_seller']) });
    expect(action.kind).to.equal('end');
    expect(run.outcome).to.include({ result: 'failed', reason: 'split_not_supported' });
    expect(run.steps.flatMap((s) => s.calls ?? [])).to.deep.equal([]);
  });

  const refusals: Array<{ name: string; data: Record<string, unknown>; amount?: number; recipients: string[]; message: RegExp }> = [
    { name: 'a recipient deleted since publishing', data: SELLER_90, recipients: [], message: /recipient rcp_seller, which no longer exists/ },
    { name: 'fixed shares above this payment\'s amount', data: { splits: [{ recipientId: 'rcp_seller', type: 'fixed', value: 20_000 }] }, amount: 10_000, recipients: ['rcp_seller'], message: /add up to more than the payment amount/ },
  ];
  for (const c of refusals) {
    it(`${c.name}: the run ends failed split_invalid at the node, nothing called, no shares recorded`, () => {
      const { run, action } = start(splitGraph(c.data), { payment: { amount: c.amount ?? 10_000 }, recipientIds: new Set(c.recipients) });
      expect(action.kind).to.equal('end');
      expect(run.outcome).to.include({ result: 'failed', reason: 'split_invalid', nodeId: 'split' });
      expect(run.outcome!.message).to.match(c.message);
      expect(splitStep(run)).to.include({ exit: null });
      expect(splitStep(run).split).to.equal(undefined);
    });
  }
});
