import { expect } from 'chai';
import { FLOW_NODE_TYPES, FlowGraph, FlowNode, FlowNodeType, FlowTriggerEvent, GraphProblem, exitPorts } from '../../../../domain/flow/flow-graph';
import { flowTemplate } from '../../../../domain/flow/flow-templates';
import { AccountFacts, RUNNABLE_NODE_TYPES, accountIdsOf, publishProblems } from '../../../../domain/flow/publish-check';
import { e, graph, minimalGraph, n } from './fixtures';

const ACCOUNTS = new Map<string, AccountFacts>([
  ['ca_1', { kind: 'acquirer' }],
  ['ca_2', { kind: 'acquirer' }],
  ['ca_3', { kind: 'acquirer' }],
  ['af_1', { kind: 'antifraud' }],
]);

/**
 * A publishable graph using every runnable node type. Node indices: t 0, c 1, r 2, sw 3, v 4, a1 5, a2 6, ok 7, no 8.
 *   t -> c; c.true -> r (route ca_1, ca_2); c.false -> sw (card.brand: visa | elo | default)
 *   sw.case_1 -> v (set_variable) -> a1 (ca_3); sw.case_2 -> a2 (ca_1); sw.default -> no
 *   r, a1, a2: approved -> ok, declined -> no; r.error -> a1; a2.error -> a1
 */
function rich(): FlowGraph {
  return graph(
    [
      n('t', 'trigger'),
      n('c', 'condition', { field: 'amount', operator: 'gte', value: 100_000 }),
      n('r', 'route', { strategy: 'priority', connectorAccountIds: ['ca_1', 'ca_2'] }),
      n('sw', 'switch', { field: 'card.brand', cases: [{ value: 'visa' }, { value: 'elo' }] }),
      n('v', 'set_variable', { name: 'tier', value: 'gold' }),
      n('a1', 'acquirer', { connectorAccountId: 'ca_3' }),
      n('a2', 'acquirer', { connectorAccountId: 'ca_1' }),
      n('ok', 'approve'),
      n('no', 'decline'),
    ],
    [
      e('t', 'c'),
      e('c', 'r', 'true'),
      e('c', 'sw', 'false'),
      e('sw', 'v', 'case_1'),
      e('sw', 'a2', 'case_2'),
      e('sw', 'no', 'default'),
      e('v', 'a1'),
      e('r', 'ok', 'approved'),
      e('r', 'no', 'declined'),
      e('r', 'a1', 'error'),
      e('a1', 'ok', 'approved'),
      e('a1', 'no', 'declined'),
      e('a2', 'ok', 'approved'),
      e('a2', 'no', 'declined'),
      e('a2', 'a1', 'error'),
    ],
  );
}

/** The rich graph with some edges (by id) removed and node data patched. */
function richWith(opts: { without?: string[]; data?: Record<string, Record<string, unknown>>; edges?: FlowGraph['edges']; nodes?: FlowNode[] }): FlowGraph {
  const g = rich();
  return {
    nodes: [...g.nodes.map((node) => (opts.data?.[node.id] ? { ...node, data: opts.data[node.id]! } : node)), ...(opts.nodes ?? [])],
    edges: [...g.edges.filter((edge) => !opts.without?.includes(edge.id)), ...(opts.edges ?? [])],
  };
}

/** t -> X (first port of X) -> acquirer a -> ok / no. X at index 1, a 2, ok 3, no 4. */
function withNode(type: FlowNodeType, data: Record<string, unknown> = {}): FlowGraph {
  const x = n('x', type, data);
  return graph(
    [n('t', 'trigger'), x, n('a', 'acquirer', { connectorAccountId: 'ca_1' }), n('ok', 'approve'), n('no', 'decline')],
    [e('t', 'x'), e('x', 'a', exitPorts(x)[0]), e('a', 'ok', 'approved'), e('a', 'no', 'declined')],
  );
}

/** t -> acquirer a -> ok; a declined -> retry r (data) -> a (retry) / no (exhausted); r at index 2. */
function retryLoop(data: Record<string, unknown>): FlowGraph {
  return graph(
    [n('t', 'trigger'), n('a', 'acquirer', { connectorAccountId: 'ca_1' }), n('r', 'retry', data), n('ok', 'approve'), n('no', 'decline')],
    [e('t', 'a'), e('a', 'ok', 'approved'), e('a', 'r', 'declined'), e('r', 'a', 'retry'), e('r', 'no', 'exhausted')],
  );
}

/** t -> route r (data) -> ok / no; r at index 1. */
function route(data: Record<string, unknown>): FlowGraph {
  return graph([n('t', 'trigger'), n('r', 'route', data), n('ok', 'approve'), n('no', 'decline')], [e('t', 'r'), e('r', 'ok', 'approved'), e('r', 'no', 'declined')]);
}

type Expected = Array<{ param: string; match: RegExp }>;

function expectProblems(problems: GraphProblem[], expected: Expected): void {
  expect(problems.map((p) => p.param), problems.map((p) => p.message).join('\n')).to.deep.equal(expected.map((p) => p.param));
  expected.forEach((x, i) => expect(problems[i]!.message).to.match(x.match));
}

describe('publish check', () => {
  describe('publishProblems', () => {
    const cases: Array<{ name: string; graph: FlowGraph; trigger?: FlowTriggerEvent; expected: Expected }> = [
      { name: 'the rich valid graph has no problem', graph: rich(), expected: [] },
      { name: 'the minimal graph has no problem', graph: minimalGraph(), expected: [] },
      { name: 'an acquirer with no port wired is fine (approved approves, declined declines, error ends)', graph: graph([n('t', 'trigger'), n('a', 'acquirer', { connectorAccountId: 'ca_1' })], [e('t', 'a')]), expected: [] },
      { name: 'condition with {rules, match: any}', graph: richWith({ data: { c: { rules: [{ field: 'amount', operator: 'gte', value: 1 }, { field: 'metadata.vip', operator: 'eq', value: true }], match: 'any' } } }), expected: [] },

      // trigger event
      ...(['invoice.payment_due', 'subscription.renewal', 'payment.retry_requested', 'manual'] as const).map((trigger) => ({
        name: `trigger event ${trigger} publishes like payment.authorization_requested`,
        graph: minimalGraph(),
        trigger,
        expected: [],
      })),

      // retry node: the one loop allowed, bounded and paced
      { name: 'a retry loop back to its acquirer', graph: retryLoop({ maxAttempts: 3, intervalMinutes: 60 }), expected: [] },
      {
        name: 'retry data out of bounds',
        graph: retryLoop({ maxAttempts: 21, intervalMinutes: 0 }),
        expected: [
          { param: 'graph.nodes[2].data.maxAttempts', match: /Node r: maxAttempts is a whole number from 1 to 20/ },
          { param: 'graph.nodes[2].data.intervalMinutes', match: /Node r: intervalMinutes is a whole number from 1 to 43200/ },
        ],
      },
      {
        name: 'a retry whose ports lead nowhere',
        graph: graph([n('t', 'trigger'), n('a', 'acquirer', { connectorAccountId: 'ca_1' }), n('r', 'retry', { maxAttempts: 1, intervalMinutes: 1 })], [e('t', 'a'), e('a', 'r', 'declined')]),
        expected: [
          { param: 'graph.nodes[2]', match: /Port retry of node r \(retry\) leads nowhere/ },
          { param: 'graph.nodes[2]', match: /Port exhausted of node r \(retry\) leads nowhere/ },
        ],
      },
      {
        name: 'a retry leading back to something else than an acquirer or route',
        graph: graph(
          [n('t', 'trigger'), n('v', 'set_variable', { name: 'x', value: 1 }), n('a', 'acquirer', { connectorAccountId: 'ca_1' }), n('r', 'retry', { maxAttempts: 1, intervalMinutes: 1 }), n('no', 'decline')],
          [e('t', 'v'), e('v', 'a'), e('a', 'r', 'declined'), e('r', 'v', 'retry'), e('r', 'no', 'exhausted')],
        ),
        expected: [{ param: 'graph.nodes[3]', match: /Port retry of node r must lead back to an acquirer or route node/ }],
      },

      // structural problems come first and alone, without the body. prefix
      {
        name: 'structural problems are reported alone, param without body.',
        graph: richWith({ nodes: [n('ok', 'approve')], edges: [e('c', 'no', 'maybe')] }),
        expected: [
          { param: 'graph.nodes[9].id', match: /Node id ok is used twice/ },
          { param: 'graph.edges[15].sourcePort', match: /has no port maybe/ },
        ],
      },

      // triggers
      { name: 'no trigger', graph: graph([n('a', 'acquirer', { connectorAccountId: 'ca_1' })], []), expected: [{ param: 'graph.nodes', match: /exactly one trigger node; this one has 0/ }] },
      { name: 'two triggers', graph: richWith({ nodes: [n('t2', 'trigger')], edges: [e('t2', 'a1')] }), expected: [{ param: 'graph.nodes', match: /exactly one trigger node; this one has 2/ }] },

      // non-runnable node types
      // (read from the list, so landing a node type changes one line of publish-check.ts, not this test)
      ...FLOW_NODE_TYPES.filter((type) => !RUNNABLE_NODE_TYPES.includes(type)).map((type) => ({
        name: `${type} nodes cannot be published`,
        graph: withNode(type),
        expected: [{ param: 'graph.nodes[1].type', match: new RegExp(`Node x: ${type} nodes cannot run in this version; published flows use ${RUNNABLE_NODE_TYPES.join(', ')}`) }],
      })),

      // review nodes: the merchant's decision leads on by approved or declined, both wired
      {
        name: 'a review node with an exit leading nowhere',
        graph: graph([n('t', 'trigger'), n('rv', 'review'), n('no', 'decline')], [e('t', 'rv'), e('rv', 'no', 'declined')]),
        expected: [{ param: 'graph.nodes[1]', match: /Port approved of node rv \(review\) leads nowhere/ }],
      },

      // delay nodes wait on a durable timer: 1 minute to 30 days
      ...([0, 43_201, 1.5, '10', undefined] as const).map((minutes) => ({
        name: `a delay of ${String(minutes)} minutes cannot be published`,
        graph: graph(
          [n('t', 'trigger'), n('d', 'delay', minutes === undefined ? {} : { minutes }), n('a', 'acquirer', { connectorAccountId: 'ca_1' })],
          [e('t', 'd'), e('d', 'a'), e('a', 'ok', 'approved', 'x')].slice(0, 2),
        ),
        expected: [{ param: 'graph.nodes[1].data.minutes', match: /minutes is a whole number from 1 to 43200/ }],
      })),
      {
        name: 'a delay whose next port leads nowhere cannot be published',
        graph: graph([n('t', 'trigger'), n('d', 'delay', { minutes: 5 })], [e('t', 'd')]),
        expected: [{ param: 'graph.nodes[1]', match: /Port next of node d \(delay\) leads nowhere/ }],
      },

      // three_ds nodes: the authenticating account named, and every result exit wired
      {
        name: 'a three_ds node without its account and with an exit leading nowhere',
        graph: graph(
          [n('t', 'trigger'), n('3ds', 'three_ds'), n('no', 'decline')],
          [e('t', '3ds'), e('3ds', 'no', 'failed'), e('3ds', 'no', 'unavailable')],
        ),
        expected: [
          { param: 'graph.nodes[1].data.connectorAccountId', match: /Node 3ds \(three_ds\) needs a connector account id/ },
          { param: 'graph.nodes[1]', match: /Port authenticated of node 3ds \(three_ds\) leads nowhere/ },
        ],
      },

      // unwired required ports
      {
        name: 'trigger next unwired',
        graph: graph(minimalGraph().nodes, minimalGraph().edges.slice(1)),
        expected: [
          { param: 'graph.nodes[0]', match: /Port next of node t \(trigger\) leads nowhere; connect it/ },
          { param: 'graph.nodes[1]', match: /Node a cannot be reached from the trigger/ },
          { param: 'graph.nodes[2]', match: /Node ok cannot be reached/ },
          { param: 'graph.nodes[3]', match: /Node no cannot be reached/ },
        ],
      },
      {
        name: 'condition true unwired',
        graph: richWith({ without: ['c-true'] }),
        expected: [
          { param: 'graph.nodes[1]', match: /Port true of node c \(condition\) leads nowhere/ },
          { param: 'graph.nodes[2]', match: /Node r cannot be reached/ },
        ],
      },
      {
        name: 'condition false unwired',
        graph: richWith({ without: ['c-false'] }),
        expected: [
          { param: 'graph.nodes[1]', match: /Port false of node c \(condition\) leads nowhere/ },
          { param: 'graph.nodes[3]', match: /Node sw cannot be reached/ },
          { param: 'graph.nodes[4]', match: /Node v cannot be reached/ },
          { param: 'graph.nodes[6]', match: /Node a2 cannot be reached/ },
        ],
      },
      {
        name: 'switch case_1 unwired',
        graph: richWith({ without: ['sw-case_1'] }),
        expected: [
          { param: 'graph.nodes[3]', match: /Port case_1 of node sw \(switch\) leads nowhere/ },
          { param: 'graph.nodes[4]', match: /Node v cannot be reached/ },
        ],
      },
      {
        name: 'switch case_2 unwired',
        graph: richWith({ without: ['sw-case_2'] }),
        expected: [
          { param: 'graph.nodes[3]', match: /Port case_2 of node sw \(switch\) leads nowhere/ },
          { param: 'graph.nodes[6]', match: /Node a2 cannot be reached/ },
        ],
      },
      { name: 'switch default unwired', graph: richWith({ without: ['sw-default'] }), expected: [{ param: 'graph.nodes[3]', match: /Port default of node sw \(switch\) leads nowhere/ }] },
      { name: 'set_variable next unwired', graph: richWith({ without: ['v-next'] }), expected: [{ param: 'graph.nodes[4]', match: /Port next of node v \(set_variable\) leads nowhere/ }] },

      // condition data
      { name: 'condition with an empty rules list', graph: richWith({ data: { c: { rules: [] } } }), expected: [{ param: 'graph.nodes[1].data.rules', match: /Node c: a condition needs at least one rule/ }] },
      { name: 'condition with no rule at all (empty data)', graph: richWith({ data: { c: {} } }), expected: [{ param: 'graph.nodes[1].data', match: /Node c: field is required/ }] },
      { name: 'inline rule with an unknown field', graph: richWith({ data: { c: { field: 'bogus', operator: 'eq', value: 1 } } }), expected: [{ param: 'graph.nodes[1].data', match: /Node c: unknown field bogus/ }] },
      {
        name: 'the second rule of a list is invalid',
        graph: richWith({ data: { c: { rules: [{ field: 'amount', operator: 'gt', value: 1 }, { field: 'currency', operator: 'gt', value: 1 }] } } }),
        expected: [{ param: 'graph.nodes[1].data.rules[1]', match: /Node c: currency is not a number/ }],
      },

      // switch data
      {
        name: 'switch without cases',
        graph: graph([n('t', 'trigger'), n('sw', 'switch', { field: 'card.brand', cases: [] }), n('a', 'acquirer', { connectorAccountId: 'ca_1' })], [e('t', 'sw'), e('sw', 'a', 'default')]),
        expected: [{ param: 'graph.nodes[1].data.cases', match: /Node sw: a switch has 1 to 50 cases/ }],
      },
      {
        name: 'switch with 51 cases',
        graph: graph(
          [n('t', 'trigger'), n('sw', 'switch', { field: 'installments', cases: Array.from({ length: 51 }, (_, i) => ({ value: i + 1 })) }), n('a', 'acquirer', { connectorAccountId: 'ca_1' })],
          [e('t', 'sw'), e('sw', 'a', 'default')],
        ),
        expected: [{ param: 'graph.nodes[1].data.cases', match: /a switch has 1 to 50 cases/ }],
      },
      {
        name: 'switch case without a usable value',
        graph: richWith({ data: { sw: { field: 'card.brand', cases: [{ value: 'visa' }, { value: null }] } } }),
        expected: [{ param: 'graph.nodes[3].data.cases[1]', match: /Node sw: eq needs a string, number or boolean/ }],
      },
      {
        name: 'switch on an unknown field reports each case',
        graph: richWith({ data: { sw: { field: 'brand', cases: [{ value: 'visa' }, { value: 'elo' }] } } }),
        expected: [
          { param: 'graph.nodes[3].data.cases[0]', match: /unknown field brand/ },
          { param: 'graph.nodes[3].data.cases[1]', match: /unknown field brand/ },
        ],
      },

      // set_variable data
      { name: 'set_variable name with a space', graph: richWith({ data: { v: { name: 'my tier', value: 1 } } }), expected: [{ param: 'graph.nodes[4].data.name', match: /Node v: name is 1-64 letters, digits or _/ }] },
      { name: 'set_variable name missing', graph: richWith({ data: { v: { value: 1 } } }), expected: [{ param: 'graph.nodes[4].data.name', match: /name is 1-64/ }] },
      { name: 'set_variable name of 65 chars', graph: richWith({ data: { v: { name: 'x'.repeat(65), value: 1 } } }), expected: [{ param: 'graph.nodes[4].data.name', match: /name is 1-64/ }] },
      { name: 'set_variable value an object', graph: richWith({ data: { v: { name: 'tier', value: { a: 1 } } } }), expected: [{ param: 'graph.nodes[4].data.value', match: /Node v: value is a string, number or boolean/ }] },
      { name: 'set_variable value missing', graph: richWith({ data: { v: { name: 'tier' } } }), expected: [{ param: 'graph.nodes[4].data.value', match: /value is a string, number or boolean/ }] },
      { name: 'set_variable boolean value is fine', graph: richWith({ data: { v: { name: 'flag_1', value: false } } }), expected: [] },

      // acquirer account
      { name: 'acquirer account missing', graph: richWith({ data: { a1: {} } }), expected: [{ param: 'graph.nodes[5].data.connectorAccountId', match: /Node a1 \(acquirer\) needs a connector account id/ }] },
      { name: 'acquirer account blank', graph: richWith({ data: { a1: { connectorAccountId: '' } } }), expected: [{ param: 'graph.nodes[5].data.connectorAccountId', match: /needs a connector account id/ }] },
      { name: 'acquirer account not a string', graph: richWith({ data: { a1: { connectorAccountId: 7 } } }), expected: [{ param: 'graph.nodes[5].data.connectorAccountId', match: /needs a connector account id/ }] },
      { name: 'acquirer account unknown', graph: richWith({ data: { a1: { connectorAccountId: 'ca_x' } } }), expected: [{ param: 'graph.nodes[5].data.connectorAccountId', match: /Node a1 names connector account ca_x, which does not exist in this environment/ }] },
      { name: 'acquirer account is an antifraud account', graph: richWith({ data: { a1: { connectorAccountId: 'af_1' } } }), expected: [{ param: 'graph.nodes[5].data.connectorAccountId', match: /Node a1 names connector account af_1, which is not an acquirer/ }] },

      // route data
      { name: 'route strategy unknown', graph: route({ strategy: 'random', connectorAccountIds: ['ca_1'] }), expected: [{ param: 'graph.nodes[1].data.strategy', match: /Node r: strategy is one of priority, weighted, lowest_cost/ }] },
      { name: 'route strategy missing', graph: route({ connectorAccountIds: ['ca_1'] }), expected: [{ param: 'graph.nodes[1].data.strategy', match: /strategy is one of/ }] },
      { name: 'route lowest_cost is fine', graph: route({ strategy: 'lowest_cost', connectorAccountIds: ['ca_1', 'ca_2', 'ca_3'] }), expected: [] },
      { name: 'route with no accounts', graph: route({ strategy: 'priority', connectorAccountIds: [] }), expected: [{ param: 'graph.nodes[1].data.connectorAccountIds', match: /Node r: connectorAccountIds lists 1 to 20 accounts/ }] },
      { name: 'route accounts missing', graph: route({ strategy: 'priority' }), expected: [{ param: 'graph.nodes[1].data.connectorAccountIds', match: /lists 1 to 20 accounts/ }] },
      { name: 'route accounts not a list', graph: route({ strategy: 'priority', connectorAccountIds: 'ca_1' }), expected: [{ param: 'graph.nodes[1].data.connectorAccountIds', match: /lists 1 to 20 accounts/ }] },
      {
        name: 'route with 21 accounts',
        graph: route({ strategy: 'priority', connectorAccountIds: Array.from({ length: 21 }, (_, i) => `ca_${i}`) }),
        expected: [{ param: 'graph.nodes[1].data.connectorAccountIds', match: /lists 1 to 20 accounts/ }],
      },
      { name: 'route lists an account twice', graph: route({ strategy: 'priority', connectorAccountIds: ['ca_1', 'ca_2', 'ca_1'] }), expected: [{ param: 'graph.nodes[1].data.connectorAccountIds', match: /Node r: an account is listed twice/ }] },
      {
        name: 'route names an unknown and an antifraud account',
        graph: route({ strategy: 'priority', connectorAccountIds: ['ca_1', 'ca_x', 'af_1'] }),
        expected: [
          { param: 'graph.nodes[1].data.connectorAccountIds[1]', match: /names connector account ca_x, which does not exist/ },
          { param: 'graph.nodes[1].data.connectorAccountIds[2]', match: /names connector account af_1, which is not an acquirer/ },
        ],
      },
      { name: 'route with a blank account', graph: route({ strategy: 'priority', connectorAccountIds: ['ca_1', ''] }), expected: [{ param: 'graph.nodes[1].data.connectorAccountIds[1]', match: /Node r \(route\) needs a connector account id/ }] },
      { name: 'weighted with valid weights (1 and 1000)', graph: route({ strategy: 'weighted', connectorAccountIds: ['ca_1', 'ca_2'], weights: [1, 1000] }), expected: [] },
      ...[
        { what: 'missing', weights: undefined },
        { what: 'fewer than the accounts', weights: [1] },
        { what: 'more than the accounts', weights: [1, 2, 3] },
        { what: 'with 0', weights: [0, 1] },
        { what: 'negative', weights: [-1, 1] },
        { what: 'fractional', weights: [1.5, 1] },
        { what: 'above 1000', weights: [1001, 1] },
        { what: 'as strings', weights: ['1', '1'] },
      ].map(({ what, weights }) => ({
        name: `weighted with weights ${what}`,
        graph: route({ strategy: 'weighted', connectorAccountIds: ['ca_1', 'ca_2'], ...(weights ? { weights } : {}) }),
        expected: [{ param: 'graph.nodes[1].data.weights', match: /Node r: weighted routing needs one whole weight \(1-1000\) per account, in the same order/ }],
      })),
      { name: 'weights are ignored for priority', graph: route({ strategy: 'priority', connectorAccountIds: ['ca_1', 'ca_2'], weights: [0] }), expected: [] },

      // approved / declined ports
      {
        name: 'acquirer approved leads to decline',
        graph: graph([n('t', 'trigger'), n('a', 'acquirer', { connectorAccountId: 'ca_1' }), n('no', 'decline')], [e('t', 'a'), e('a', 'no', 'approved')]),
        expected: [{ param: 'graph.nodes[1]', match: /Port approved of node a must lead to an approve node/ }],
      },
      {
        name: 'acquirer approved leads to another acquirer',
        graph: graph([n('t', 'trigger'), n('a', 'acquirer', { connectorAccountId: 'ca_1' }), n('b', 'acquirer', { connectorAccountId: 'ca_2' })], [e('t', 'a'), e('a', 'b', 'approved')]),
        expected: [{ param: 'graph.nodes[1]', match: /Port approved of node a must lead to an approve node/ }],
      },
      {
        name: 'acquirer declined leads to another acquirer',
        graph: graph([n('t', 'trigger'), n('a', 'acquirer', { connectorAccountId: 'ca_1' }), n('b', 'acquirer', { connectorAccountId: 'ca_2' })], [e('t', 'a'), e('a', 'b', 'declined')]),
        expected: [{ param: 'graph.nodes[1]', match: /Port declined of node a must lead to a decline or retry node/ }],
      },
      {
        name: 'acquirer declined leads to approve (also an approve without authorization)',
        graph: graph([n('t', 'trigger'), n('a', 'acquirer', { connectorAccountId: 'ca_1' }), n('ok', 'approve')], [e('t', 'a'), e('a', 'ok', 'declined')]),
        expected: [
          { param: 'graph.nodes[1]', match: /Port declined of node a must lead to a decline or retry node/ },
          { param: 'graph.nodes[2]', match: /Approve node ok is reached from a \(declined\) without an authorization/ },
        ],
      },
      {
        name: 'route approved leads to decline and declined to approve',
        graph: graph([n('t', 'trigger'), n('r', 'route', { strategy: 'priority', connectorAccountIds: ['ca_1'] }), n('ok', 'approve'), n('no', 'decline')], [e('t', 'r'), e('r', 'no', 'approved'), e('r', 'ok', 'declined')]),
        expected: [
          { param: 'graph.nodes[1]', match: /Port approved of node r must lead to an approve node/ },
          { param: 'graph.nodes[1]', match: /Port declined of node r must lead to a decline or retry node/ },
          { param: 'graph.nodes[2]', match: /Approve node ok is reached from r \(declined\)/ },
        ],
      },

      // approve without an authorization
      {
        name: 'condition -> approve',
        graph: richWith({ without: ['c-true'], edges: [e('c', 'ok', 'true')], nodes: [] }),
        expected: [
          { param: 'graph.nodes[7]', match: /Approve node ok is reached from c \(true\) without an authorization; only an acquirer's approved port leads to approve/ },
          { param: 'graph.nodes[2]', match: /Node r cannot be reached/ },
        ],
      },
      {
        name: 'trigger -> approve',
        graph: graph([n('t', 'trigger'), n('ok', 'approve')], [e('t', 'ok')]),
        expected: [{ param: 'graph.nodes[1]', match: /Approve node ok is reached from t \(next\) without an authorization/ }],
      },
      {
        name: 'switch default -> approve',
        graph: richWith({ without: ['sw-default'], edges: [e('sw', 'ok', 'default')] }),
        expected: [{ param: 'graph.nodes[7]', match: /Approve node ok is reached from sw \(default\)/ }],
      },
      {
        name: 'set_variable -> approve',
        graph: richWith({ without: ['v-next'], edges: [e('v', 'ok')] }),
        expected: [{ param: 'graph.nodes[7]', match: /Approve node ok is reached from v \(next\)/ }],
      },
      {
        name: 'acquirer error -> approve',
        graph: richWith({ without: ['a2-error'], edges: [e('a2', 'ok', 'error')] }),
        expected: [{ param: 'graph.nodes[7]', match: /Approve node ok is reached from a2 \(error\)/ }],
      },

      // loops and reachability
      {
        name: 'a loop through a condition',
        graph: graph(
          [n('t', 'trigger'), n('v', 'set_variable', { name: 'x', value: 1 }), n('c', 'condition', { field: 'variables.x', operator: 'gt', value: 0 }), n('a', 'acquirer', { connectorAccountId: 'ca_1' })],
          [e('t', 'v'), e('v', 'c'), e('c', 'v', 'true'), e('c', 'a', 'false')],
        ),
        expected: [{ param: 'graph.nodes[1]', match: /The flow loops: v -> c -> v; only a retry node may lead back\./ }],
      },
      {
        name: 'a loop of error ports',
        graph: graph(
          [n('t', 'trigger'), n('a1', 'acquirer', { connectorAccountId: 'ca_1' }), n('a2', 'acquirer', { connectorAccountId: 'ca_2' })],
          [e('t', 'a1'), e('a1', 'a2', 'error'), e('a2', 'a1', 'error')],
        ),
        expected: [{ param: 'graph.nodes[1]', match: /The flow loops: a1 -> a2 -> a1; only a retry node/ }],
      },
      {
        name: 'a loop back to the trigger',
        graph: graph([n('t', 'trigger'), n('a', 'acquirer', { connectorAccountId: 'ca_1' })], [e('t', 'a'), e('a', 't', 'error')]),
        expected: [{ param: 'graph.nodes[0]', match: /The flow loops: t -> a -> t; only a retry node/ }],
      },
      {
        name: 'a diamond (two paths into one node) is not a loop',
        graph: graph(
          [n('t', 'trigger'), n('c', 'condition', { field: 'amount', operator: 'gt', value: 1 }), n('a', 'acquirer', { connectorAccountId: 'ca_1' })],
          [e('t', 'c'), e('c', 'a', 'true'), e('c', 'a', 'false')],
        ),
        expected: [],
      },
      {
        name: 'an unreachable node',
        graph: richWith({ nodes: [n('island', 'acquirer', { connectorAccountId: 'ca_2' })] }),
        expected: [{ param: 'graph.nodes[9]', match: /Node island cannot be reached from the trigger/ }],
      },
      {
        name: 'an unreachable node is also checked for its own faults',
        graph: richWith({ nodes: [n('island', 'condition', { field: 'amount', operator: 'gt', value: 1 })] }),
        expected: [
          { param: 'graph.nodes[9]', match: /Port true of node island/ },
          { param: 'graph.nodes[9]', match: /Port false of node island/ },
          { param: 'graph.nodes[9]', match: /Node island cannot be reached/ },
        ],
      },

      // several faults at once
      {
        name: 'every fault is reported at once, node by node',
        graph: richWith({ without: ['sw-default'], data: { a1: { connectorAccountId: 'ca_x' }, v: { name: '', value: 1 } } }),
        expected: [
          { param: 'graph.nodes[3]', match: /Port default of node sw/ },
          { param: 'graph.nodes[4].data.name', match: /name is 1-64/ },
          { param: 'graph.nodes[5].data.connectorAccountId', match: /ca_x, which does not exist/ },
        ],
      },
    ];

    for (const c of cases) {
      it(c.name, () => {
        expectProblems(publishProblems(c.graph, c.trigger ?? 'payment.authorization_requested', ACCOUNTS), c.expected);
      });
    }

    it('does not mutate the graph', () => {
      const g = richWith({ without: ['c-true'] });
      const before = JSON.stringify(g);
      publishProblems(g, 'payment.authorization_requested', ACCOUNTS);
      expect(JSON.stringify(g)).to.equal(before);
    });

    it('an account that exists nowhere in an empty environment', () => {
      expectProblems(publishProblems(minimalGraph(), 'payment.authorization_requested', new Map()), [{ param: 'graph.nodes[1].data.connectorAccountId', match: /ca_1, which does not exist/ }]);
    });

    describe('template roteamento-por-ticket', () => {
      const template = flowTemplate('roteamento-por-ticket')!;

      it('as shipped, names the three nodes whose accounts are blank', () => {
        expect(template.triggerEvent).to.equal('payment.authorization_requested');
        const problems = publishProblems(template.graph, template.triggerEvent, ACCOUNTS);
        expectProblems(problems, [
          { param: 'graph.nodes[2].data.connectorAccountIds', match: /Node route-high: connectorAccountIds lists 1 to 20 accounts/ },
          { param: 'graph.nodes[3].data.connectorAccountId', match: /Node acquirer-low \(acquirer\) needs a connector account id/ },
          { param: 'graph.nodes[4].data.connectorAccountId', match: /Node acquirer-fallback \(acquirer\) needs a connector account id/ },
        ]);
      });

      it('once its accounts are filled, has no problem', () => {
        const filled: FlowGraph = structuredClone(template.graph);
        const byId = (id: string) => filled.nodes.find((node) => node.id === id)!;
        byId('route-high').data.connectorAccountIds = ['ca_1', 'ca_2'];
        byId('acquirer-low').data.connectorAccountId = 'ca_3';
        byId('acquirer-fallback').data.connectorAccountId = 'ca_1';
        expect(publishProblems(filled, template.triggerEvent, ACCOUNTS)).to.deep.equal([]);
        // the shipped template is untouched
        expect(template.graph.nodes[3]!.data.connectorAccountId).to.equal('');
      });
    });

    it('template recorrencia-com-retentativa (subscription.renewal, a retry loop) publishes once its account is filled', () => {
      const template = flowTemplate('recorrencia-com-retentativa')!;
      expect(template.triggerEvent).to.equal('subscription.renewal');
      expectProblems(publishProblems(template.graph, template.triggerEvent, ACCOUNTS), [{ param: 'graph.nodes[1].data.connectorAccountId', match: /Node acquirer \(acquirer\) needs a connector account id/ }]);
      const filled: FlowGraph = structuredClone(template.graph);
      filled.nodes.find((node) => node.id === 'acquirer')!.data.connectorAccountId = 'ca_1';
      expect(publishProblems(filled, template.triggerEvent, ACCOUNTS)).to.deep.equal([]);
    });

    it('template marketplace-split: a split node ahead of a route; names its blank recipient and accounts, and publishes once they are filled', () => {
      const template = flowTemplate('marketplace-split')!;
      expect(template.graph.nodes.map((node) => node.type)).to.deep.equal(['trigger', 'split', 'route', 'approve', 'decline']);
      expectProblems(publishProblems(template.graph, template.triggerEvent, ACCOUNTS, new Set()), [
        { param: 'graph.nodes[1].data.splits[0].recipientId', match: /Node split: recipientId is a recipient id/ },
        { param: 'graph.nodes[2].data.connectorAccountIds', match: /Node route-split: connectorAccountIds lists 1 to 20 accounts/ },
      ]);
      const filled: FlowGraph = structuredClone(template.graph);
      (filled.nodes.find((node) => node.id === 'split')!.data.splits as Array<{ recipientId: string }>)[0]!.recipientId = 'rcp_seller';
      filled.nodes.find((node) => node.id === 'route-split')!.data.connectorAccountIds = ['ca_1', 'ca_2'];
      expect(publishProblems(filled, template.triggerEvent, ACCOUNTS, new Set(['rcp_seller']))).to.deep.equal([]);
    });
  });

  describe('accountIdsOf', () => {
    const cases: Array<{ name: string; graph: FlowGraph; expected: string[] }> = [
      { name: 'no account-bearing node', graph: graph([n('t', 'trigger'), n('no', 'decline')], []), expected: [] },
      { name: 'the rich graph: route then acquirers, each id once', graph: rich(), expected: ['ca_1', 'ca_2', 'ca_3'] },
      {
        name: 'acquirer, route and other account-bearing nodes (antifraud)',
        graph: graph(
          [
            n('af', 'antifraud', { connectorAccountId: 'af_1' }),
            n('a', 'acquirer', { connectorAccountId: 'ca_9' }),
            n('r', 'route', { strategy: 'weighted', connectorAccountIds: ['ca_2', 'ca_9', 'ca_1'], weights: [1, 2, 3] }),
          ],
          [],
        ),
        expected: ['af_1', 'ca_9', 'ca_2', 'ca_1'],
      },
      {
        name: 'values that are not strings are ignored',
        graph: graph([n('a', 'acquirer', { connectorAccountId: 7 }), n('r', 'route', { connectorAccountIds: ['ca_1', null, 3, { id: 'x' }] }), n('q', 'route', { connectorAccountIds: 'ca_2' })], []),
        expected: ['ca_1'],
      },
    ];
    for (const c of cases) {
      it(c.name, () => {
        expect(accountIdsOf(c.graph)).to.deep.equal(c.expected);
      });
    }
  });
});
