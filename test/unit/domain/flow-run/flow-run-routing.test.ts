import { expect } from 'chai';
import type { FlowGraph, FlowNode } from '../../../../domain/flow/flow-graph';
import type { FlowPaymentFacts } from '../../../../domain/flow/flow-rules';
import type { RoutableAccount, RoutingPaymentProjection } from '../../../../domain/payment/routing/direct-routing';
import { newFlowRun, type FlowRunState } from '../../../../domain/flow-run/flow-run';
import { stepFlowRun, type FlowStepResult } from '../../../../domain/flow-run/flow-step';
import { account, cardPayment, e, facts, graph, n } from '../flow/fixtures';

const ACCOUNTS: RoutableAccount[] = [
  account('ca_1', { costBasisPoints: 300 }),
  account('ca_2', { costBasisPoints: 100 }),
  account('ca_3', { costBasisPoints: 200 }),
  account('ca_4', { costBasisPoints: 150 }),
];

const noRandom = () => {
  throw new Error('random must not be called');
};

/** The accounts a run called, in order, when every call fails technically; with how the run ended. */
interface RoutingTrace {
  readonly ok: boolean;
  readonly called: string[];
  readonly reason: string;
  readonly message: string;
  readonly run: FlowRunState;
}

/**
 * Runs a graph from its start, answering every acquirer call with a technical failure: the calls are the run's
 * fallback list (what a published flow used to be flattened into), and the end says why routing stopped.
 */
function run(g: FlowGraph, opts: { facts?: Partial<FlowPaymentFacts>; payment?: Partial<RoutingPaymentProjection>; accounts?: RoutableAccount[]; random?: () => number } = {}): RoutingTrace {
  let attempt = 0;
  const context = {
    graph: g,
    payment: { ...cardPayment, ...opts.payment },
    facts: facts(opts.facts),
    accounts: opts.accounts ?? ACCOUNTS,
    random: opts.random ?? noRandom,
    newAttemptId: () => `att_${++attempt}`,
    now: new Date('2026-11-26T10:00:00.000Z'),
  };
  const called: string[] = [];
  let step: FlowStepResult = stepFlowRun(context, newFlowRun(null), { kind: 'start' });
  while (step.action.kind === 'call_acquirer') {
    called.push(step.action.accountId);
    step = stepFlowRun(context, step.run, { kind: 'acquirer_outcome', attemptId: step.action.attemptId, outcome: 'technical_failure' });
  }
  expect(step.action.kind).to.equal('end');
  const outcome = step.run.outcome!;
  return { ok: called.length > 0, called, reason: outcome.reason, message: outcome.message, run: step.run };
}

function ids(trace: RoutingTrace): string[] {
  expect(trace.ok, trace.ok ? '' : `${trace.reason}: ${trace.message}`).to.equal(true);
  expect(trace.reason).to.equal('all_accounts_failed');
  return trace.called;
}

/** nodeId:exit for every step, with the accounts called at acquirer and route nodes. */
function pathOf(trace: RoutingTrace): string[] {
  return trace.run.steps.map((s) => `${s.nodeId}:${s.exit}${s.calls ? `[${s.calls.map((c) => c.accountId).join(',')}]` : ''}`);
}

const acq = (id: string, accountId: string): FlowNode => n(id, 'acquirer', { connectorAccountId: accountId });
const ok = n('ok', 'approve');
const no = n('no', 'decline');
const outcomes = (id: string) => [e(id, 'ok', 'approved'), e(id, 'no', 'declined')];

/** t -> route r (data) -> ok / no. */
function routeGraph(data: Record<string, unknown>): FlowGraph {
  return graph([n('t', 'trigger'), n('r', 'route', data), ok, no], [e('t', 'r'), ...outcomes('r')]);
}

/** A random source returning the given values in turn (the last one repeats). */
function sequence(...values: number[]): () => number {
  let i = 0;
  return () => values[Math.min(i++, values.length - 1)]!;
}

describe('flow run routing: the accounts a run calls, answered by technical failures only', () => {
  describe('conditions', () => {
    // t -> c (amount >= 100000): true -> a1 (ca_1), false -> a2 (ca_2)
    const g = graph(
      [n('t', 'trigger'), n('c', 'condition', { field: 'amount', operator: 'gte', value: 100_000 }), acq('a1', 'ca_1'), acq('a2', 'ca_2'), ok, no],
      [e('t', 'c'), e('c', 'a1', 'true'), e('c', 'a2', 'false'), ...outcomes('a1'), ...outcomes('a2')],
    );

    const cases: Array<{ name: string; facts: Partial<FlowPaymentFacts>; expected: string[]; path: string[] }> = [
      { name: 'true: a high ticket goes to a1', facts: { amount: 250_000 }, expected: ['ca_1'], path: ['t:next', 'c:true', 'a1:error[ca_1]'] },
      { name: 'boundary (gte) is true', facts: { amount: 100_000 }, expected: ['ca_1'], path: ['t:next', 'c:true', 'a1:error[ca_1]'] },
      { name: 'false: a low ticket goes to a2', facts: { amount: 99_999 }, expected: ['ca_2'], path: ['t:next', 'c:false', 'a2:error[ca_2]'] },
    ];
    for (const c of cases) {
      it(c.name, () => {
        const decision = run(g, { facts: c.facts });
        expect(ids(decision)).to.deep.equal(c.expected);
        expect(pathOf(decision)).to.deep.equal(c.path);
      });
    }

    const multi = (match: 'all' | 'any') =>
      graph(
        [
          n('t', 'trigger'),
          n('c', 'condition', { rules: [{ field: 'card.brand', operator: 'eq', value: 'visa' }, { field: 'metadata.tier', operator: 'eq', value: 'gold' }], match }),
          acq('a1', 'ca_1'),
          acq('a2', 'ca_2'),
        ],
        [e('t', 'c'), e('c', 'a1', 'true'), e('c', 'a2', 'false')],
      );
    const matches: Array<{ match: 'all' | 'any'; brand: string; tier: string; expected: string }> = [
      { match: 'all', brand: 'Visa', tier: 'Gold', expected: 'ca_1' },
      { match: 'all', brand: 'Visa', tier: 'Silver', expected: 'ca_2' },
      { match: 'any', brand: 'Elo', tier: 'gold', expected: 'ca_1' },
      { match: 'any', brand: 'Elo', tier: 'Silver', expected: 'ca_2' },
    ];
    for (const m of matches) {
      it(`rules with match ${m.match}: brand ${m.brand}, tier ${m.tier} -> ${m.expected}`, () => {
        expect(ids(run(multi(m.match), { facts: { cardBrand: m.brand, metadata: { tier: m.tier } } }))).to.deep.equal([m.expected]);
      });
    }
  });

  describe('switches', () => {
    // sw on card.brand: visa -> a1, elo -> a2, default -> a3
    const g = graph(
      [n('t', 'trigger'), n('sw', 'switch', { field: 'card.brand', cases: [{ value: 'visa' }, { value: 'elo' }] }), acq('a1', 'ca_1'), acq('a2', 'ca_2'), acq('a3', 'ca_3')],
      [e('t', 'sw'), e('sw', 'a1', 'case_1'), e('sw', 'a2', 'case_2'), e('sw', 'a3', 'default')],
    );
    const cases: Array<{ brand: string | null; port: string; expected: string }> = [
      { brand: 'VISA', port: 'case_1', expected: 'ca_1' },
      { brand: 'elo', port: 'case_2', expected: 'ca_2' },
      { brand: 'mastercard', port: 'default', expected: 'ca_3' },
      { brand: null, port: 'default', expected: 'ca_3' },
    ];
    for (const c of cases) {
      it(`brand ${c.brand} -> ${c.port} -> ${c.expected}`, () => {
        const decision = run(g, { facts: { cardBrand: c.brand } });
        expect(ids(decision)).to.deep.equal([c.expected]);
        expect(pathOf(decision)[1]).to.equal(`sw:${c.port}`);
      });
    }

    it('the first matching case wins', () => {
      const dup = graph(
        [n('t', 'trigger'), n('sw', 'switch', { field: 'installments', cases: [{ value: 1 }, { value: 1 }] }), acq('a1', 'ca_1'), acq('a2', 'ca_2'), acq('a3', 'ca_3')],
        [e('t', 'sw'), e('sw', 'a1', 'case_1'), e('sw', 'a2', 'case_2'), e('sw', 'a3', 'default')],
      );
      expect(ids(run(dup))).to.deep.equal(['ca_1']);
    });
  });

  describe('variables', () => {
    // sw (brand): visa -> v (tier = gold) -> c; default -> c.  c (variables.tier eq GOLD): true -> a1, false -> a2
    const g = graph(
      [
        n('t', 'trigger'),
        n('sw', 'switch', { field: 'card.brand', cases: [{ value: 'visa' }] }),
        n('v', 'set_variable', { name: 'tier', value: 'gold' }),
        n('c', 'condition', { field: 'variables.tier', operator: 'eq', value: 'GOLD' }),
        acq('a1', 'ca_1'),
        acq('a2', 'ca_2'),
      ],
      [e('t', 'sw'), e('sw', 'v', 'case_1'), e('sw', 'c', 'default'), e('v', 'c'), e('c', 'a1', 'true'), e('c', 'a2', 'false')],
    );

    it('a variable set on the path is seen by a later condition', () => {
      const decision = run(g, { facts: { cardBrand: 'visa' } });
      expect(ids(decision)).to.deep.equal(['ca_1']);
      expect(pathOf(decision)).to.deep.equal(['t:next', 'sw:case_1', 'v:next', 'c:true', 'a1:error[ca_1]']);
    });

    it('a variable not set on the path is missing', () => {
      const decision = run(g, { facts: { cardBrand: 'elo' } });
      expect(ids(decision)).to.deep.equal(['ca_2']);
      expect(pathOf(decision)).to.deep.equal(['t:next', 'sw:default', 'c:false', 'a2:error[ca_2]']);
    });

    it('a number variable compared numerically', () => {
      const numeric = graph(
        [n('t', 'trigger'), n('v', 'set_variable', { name: 'n', value: 3 }), n('c', 'condition', { field: 'variables.n', operator: 'gt', value: 2 }), acq('a1', 'ca_1'), acq('a2', 'ca_2')],
        [e('t', 'v'), e('v', 'c'), e('c', 'a1', 'true'), e('c', 'a2', 'false')],
      );
      expect(ids(run(numeric))).to.deep.equal(['ca_1']);
    });
  });

  describe('fallback list', () => {
    it('error ports chain acquirer and route nodes into one ordered list', () => {
      const g = graph(
        [n('t', 'trigger'), acq('a1', 'ca_1'), n('r', 'route', { strategy: 'priority', connectorAccountIds: ['ca_3', 'ca_2'] }), acq('a4', 'ca_4'), ok, no],
        [e('t', 'a1'), e('a1', 'r', 'error'), e('r', 'a4', 'error'), e('a4', 'no', 'error'), ...outcomes('a1'), ...outcomes('r'), ...outcomes('a4')],
      );
      const decision = run(g);
      expect(ids(decision)).to.deep.equal(['ca_1', 'ca_3', 'ca_2', 'ca_4']);
      expect(pathOf(decision)).to.deep.equal(['t:next', 'a1:error[ca_1]', 'r:error[ca_3,ca_2]', 'a4:error[ca_4]', 'no:null']);
    });

    it('an unwired error port ends the list', () => {
      const g = graph([n('t', 'trigger'), acq('a1', 'ca_1'), acq('a2', 'ca_2')], [e('t', 'a1'), e('a1', 'a2', 'declined')]);
      const decision = run(g);
      expect(ids(decision)).to.deep.equal(['ca_1']);
      expect(pathOf(decision)).to.deep.equal(['t:next', 'a1:error[ca_1]']);
    });

    it('an account named by several nodes is listed once, where first named', () => {
      const g = graph(
        [n('t', 'trigger'), acq('a1', 'ca_2'), n('r', 'route', { strategy: 'priority', connectorAccountIds: ['ca_1', 'ca_2', 'ca_3'] }), acq('a3', 'ca_1')],
        [e('t', 'a1'), e('a1', 'r', 'error'), e('r', 'a3', 'error')],
      );
      const decision = run(g);
      expect(ids(decision)).to.deep.equal(['ca_2', 'ca_1', 'ca_3']);
      expect(pathOf(decision)).to.deep.equal(['t:next', 'a1:error[ca_2]', 'r:error[ca_1,ca_3]', 'a3:error[]']);
    });

    const skipping: Array<{ name: string; accounts: RoutableAccount[]; payment?: Partial<RoutingPaymentProjection>; expected: string[] }> = [
      { name: 'disabled accounts are skipped', accounts: [account('ca_1', { enabled: false }), account('ca_2'), account('ca_3')], expected: ['ca_2', 'ca_3'] },
      { name: 'accounts without the card method are skipped', accounts: [account('ca_1'), account('ca_2', { capabilities: ['pix'] }), account('ca_3')], expected: ['ca_1', 'ca_3'] },
      {
        name: 'pix payments keep only pix accounts',
        payment: { methodType: 'pix' },
        accounts: [account('ca_1', { capabilities: ['card'] }), account('ca_2', { capabilities: ['pix'] }), account('ca_3', { capabilities: ['card', 'pix'] })],
        expected: ['ca_2', 'ca_3'],
      },
      { name: 'accounts unknown to the environment are skipped', accounts: [account('ca_3')], expected: ['ca_3'] },
    ];
    for (const c of skipping) {
      it(c.name, () => {
        const decision = run(routeGraph({ strategy: 'priority', connectorAccountIds: ['ca_1', 'ca_2', 'ca_3'] }), { accounts: c.accounts, payment: c.payment });
        expect(ids(decision)).to.deep.equal(c.expected);
        expect(pathOf(decision)[1]).to.equal(`r:error[${c.expected.join(',')}]`);
      });
    }
  });

  describe('route strategies', () => {
    it('priority keeps the listed order, whatever the cost', () => {
      expect(ids(run(routeGraph({ strategy: 'priority', connectorAccountIds: ['ca_3', 'ca_1', 'ca_2'] })))).to.deep.equal(['ca_3', 'ca_1', 'ca_2']);
    });

    it('an unknown strategy behaves as priority', () => {
      expect(ids(run(routeGraph({ connectorAccountIds: ['ca_1', 'ca_3'] })))).to.deep.equal(['ca_1', 'ca_3']);
    });

    it('lowest_cost orders by costBasisPoints, unknown cost last', () => {
      const accounts = [...ACCOUNTS, account('ca_5', { costBasisPoints: null }), account('ca_6', { costBasisPoints: 0 })];
      const decision = run(routeGraph({ strategy: 'lowest_cost', connectorAccountIds: ['ca_5', 'ca_1', 'ca_3', 'ca_2', 'ca_6'] }), { accounts });
      expect(ids(decision)).to.deep.equal(['ca_6', 'ca_2', 'ca_3', 'ca_1', 'ca_5']);
    });

    it('lowest_cost ties fall back to the oldest account', () => {
      const accounts = [account('ca_1', { createdAt: '2026-03-01T00:00:00.000Z' }), account('ca_2', { createdAt: '2025-03-01T00:00:00.000Z' })];
      expect(ids(run(routeGraph({ strategy: 'lowest_cost', connectorAccountIds: ['ca_1', 'ca_2'] }), { accounts }))).to.deep.equal(['ca_2', 'ca_1']);
    });

    // weights 1, 2, 7 (total 10): slots [0, 0.1) ca_1, [0.1, 0.3) ca_2, [0.3, 1) ca_3; then without replacement.
    const weighted = routeGraph({ strategy: 'weighted', connectorAccountIds: ['ca_1', 'ca_2', 'ca_3'], weights: [1, 2, 7] });
    const draws: Array<{ name: string; values: number[]; expected: string[] }> = [
      { name: 'random 0 always picks the first slot', values: [0], expected: ['ca_1', 'ca_2', 'ca_3'] },
      { name: 'random 0.99 always picks the last slot', values: [0.99], expected: ['ca_3', 'ca_2', 'ca_1'] },
      { name: 'just below the first boundary', values: [0.099, 0], expected: ['ca_1', 'ca_2', 'ca_3'] },
      { name: 'on the first boundary: the second slot', values: [0.1, 0], expected: ['ca_2', 'ca_1', 'ca_3'] },
      { name: 'just below the second boundary', values: [0.299, 0], expected: ['ca_2', 'ca_1', 'ca_3'] },
      { name: 'on the second boundary: the third slot', values: [0.3, 0], expected: ['ca_3', 'ca_1', 'ca_2'] },
      // after ca_2 is drawn, the rest are ca_1 (1) and ca_3 (7): 0.2 * 8 = 1.6 falls in ca_3's slot
      { name: 'the next draw is among the rest, by their weights', values: [0.15, 0.2], expected: ['ca_2', 'ca_3', 'ca_1'] },
      { name: 'the next draw, first slot of the rest', values: [0.15, 0.12], expected: ['ca_2', 'ca_1', 'ca_3'] },
    ];
    for (const d of draws) {
      it(`weighted: ${d.name} -> ${d.expected.join(', ')}`, () => {
        expect(ids(run(weighted, { random: sequence(...d.values) }))).to.deep.equal(d.expected);
      });
    }

    it('weighted: weights follow the account id, not the position among usable accounts', () => {
      // ca_1 (weight 1) is disabled: the rest are ca_2 (2) and ca_3 (7), total 9.
      const accounts = [account('ca_1', { enabled: false }), account('ca_2'), account('ca_3')];
      expect(ids(run(weighted, { accounts, random: sequence(0.2) }))).to.deep.equal(['ca_2', 'ca_3']); // 1.8 < 2
      expect(ids(run(weighted, { accounts, random: sequence(0.25) }))).to.deep.equal(['ca_3', 'ca_2']); // 2.25 >= 2
    });

    it('weighted: over evenly spread random values, each account comes first in proportion to its weight', () => {
      const firsts: Record<string, number> = { ca_1: 0, ca_2: 0, ca_3: 0 };
      for (let i = 0; i < 1_000; i++) firsts[ids(run(weighted, { random: sequence((i + 0.5) / 1_000, 0) }))[0]!]! += 1;
      expect(firsts).to.deep.equal({ ca_1: 100, ca_2: 200, ca_3: 700 });
    });

    it('priority and lowest_cost never call random', () => {
      expect(() => run(routeGraph({ strategy: 'priority', connectorAccountIds: ['ca_1', 'ca_2'] }))).not.to.throw();
      expect(() => run(routeGraph({ strategy: 'lowest_cost', connectorAccountIds: ['ca_1', 'ca_2'] }))).not.to.throw();
    });
  });

  describe('outcomes without a usable list', () => {
    const declineFirst = graph(
      [n('t', 'trigger'), n('c', 'condition', { field: 'amount', operator: 'gt', value: 1_000_000 }), acq('a1', 'ca_1'), ok, no],
      [e('t', 'c'), e('c', 'no', 'true'), e('c', 'a1', 'false'), ...outcomes('a1')],
    );

    const cases: Array<{
      name: string;
      graph: FlowGraph;
      facts?: Partial<FlowPaymentFacts>;
      payment?: Partial<RoutingPaymentProjection>;
      accounts?: RoutableAccount[];
      expected: string[] | { reason: string; message: RegExp; path?: string[] };
    }> = [
      {
        name: 'decline reached before any acquirer -> declined_by_flow',
        graph: declineFirst,
        facts: { amount: 2_000_000 },
        expected: { reason: 'declined_by_flow', message: /declined the payment at node no/, path: ['t:next', 'c:true', 'no:null'] },
      },
      { name: 'the same flow on its other branch routes', graph: declineFirst, facts: { amount: 500 }, expected: ['ca_1'] },
      {
        name: 'pinned account among the flow accounts: only it',
        graph: routeGraph({ strategy: 'priority', connectorAccountIds: ['ca_1', 'ca_2', 'ca_3'] }),
        payment: { pinnedConnectorAccountId: 'ca_2' },
        expected: ['ca_2'],
      },
      {
        name: 'pinned account not in the flow -> pinned_account_unavailable',
        graph: routeGraph({ strategy: 'priority', connectorAccountIds: ['ca_1', 'ca_2'] }),
        payment: { pinnedConnectorAccountId: 'ca_4' },
        expected: { reason: 'pinned_account_unavailable', message: /does not route to connector account ca_4/ },
      },
      {
        name: 'pinned account in the flow but disabled -> pinned_account_unavailable',
        graph: routeGraph({ strategy: 'priority', connectorAccountIds: ['ca_1', 'ca_2'] }),
        payment: { pinnedConnectorAccountId: 'ca_2' },
        accounts: [account('ca_1'), account('ca_2', { enabled: false })],
        expected: { reason: 'pinned_account_unavailable', message: /ca_2/ },
      },
      {
        name: 'split payment keeps only split-capable accounts, in flow order',
        graph: routeGraph({ strategy: 'priority', connectorAccountIds: ['ca_1', 'ca_2', 'ca_3'] }),
        payment: { hasSplits: true },
        accounts: [account('ca_1'), account('ca_2', { capabilities: ['card', 'split'] }), account('ca_3', { capabilities: ['card', 'split'] })],
        expected: ['ca_2', 'ca_3'],
      },
      {
        name: 'split payment and no split-capable account -> split_not_supported',
        graph: routeGraph({ strategy: 'priority', connectorAccountIds: ['ca_1', 'ca_2'] }),
        payment: { hasSplits: true },
        expected: { reason: 'split_not_supported', message: /can execute a split payment/ },
      },
      {
        name: 'a split-capable account outside the flow does not count',
        graph: routeGraph({ strategy: 'priority', connectorAccountIds: ['ca_1'] }),
        payment: { hasSplits: true },
        accounts: [account('ca_1'), account('ca_9', { capabilities: ['card', 'split'] })],
        expected: { reason: 'split_not_supported', message: /split/ },
      },
      {
        name: 'every named account disabled -> no_account_available',
        graph: routeGraph({ strategy: 'priority', connectorAccountIds: ['ca_1', 'ca_2'] }),
        accounts: [account('ca_1', { enabled: false }), account('ca_2', { enabled: false }), account('ca_3')],
        expected: { reason: 'no_account_available', message: /No connector account of the flow is enabled for card/, path: ['t:next', 'r:error[]'] },
      },
      {
        name: 'named account unknown to the environment -> no_account_available',
        graph: graph([n('t', 'trigger'), acq('a', 'ca_x')], [e('t', 'a')]),
        expected: { reason: 'no_account_available', message: /enabled for card/ },
      },
      {
        name: 'no usable account, then decline on the error port -> no_account_available (not declined_by_flow)',
        graph: graph([n('t', 'trigger'), acq('a', 'ca_1'), no], [e('t', 'a'), e('a', 'no', 'error')]),
        accounts: [account('ca_1', { capabilities: ['pix'] })],
        expected: { reason: 'no_account_available', message: /enabled for card/, path: ['t:next', 'a:error[]', 'no:null'] },
      },
      {
        name: 'a port leading nowhere -> flow_incomplete',
        graph: graph([n('t', 'trigger'), n('c', 'condition', { field: 'amount', operator: 'gt', value: 0 }), acq('a', 'ca_1')], [e('t', 'c'), e('c', 'a', 'false')]),
        expected: { reason: 'flow_incomplete', message: /stops at c \(port true leads nowhere\)/, path: ['t:next', 'c:true'] },
      },
      {
        name: 'no trigger edge -> flow_incomplete',
        graph: graph([n('t', 'trigger'), acq('a', 'ca_1')], []),
        expected: { reason: 'flow_incomplete', message: /stops at t/, path: ['t:next'] },
      },
    ];

    for (const c of cases) {
      it(c.name, () => {
        const decision = run(c.graph, { facts: c.facts, payment: c.payment, accounts: c.accounts });
        if (Array.isArray(c.expected)) {
          expect(ids(decision)).to.deep.equal(c.expected);
          return;
        }
        expect(decision.ok).to.equal(false);
        expect(decision.reason).to.equal(c.expected.reason);
        expect(decision.message).to.match(c.expected.message);
        if (c.expected.path) expect(pathOf(decision)).to.deep.equal(c.expected.path);
      });
    }

    it('does not mutate its inputs', () => {
      const g = routeGraph({ strategy: 'lowest_cost', connectorAccountIds: ['ca_1', 'ca_2', 'ca_3'] });
      const before = JSON.stringify(g);
      const accounts = [...ACCOUNTS];
      run(g, { accounts });
      expect(JSON.stringify(g)).to.equal(before);
      expect(accounts.map((a) => a.id)).to.deep.equal(['ca_1', 'ca_2', 'ca_3', 'ca_4']);
    });
  });
});
