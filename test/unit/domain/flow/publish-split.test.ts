import { expect } from 'chai';
import type { FlowGraph, FlowNode } from '../../../../domain/flow/flow-graph';
import { RUNNABLE_NODE_TYPES, publishProblems, splitRecipientIdsOf, type AccountFacts } from '../../../../domain/flow/publish-check';
import { e, graph, n } from './fixtures';

const ACCOUNTS = new Map<string, AccountFacts>([
  ['ca_1', { kind: 'acquirer' }],
  ['ca_split', { kind: 'acquirer', capabilities: ['card', 'split'] }],
  ['ca_plain', { kind: 'acquirer', capabilities: ['card'] }],
]);
const RECIPIENTS = new Set(['rcp_seller', 'rcp_courier']);
const SELLER_90 = { splits: [{ recipientId: 'rcp_seller', type: 'percentage', value: 9_000 }] };

/** Node indices: t 0, split 1, a 2, ok 3, no 4. */
function splitFirst(data: Record<string, unknown> = SELLER_90, accountId = 'ca_1'): FlowGraph {
  return graph(
    [n('t', 'trigger'), n('split', 'split', data), n('a', 'acquirer', { connectorAccountId: accountId }), n('ok', 'approve'), n('no', 'decline')],
    [e('t', 'split'), e('split', 'a'), e('a', 'ok', 'approved'), e('a', 'no', 'declined')],
  );
}

const problemsOf = (g: FlowGraph, recipients: ReadonlySet<string> = RECIPIENTS) => publishProblems(g, 'payment.authorization_requested', ACCOUNTS, recipients).map((p) => `${p.param}: ${p.message}`);

describe('publishing a split node', () => {
  it('split is publishable', () => {
    expect(RUNNABLE_NODE_TYPES).to.include('split');
    expect(problemsOf(splitFirst())).to.deep.equal([]);
  });

  it('every recipient the graph names, once', () => {
    const data = { splits: [{ recipientId: 'rcp_seller', type: 'fixed', value: 100 }, { recipientId: 'rcp_courier', type: 'fixed', value: 50 }], remainderRecipientId: 'rcp_seller' };
    expect(splitRecipientIdsOf(splitFirst(data))).to.deep.equal(['rcp_seller', 'rcp_courier']);
  });

  const dataCases: Array<{ name: string; data: Record<string, unknown>; expected: RegExp[] }> = [
    { name: 'no splits', data: {}, expected: [/graph.nodes\[1\].data.splits: Node split: splits lists 1 to 20 shares/] },
    { name: 'an empty list', data: { splits: [] }, expected: [/data.splits: .*1 to 20 shares/] },
    { name: 'more than 20 shares', data: { splits: Array.from({ length: 21 }, (_, i) => ({ recipientId: `rcp_${i}`, type: 'fixed', value: 1 })) }, expected: [/1 to 20 shares/] },
    { name: 'a share that is not an object', data: { splits: ['rcp_seller'] }, expected: [/data.splits\[0\]: Node split: a share is an object/] },
    { name: 'a blank recipient', data: { splits: [{ recipientId: '', type: 'fixed', value: 1 }] }, expected: [/data.splits\[0\].recipientId: .*recipientId is a recipient id/] },
    { name: 'one recipient twice', data: { splits: [{ recipientId: 'rcp_seller', type: 'fixed', value: 1 }, { recipientId: 'rcp_seller', type: 'fixed', value: 2 }] }, expected: [/data.splits\[1\].recipientId: .*more than one share/] },
    { name: 'an unknown type', data: { splits: [{ recipientId: 'rcp_seller', type: 'ratio', value: 1 }] }, expected: [/data.splits\[0\].type: .*percentage or fixed/] },
    { name: 'a negative value', data: { splits: [{ recipientId: 'rcp_seller', type: 'fixed', value: -1 }] }, expected: [/data.splits\[0\].value: .*whole number >= 0/] },
    { name: 'a fractional value', data: { splits: [{ recipientId: 'rcp_seller', type: 'fixed', value: 1.5 }] }, expected: [/data.splits\[0\].value: .*whole number >= 0/] },
    { name: 'a percentage above 100 %', data: { splits: [{ recipientId: 'rcp_seller', type: 'percentage', value: 10_001 }] }, expected: [/data.splits\[0\].value: .*at most 10000/] },
    {
      name: 'percentages adding up to more than the whole payment',
      data: { splits: [{ recipientId: 'rcp_seller', type: 'percentage', value: 6_000 }, { recipientId: 'rcp_courier', type: 'percentage', value: 5_000 }] },
      expected: [/data.splits: .*add up to 11000 basis points/],
    },
    { name: 'a flag that is not a boolean', data: { splits: [{ recipientId: 'rcp_seller', type: 'fixed', value: 1, liableForChargeback: 'yes' }] }, expected: [/data.splits\[0\].liableForChargeback: .*true or false/] },
    { name: 'a field the request has not', data: { splits: [{ recipientId: 'rcp_seller', type: 'fixed', value: 1, amount: 1 }] }, expected: [/data.splits\[0\].amount: .*no field amount/] },
    { name: 'a remainder taker without a share', data: { ...SELLER_90, remainderRecipientId: 'rcp_courier' }, expected: [/data.remainderRecipientId: .*one of the shares/] },
    { name: 'a recipient that does not exist in the environment', data: { splits: [{ recipientId: 'rcp_gone', type: 'fixed', value: 1 }] }, expected: [/data.splits\[0\].recipientId: Node split names recipient rcp_gone, which does not exist in this environment/] },
  ];
  for (const c of dataCases) {
    it(`refuses ${c.name}`, () => {
      const problems = problemsOf(splitFirst(c.data));
      expect(problems, problems.join('\n')).to.have.length(c.expected.length);
      c.expected.forEach((pattern, i) => expect(problems[i]).to.match(pattern));
    });
  }

  it('without the environment\'s recipients (none looked up), every named recipient is refused', () => {
    expect(publishProblems(splitFirst(), 'payment.authorization_requested', ACCOUNTS).map((p) => `${p.param}: ${p.message}`)).to.deep.equal(['graph.nodes[1].data.splits[0].recipientId: Node split names recipient rcp_seller, which does not exist in this environment.']);
  });

  it('refuses a split node whose next port leads nowhere', () => {
    const g = splitFirst();
    g.edges = g.edges.filter((edge) => edge.source !== 'split');
    expect(problemsOf(g)).to.include('graph.nodes[1]: Port next of node split (split) leads nowhere; connect it.');
  });

  const late: Array<{ name: string; before: FlowNode; wire: (g: FlowGraph) => void }> = [
    { name: 'an acquirer\'s error port', before: n('first', 'acquirer', { connectorAccountId: 'ca_1' }), wire: (g) => g.edges.push(e('first', 'split', 'error'), e('first', 'ok', 'approved'), e('first', 'no', 'declined')) },
    { name: 'a review', before: n('first', 'review'), wire: (g) => g.edges.push(e('first', 'split', 'approved'), e('first', 'no', 'declined')) },
    { name: 'a delay', before: n('first', 'delay', { minutes: 5 }), wire: (g) => g.edges.push(e('first', 'split')) },
  ];
  for (const c of late) {
    it(`refuses a split node reached after ${c.name}: the authorization would go without it`, () => {
      const g = splitFirst();
      g.nodes.push(c.before);
      g.edges = g.edges.filter((edge) => edge.source !== 't');
      g.edges.push(e('t', 'first'));
      c.wire(g);
      expect(problemsOf(g)).to.deep.equal([
        'graph.nodes[1]: Split node split can be reached after an acquirer call or a wait (acquirer, route, three_ds, review, delay, retry, capture); place it before them, so the authorization carries the split.',
      ]);
    });
  }

  it('accepts a split node after conditions, variables and webhooks (all decided before the payment is saved)', () => {
    const g = splitFirst();
    g.nodes.push(n('c', 'condition', { field: 'amount', operator: 'gte', value: 1 }), n('v', 'set_variable', { name: 'x', value: 1 }), n('w', 'webhook', { text: 'split' }));
    g.edges = g.edges.filter((edge) => edge.source !== 't');
    g.edges.push(e('t', 'c'), e('c', 'v', 'true'), e('c', 'no', 'false'), e('v', 'w'), e('w', 'split'));
    expect(problemsOf(g)).to.deep.equal([]);
  });

  it('refuses an account after it known not to execute splits, and accepts one that does', () => {
    expect(problemsOf(splitFirst(SELLER_90, 'ca_plain'))).to.deep.equal(['graph.nodes[2].data.connectorAccountId: Node a follows a split node but names connector account ca_plain, which cannot execute splits.']);
    expect(problemsOf(splitFirst(SELLER_90, 'ca_split'))).to.deep.equal([]);
  });
});
