import { expect } from 'chai';
import {
  FLOW_NODE_TYPES,
  FlowGraph,
  FlowNodeType,
  GraphProblem,
  edgePort,
  exitPorts,
  indexGraph,
  portsOfType,
  structuralProblems,
} from '../../../../domain/flow/flow-graph';
import { e, graph, minimalGraph, n } from './fixtures';

describe('flow graph', () => {
  describe('exitPorts', () => {
    // Written out from contract.md 4 / builder-metadata, not derived from the code under test.
    const EXPECTED: Record<Exclude<FlowNodeType, 'switch'>, string[]> = {
      trigger: ['next'],
      condition: ['true', 'false'],
      set_variable: ['next'],
      acquirer: ['approved', 'declined', 'error'],
      route: ['approved', 'declined', 'error'],
      antifraud: ['approve', 'review', 'decline', 'error'],
      zero_auth: ['valid', 'invalid', 'unavailable'],
      three_ds: ['authenticated', 'failed', 'unavailable'],
      review: ['approved', 'declined'],
      retry: ['retry', 'exhausted'],
      capture: ['next'],
      split: ['next'],
      delay: ['next'],
      webhook: ['next'],
      approve: [],
      decline: [],
    };

    for (const [type, ports] of Object.entries(EXPECTED) as Array<[Exclude<FlowNodeType, 'switch'>, string[]]>) {
      it(`${type} -> [${ports.join(', ')}]`, () => {
        expect(exitPorts({ type, data: {} })).to.deep.equal(ports);
        expect(portsOfType(type)).to.deep.equal(ports);
      });
    }

    it('covers every node type', () => {
      expect([...Object.keys(EXPECTED), 'switch'].sort()).to.deep.equal([...FLOW_NODE_TYPES].sort());
    });

    const switches: Array<{ name: string; data: Record<string, unknown>; expected: string[] }> = [
      { name: 'three cases', data: { field: 'card.brand', cases: [{ value: 'visa' }, { value: 'elo' }, { value: 'amex' }] }, expected: ['case_1', 'case_2', 'case_3', 'default'] },
      { name: 'one case', data: { cases: [{ value: 'x' }] }, expected: ['case_1', 'default'] },
      { name: 'no cases', data: { cases: [] }, expected: ['default'] },
      { name: 'cases missing', data: {}, expected: ['default'] },
      { name: 'cases not a list', data: { cases: 'visa' }, expected: ['default'] },
    ];
    for (const c of switches) {
      it(`switch, ${c.name} -> [${c.expected.join(', ')}]`, () => {
        expect(exitPorts({ type: 'switch', data: c.data })).to.deep.equal(c.expected);
      });
    }

    it('portsOfType(switch) describes the case ports generically', () => {
      expect(portsOfType('switch')).to.deep.equal(['case_1', '...', 'case_n', 'default']);
    });

    it('returns a fresh array (callers may not corrupt the table)', () => {
      const ports = exitPorts({ type: 'condition', data: {} });
      ports.push('extra');
      expect(exitPorts({ type: 'condition', data: {} })).to.deep.equal(['true', 'false']);
    });
  });

  describe('edgePort', () => {
    const cases: Array<{ name: string; sourcePort?: string | null; type: FlowNodeType; data?: Record<string, unknown>; expected: string | null }> = [
      { name: 'named port wins', sourcePort: 'false', type: 'condition', expected: 'false' },
      { name: 'single-port node, omitted port', type: 'trigger', expected: 'next' },
      { name: 'single-port node, null port', sourcePort: null, type: 'set_variable', expected: 'next' },
      { name: 'several ports, omitted port', type: 'acquirer', expected: null },
      { name: 'terminal node, omitted port', type: 'approve', expected: null },
      { name: 'switch without cases has only default', type: 'switch', data: { cases: [] }, expected: 'default' },
      { name: 'switch with cases, omitted port', type: 'switch', data: { cases: [{ value: 'a' }] }, expected: null },
    ];
    for (const c of cases) {
      it(c.name, () => {
        expect(edgePort({ id: 'x', source: 's', target: 't', sourcePort: c.sourcePort }, { type: c.type, data: c.data ?? {} })).to.equal(c.expected);
      });
    }
  });

  describe('structuralProblems', () => {
    const sw = n('sw', 'switch', { field: 'card.brand', cases: [{ value: 'visa' }, { value: 'elo' }] });

    const cases: Array<{ name: string; graph: FlowGraph; expected: GraphProblem[] | Array<{ param: string; match: RegExp }> }> = [
      { name: 'a valid graph has none', graph: minimalGraph(), expected: [] },
      { name: 'an empty graph has none', graph: graph([], []), expected: [] },
      {
        name: 'duplicate node id',
        graph: graph([n('t', 'trigger'), n('a', 'approve'), n('a', 'decline')], [e('t', 'a')]),
        expected: [{ param: 'body.graph.nodes[2].id', match: /Node id a is used twice/ }],
      },
      {
        name: 'duplicate edge id',
        graph: graph([n('t', 'trigger'), n('c', 'condition'), n('y', 'decline'), n('z', 'decline')], [e('t', 'c', undefined, 'dup'), e('c', 'y', 'true', 'ok'), e('c', 'z', 'false', 'dup')]),
        expected: [{ param: 'body.graph.edges[2].id', match: /Edge id dup is used twice/ }],
      },
      {
        name: 'unknown source',
        graph: graph([n('t', 'trigger'), n('d', 'decline')], [e('t', 'd'), e('ghost', 'd', undefined, 'g')]),
        expected: [{ param: 'body.graph.edges[1].source', match: /leaves node ghost, which is not in the graph/ }],
      },
      {
        name: 'unknown target',
        graph: graph([n('t', 'trigger')], [e('t', 'ghost')]),
        expected: [{ param: 'body.graph.edges[0].target', match: /enters node ghost, which is not in the graph/ }],
      },
      {
        name: 'unknown source and target report both',
        graph: graph([], [e('x', 'y')]),
        expected: [
          { param: 'body.graph.edges[0].source', match: /leaves node x/ },
          { param: 'body.graph.edges[0].target', match: /enters node y/ },
        ],
      },
      {
        name: 'self-loop',
        graph: graph([n('v', 'set_variable', { name: 'x', value: 1 })], [e('v', 'v')]),
        expected: [{ param: 'body.graph.edges[0].target', match: /leads from node v to itself/ }],
      },
      {
        name: 'edge from an approve node',
        graph: graph([n('ok', 'approve'), n('no', 'decline')], [e('ok', 'no')]),
        expected: [{ param: 'body.graph.edges[0].source', match: /Node ok \(approve\) ends the flow/ }],
      },
      {
        name: 'edge from a decline node, even naming a port',
        graph: graph([n('ok', 'approve'), n('no', 'decline')], [e('no', 'ok', 'next')]),
        expected: [{ param: 'body.graph.edges[0].source', match: /Node no \(decline\) ends the flow/ }],
      },
      {
        name: 'missing sourcePort on a condition',
        graph: graph([n('c', 'condition'), n('d', 'decline')], [e('c', 'd')]),
        expected: [{ param: 'body.graph.edges[0].sourcePort', match: /must name the port it leaves condition node c from \(true, false\)/ }],
      },
      {
        name: 'missing sourcePort on an acquirer',
        graph: graph([n('a', 'acquirer'), n('d', 'decline')], [e('a', 'd')]),
        expected: [{ param: 'body.graph.edges[0].sourcePort', match: /\(approved, declined, error\)/ }],
      },
      {
        name: 'unknown port',
        graph: graph([n('a', 'acquirer'), n('d', 'decline')], [e('a', 'd', 'timeout')]),
        expected: [{ param: 'body.graph.edges[0].sourcePort', match: /Node a \(acquirer\) has no port timeout; its ports are approved, declined, error/ }],
      },
      {
        name: 'a port of another type (next on a condition)',
        graph: graph([n('c', 'condition'), n('d', 'decline')], [e('c', 'd', 'next')]),
        expected: [{ param: 'body.graph.edges[0].sourcePort', match: /has no port next/ }],
      },
      {
        name: 'two edges from one port',
        graph: graph([n('c', 'condition'), n('x', 'decline'), n('y', 'decline')], [e('c', 'x', 'true', 'e1'), e('c', 'y', 'true', 'e2')]),
        expected: [{ param: 'body.graph.edges[1].sourcePort', match: /Port true of node c already has an edge/ }],
      },
      {
        name: 'two edges from a single port, one implicit and one named',
        graph: graph([n('t', 'trigger'), n('x', 'decline'), n('y', 'decline')], [e('t', 'x', undefined, 'e1'), e('t', 'y', 'next', 'e2')]),
        expected: [{ param: 'body.graph.edges[1].sourcePort', match: /Port next of node t already has an edge/ }],
      },
      {
        name: 'switch ports case_1, case_2 and default are accepted',
        graph: graph([sw, n('a', 'decline'), n('b', 'decline'), n('c', 'decline')], [e('sw', 'a', 'case_1'), e('sw', 'b', 'case_2'), e('sw', 'c', 'default')]),
        expected: [],
      },
      {
        name: 'switch port beyond its cases',
        graph: graph([sw, n('a', 'decline')], [e('sw', 'a', 'case_3')]),
        expected: [{ param: 'body.graph.edges[0].sourcePort', match: /Node sw \(switch\) has no port case_3; its ports are case_1, case_2, default/ }],
      },
      {
        name: 'switch port case_0',
        graph: graph([sw, n('a', 'decline')], [e('sw', 'a', 'case_0')]),
        expected: [{ param: 'body.graph.edges[0].sourcePort', match: /has no port case_0/ }],
      },
      {
        name: 'switch with cases needs a named port',
        graph: graph([sw, n('a', 'decline')], [e('sw', 'a')]),
        expected: [{ param: 'body.graph.edges[0].sourcePort', match: /must name the port/ }],
      },
      {
        name: 'switch without cases: the unnamed edge is default',
        graph: graph([n('sw', 'switch', { cases: [] }), n('a', 'decline')], [e('sw', 'a')]),
        expected: [],
      },
      {
        name: 'every fault is reported, in edge order',
        graph: graph([n('t', 'trigger'), n('t', 'trigger'), n('ok', 'approve')], [e('t', 'ok', undefined, 'x'), e('ok', 't', undefined, 'x')]),
        expected: [
          { param: 'body.graph.nodes[1].id', match: /used twice/ },
          { param: 'body.graph.edges[1].id', match: /used twice/ },
          { param: 'body.graph.edges[1].source', match: /ends the flow/ },
        ],
      },
    ];

    for (const c of cases) {
      it(c.name, () => {
        const problems = structuralProblems(c.graph);
        expect(problems.map((p) => p.param)).to.deep.equal(c.expected.map((p) => p.param));
        c.expected.forEach((expected, i) => {
          if ('match' in expected) expect(problems[i]!.message).to.match(expected.match);
        });
      });
    }

    it('self-loop on a terminal reports both the loop and the terminal', () => {
      const problems = structuralProblems(graph([n('no', 'decline')], [e('no', 'no')]));
      expect(problems.map((p) => p.message)).to.have.length(2);
      expect(problems[0]!.message).to.match(/to itself/);
      expect(problems[1]!.message).to.match(/ends the flow/);
    });

    it('does not check completeness (unwired ports are fine for a draft)', () => {
      expect(structuralProblems(graph([n('t', 'trigger'), n('c', 'condition'), n('a', 'acquirer')], []))).to.deep.equal([]);
    });
  });

  describe('indexGraph', () => {
    it('maps each wired port to its target node', () => {
      const g = graph(
        [n('t', 'trigger'), n('c', 'condition'), n('a', 'acquirer', { connectorAccountId: 'ca_1' }), n('ok', 'approve'), n('no', 'decline')],
        [e('t', 'c'), e('c', 'a', 'true'), e('c', 'no', 'false'), e('a', 'ok', 'approved'), e('a', 'no', 'declined')],
      );
      const index = indexGraph(g);
      expect([...index.nodes.keys()]).to.deep.equal(['t', 'c', 'a', 'ok', 'no']);
      expect(index.nodes.get('a')).to.equal(g.nodes[2]);
      expect([...index.next.get('t')!.entries()].map(([p, t]) => [p, t.id])).to.deep.equal([['next', 'c']]);
      expect([...index.next.get('c')!.entries()].map(([p, t]) => [p, t.id])).to.deep.equal([['true', 'a'], ['false', 'no']]);
      expect(index.next.get('a')!.get('approved')!.id).to.equal('ok');
      expect(index.next.get('a')!.get('declined')!.id).to.equal('no');
      expect(index.next.get('a')!.has('error')).to.equal(false);
      expect(index.next.has('ok')).to.equal(false);
      expect(index.next.has('no')).to.equal(false);
    });

    it('resolves switch case ports', () => {
      const g = graph(
        [n('sw', 'switch', { cases: [{ value: 'a' }, { value: 'b' }] }), n('x', 'decline'), n('y', 'decline'), n('z', 'decline')],
        [e('sw', 'x', 'case_1'), e('sw', 'y', 'case_2'), e('sw', 'z', 'default')],
      );
      const ports = indexGraph(g).next.get('sw')!;
      expect([...ports.entries()].map(([p, t]) => [p, t.id])).to.deep.equal([['case_1', 'x'], ['case_2', 'y'], ['default', 'z']]);
    });

    it('skips edges with an unknown source, an unknown target or no resolvable port', () => {
      const g = graph(
        [n('t', 'trigger'), n('a', 'acquirer'), n('no', 'decline')],
        [e('ghost', 'no'), e('t', 'ghost'), e('a', 'no'), e('a', 'no', 'error')],
      );
      const index = indexGraph(g);
      expect(index.next.has('ghost')).to.equal(false);
      expect(index.next.has('t')).to.equal(false);
      expect([...index.next.get('a')!.keys()]).to.deep.equal(['error']);
    });
  });
});
