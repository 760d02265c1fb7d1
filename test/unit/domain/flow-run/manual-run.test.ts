import { expect } from 'chai';
import { walkManualRun } from '../../../../domain/flow-run/manual-run';
import type { FlowGraph } from '../../../../domain/flow/flow-graph';
import type { FlowPaymentFacts } from '../../../../domain/flow/flow-rules';

const node = (id: string, type: string, data: Record<string, unknown> = {}) => ({ id, type, position: { x: 0, y: 0 }, data }) as FlowGraph['nodes'][number];
const edge = (source: string, target: string, sourcePort?: string) => ({ id: `${source}-${target}`, source, target, ...(sourcePort ? { sourcePort } : {}) });
const facts = (change: Partial<FlowPaymentFacts> = {}): FlowPaymentFacts => ({
  amount: 1_000, currency: 'BRL', installments: 1, methodType: 'card', captureMethod: 'automatic', initiator: 'merchant', hasSplits: false, customerId: null, cardBrand: null, cardBin: null, metadata: {}, ...change,
});

describe('walkManualRun', () => {
  // trigger -> set_variable tier=gold -> switch on card.brand (visa | mastercard | default)
  const graph: FlowGraph = {
    nodes: [
      node('trigger', 'trigger'),
      node('tier', 'set_variable', { name: 'tier', value: 'gold' }),
      node('brand', 'switch', { field: 'card.brand', cases: [{ value: 'visa' }, { value: 'mastercard' }] }),
      node('gold', 'condition', { field: 'variables.tier', operator: 'eq', value: 'gold' }),
      node('hold', 'review'),
      node('decline', 'decline'),
    ],
    edges: [edge('trigger', 'tier'), edge('tier', 'brand'), edge('brand', 'gold', 'case_1'), edge('brand', 'decline', 'default'), edge('gold', 'hold', 'true'), edge('gold', 'decline', 'false')],
  };

  it('follows switches and variables to a node that acts, and stops there', () => {
    const result = walkManualRun(graph, facts({ cardBrand: 'VISA' }));
    expect(result.outcome).to.equal('stopped');
    expect(result.steps.map((s) => [s.nodeId, s.port])).to.deep.equal([['trigger', 'next'], ['tier', 'next'], ['brand', 'case_1'], ['gold', 'true'], ['hold', null]]);
    expect(result.variables).to.deep.equal({ tier: 'gold' });
  });

  it('ends declined at a decline node', () => {
    expect(walkManualRun(graph, facts({ cardBrand: 'elo' })).outcome).to.equal('declined');
  });

  it('says flow_incomplete when a port leads nowhere', () => {
    const result = walkManualRun(graph, facts({ cardBrand: 'mastercard' }));
    expect(result.outcome).to.equal('flow_incomplete');
    expect(result.steps.at(-1)).to.include({ nodeId: 'brand', port: 'case_2', note: 'Port case_2 leads nowhere.' });
  });
});
