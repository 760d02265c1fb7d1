import { expect } from 'chai';
import type { FlowGraph } from '../../../../domain/flow/flow-graph';
import { publishProblems, type AccountFacts } from '../../../../domain/flow/publish-check';
import { e, graph, n } from './fixtures';

/** Accounts whose adapters said what they can do, and one whose adapter could not be described (capabilities unknown). */
const ACCOUNTS = new Map<string, AccountFacts>([
  ['ca_full', { kind: 'acquirer', capabilities: ['card', 'three_ds', 'zero_auth', 'split'] }],
  ['ca_card', { kind: 'acquirer', capabilities: ['card'] }],
  ['ca_pix', { kind: 'acquirer', capabilities: ['pix'] }],
  ['ca_unknown', { kind: 'acquirer' }],
]);

const problemsOf = (g: FlowGraph) =>
  publishProblems(g, 'payment.authorization_requested', ACCOUNTS, new Set(['rcp_seller'])).map((p) => `${p.param}: ${p.message}`);

/** trigger -> the node on the account (node 1, id `x`) -> an acquirer on ca_full by its first port, its other ports to decline. */
function needing(type: 'three_ds' | 'zero_auth', accountId: string): FlowGraph {
  const [onward, ...others] = type === 'three_ds' ? ['authenticated', 'failed', 'unavailable'] : ['valid', 'invalid', 'unavailable'];
  return graph(
    [n('t', 'trigger'), n('x', type, { connectorAccountId: accountId }), n('a', 'acquirer', { connectorAccountId: 'ca_full' }), n('ok', 'approve'), n('no', 'decline')],
    [e('t', 'x'), e('x', 'a', onward), ...others.map((port) => e('x', 'no', port)), e('a', 'ok', 'approved'), e('a', 'no', 'declined')],
  );
}

/** Node indices: t 0, split 1, r 2, ok 3, no 4. */
function splitThenRoute(accountIds: string[]): FlowGraph {
  return graph(
    [
      n('t', 'trigger'),
      n('split', 'split', { splits: [{ recipientId: 'rcp_seller', type: 'percentage', value: 9_000 }] }),
      n('r', 'route', { strategy: 'priority', connectorAccountIds: accountIds }),
      n('ok', 'approve'),
      n('no', 'decline'),
    ],
    [e('t', 'split'), e('split', 'r'), e('r', 'ok', 'approved'), e('r', 'no', 'declined')],
  );
}

describe('publishing checks what each node needs of its accounts (their adapters\' capabilities)', () => {
  const nodeNeeds = [
    { type: 'three_ds', fault: 'cannot authenticate cardholders (three_ds)' },
    { type: 'zero_auth', fault: 'cannot verify cards (zero_auth)' },
  ] as const;
  for (const c of nodeNeeds) {
    describe(`a ${c.type} node needs an account with ${c.type}`, () => {
      it('refuses one without it, naming the node\'s account field', () => {
        expect(problemsOf(needing(c.type, 'ca_card'))).to.deep.equal([`graph.nodes[1].data.connectorAccountId: Node x names connector account ca_card, which ${c.fault}.`]);
      });
      it('accepts one with it, and one whose capabilities are unknown (its adapter could not be described)', () => {
        expect(problemsOf(needing(c.type, 'ca_full'))).to.deep.equal([]);
        expect(problemsOf(needing(c.type, 'ca_unknown'))).to.deep.equal([]);
      });
    });
  }

  describe('acquirer and route accounts after a split node need split', () => {
    it('refuses each account without it, named by its position in connectorAccountIds', () => {
      expect(problemsOf(splitThenRoute(['ca_full', 'ca_card', 'ca_unknown', 'ca_pix']))).to.deep.equal([
        'graph.nodes[2].data.connectorAccountIds[1]: Node r follows a split node but names connector account ca_card, which cannot execute splits.',
        'graph.nodes[2].data.connectorAccountIds[3]: Node r follows a split node but names connector account ca_pix, which cannot execute splits.',
      ]);
    });
    it('accepts split-capable accounts and accounts whose capabilities are unknown', () => {
      expect(problemsOf(splitThenRoute(['ca_full', 'ca_unknown']))).to.deep.equal([]);
    });
  });

  it('asks nothing of acquirer and route accounts otherwise: a Pix-only account routes the Pix payments of the flow', () => {
    const g = graph(
      [n('t', 'trigger'), n('r', 'route', { strategy: 'priority', connectorAccountIds: ['ca_pix', 'ca_card'] }), n('a', 'acquirer', { connectorAccountId: 'ca_pix' }), n('ok', 'approve'), n('no', 'decline')],
      [e('t', 'r'), e('r', 'ok', 'approved'), e('r', 'no', 'declined'), e('r', 'a', 'error'), e('a', 'ok', 'approved'), e('a', 'no', 'declined')],
    );
    expect(problemsOf(g)).to.deep.equal([]);
  });

  it('names every capability fault at once', () => {
    const g = graph(
      [
        n('t', 'trigger'),
        n('split', 'split', { splits: [{ recipientId: 'rcp_seller', type: 'percentage', value: 9_000 }] }),
        n('za', 'zero_auth', { connectorAccountId: 'ca_card' }),
        n('3ds', 'three_ds', { connectorAccountId: 'ca_pix' }),
        n('a', 'acquirer', { connectorAccountId: 'ca_card' }),
        n('ok', 'approve'),
        n('no', 'decline'),
      ],
      [
        e('t', 'split'), e('split', 'za'), e('za', '3ds', 'valid'), e('za', 'no', 'invalid'), e('za', 'no', 'unavailable'),
        e('3ds', 'a', 'authenticated'), e('3ds', 'no', 'failed'), e('3ds', 'no', 'unavailable'), e('a', 'ok', 'approved'), e('a', 'no', 'declined'),
      ],
    );
    expect(problemsOf(g).map((p) => p.split(':')[0])).to.deep.equal([
      'graph.nodes[2].data.connectorAccountId',
      'graph.nodes[3].data.connectorAccountId',
      'graph.nodes[4].data.connectorAccountId',
    ]);
  });
});
