import { expect } from 'chai';
import { FlowGraph } from '../../../../domain/flow/flow-graph';
import { FLOW_STATUSES, FLOW_TRANSITIONS, FLOW_TRIGGERS, Flow, FlowPrimitives, FlowStatus, FlowTrigger } from '../../../../domain/flow/flow';
import { DomainError, InvalidStateError } from '../../../../domain/shared/domain-error';
import { allowedTriggers, transition } from '../../../../domain/shared/state-machine';
import { e, graph, minimalGraph, n } from './fixtures';

const T0 = new Date('2026-03-01T10:00:00.000Z');
const T1 = new Date('2026-03-01T11:00:00.000Z');
const T2 = new Date('2026-03-01T12:00:00.000Z');
const T3 = new Date('2026-03-01T13:00:00.000Z');

function newFlow(g: FlowGraph = minimalGraph()): Flow {
  return Flow.create({ id: 'flow_1', organizationId: 'org_1', environment: 'sandbox', name: 'Main', triggerEvent: 'payment.authorization_requested', graph: g, now: T0 });
}

function flowIn(status: FlowStatus, overrides: Partial<FlowPrimitives> = {}): Flow {
  const base = newFlow().toPrimitives();
  const published = status === 'published';
  return Flow.fromPrimitives({
    ...base,
    status,
    active: published,
    publishedVersion: published ? 1 : null,
    latestVersion: status === 'draft' ? 0 : 1,
    draftVersion: status === 'draft' ? null : 1,
    ...overrides,
  });
}

function thrown(fn: () => unknown): DomainError {
  try {
    fn();
  } catch (error) {
    expect(error).to.be.instanceOf(DomainError);
    return error as DomainError;
  }
  expect.fail('expected a DomainError');
}

/** Each trigger through the aggregate's own method. */
const ACT: Record<FlowTrigger, (flow: Flow) => unknown> = {
  edit: (flow) => flow.edit({ name: 'Renamed' }, T1),
  publish: (flow) => flow.publish({ draftMatchesLatest: false, now: T1 }),
  unpublish: (flow) => flow.unpublish(T1),
  delete: (flow) => flow.markDeleted(T1),
};

/** Written out by hand from contract.md 4 (not derived from the table under test). */
const EXPECTED: Record<FlowStatus, Partial<Record<FlowTrigger, FlowStatus>>> = {
  draft: { edit: 'draft', publish: 'published', delete: 'deleted' },
  published: { edit: 'published', publish: 'published', unpublish: 'draft' },
  deleted: {},
};

describe('flow aggregate', () => {
  describe('transitions', () => {
    for (const state of FLOW_STATUSES) {
      for (const trigger of FLOW_TRIGGERS) {
        const expected = EXPECTED[state][trigger];
        if (expected) {
          it(`${state} --${trigger}--> ${expected} (table and aggregate)`, () => {
            expect(transition('flow', FLOW_TRANSITIONS, state, trigger)).to.equal(expected);
            const flow = flowIn(state);
            ACT[trigger](flow);
            expect(flow.status).to.equal(expected);
            expect(flow.toPrimitives().updatedAt).to.equal(T1.toISOString());
          });
        } else {
          it(`${state} refuses ${trigger} (table and aggregate)`, () => {
            const fromTable = thrown(() => transition('flow', FLOW_TRANSITIONS, state, trigger));
            expect(fromTable).to.be.instanceOf(InvalidStateError);
            expect(fromTable.code).to.equal('invalid_state');
            expect(fromTable.meta).to.include({ state, trigger });

            const flow = flowIn(state);
            const before = flow.toPrimitives();
            const error = thrown(() => ACT[trigger](flow));
            expect(error.code).to.equal('invalid_state');
            expect(error.message).to.match(new RegExp(`The flow is ${state}; ${trigger} is not allowed`));
            expect(flow.toPrimitives()).to.deep.equal(before);
          });
        }
      }
    }

    it('lists the allowed triggers of each state', () => {
      expect(allowedTriggers(FLOW_TRANSITIONS, 'draft').sort()).to.deep.equal(['delete', 'edit', 'publish']);
      expect(allowedTriggers(FLOW_TRANSITIONS, 'published').sort()).to.deep.equal(['edit', 'publish', 'unpublish']);
      expect(allowedTriggers(FLOW_TRANSITIONS, 'deleted')).to.deep.equal([]);
    });
  });

  describe('create', () => {
    it('starts as an inactive draft with no version', () => {
      const flow = Flow.create({
        id: 'flow_9',
        organizationId: 'org_1',
        environment: 'live',
        name: 'Ticket',
        triggerEvent: 'payment.authorization_requested',
        template: 'roteamento-por-ticket',
        graph: minimalGraph(),
        now: T0,
      });
      expect(flow.id).to.equal('flow_9');
      expect(flow.toPrimitives()).to.deep.equal({
        id: 'flow_9',
        organizationId: 'org_1',
        environment: 'live',
        name: 'Ticket',
        description: null,
        triggerEvent: 'payment.authorization_requested',
        template: 'roteamento-por-ticket',
        graph: minimalGraph(),
        status: 'draft',
        active: false,
        publishedVersion: null,
        latestVersion: 0,
        draftVersion: null,
        publishedAt: null,
        createdAt: T0.toISOString(),
        updatedAt: T0.toISOString(),
      });
    });

    it('accepts an incomplete but structurally sound draft', () => {
      expect(newFlow(graph([n('t', 'trigger'), n('c', 'condition')], [e('t', 'c')])).status).to.equal('draft');
    });

    it('refuses a structurally broken graph with validation_failed and every problem in details', () => {
      const broken = graph([n('t', 'trigger'), n('t', 'approve'), n('c', 'condition')], [e('t', 'ghost'), e('c', 't')]);
      const error = thrown(() => newFlow(broken));
      expect(error.code).to.equal('validation_failed');
      expect(error.meta.param).to.equal('body.graph.nodes[1].id');
      expect(error.message).to.match(/Node id t is used twice/);
      expect(error.meta.details!.map((d) => d.param)).to.deep.equal(['body.graph.nodes[1].id', 'body.graph.edges[0].target', 'body.graph.edges[0].source', 'body.graph.edges[1].sourcePort']);
    });

    it('toPrimitives is a copy', () => {
      const flow = newFlow();
      flow.toPrimitives().graph.nodes.push(n('x', 'decline'));
      expect(flow.toPrimitives().graph.nodes).to.have.length(4);
    });
  });

  describe('versions', () => {
    it('the first publish creates version 1 and makes the flow active', () => {
      const flow = newFlow();
      expect(flow.publish({ draftMatchesLatest: false, now: T1 })).to.deep.equal({ version: 1, created: true });
      expect(flow.toPrimitives()).to.include({ status: 'published', active: true, publishedVersion: 1, latestVersion: 1, draftVersion: 1, publishedAt: T1.toISOString(), updatedAt: T1.toISOString() });
    });

    it('re-publishing the unchanged draft keeps version 1 (draftVersion)', () => {
      const flow = newFlow();
      flow.publish({ draftMatchesLatest: false, now: T1 });
      expect(flow.publish({ draftMatchesLatest: false, now: T2 })).to.deep.equal({ version: 1, created: false });
      expect(flow.toPrimitives()).to.include({ publishedVersion: 1, latestVersion: 1, draftVersion: 1, publishedAt: T2.toISOString() });
    });

    it('re-publishing a graph edited back to the latest keeps version 1 (draftMatchesLatest)', () => {
      const flow = newFlow();
      flow.publish({ draftMatchesLatest: false, now: T1 });
      flow.edit({ graph: minimalGraph() }, T2);
      expect(flow.toPrimitives().draftVersion).to.equal(null);
      expect(flow.publish({ draftMatchesLatest: true, now: T3 })).to.deep.equal({ version: 1, created: false });
      expect(flow.toPrimitives()).to.include({ publishedVersion: 1, latestVersion: 1, draftVersion: 1 });
    });

    it('draftMatchesLatest on the first publish still creates version 1 (there is no latest)', () => {
      const flow = newFlow();
      expect(flow.publish({ draftMatchesLatest: true, now: T1 })).to.deep.equal({ version: 1, created: true });
    });

    it('editing the graph then publishing creates version 2', () => {
      const flow = newFlow();
      flow.publish({ draftMatchesLatest: false, now: T1 });
      flow.edit({ graph: minimalGraph('ca_2') }, T2);
      expect(flow.status).to.equal('published');
      expect(flow.toPrimitives()).to.include({ publishedVersion: 1, draftVersion: null, latestVersion: 1 });
      expect(flow.publish({ draftMatchesLatest: false, now: T3 })).to.deep.equal({ version: 2, created: true });
      expect(flow.toPrimitives()).to.include({ publishedVersion: 2, latestVersion: 2, draftVersion: 2 });
    });

    it('editing only the name keeps the draft identical to its version', () => {
      const flow = newFlow();
      flow.publish({ draftMatchesLatest: false, now: T1 });
      flow.edit({ name: 'Renamed', description: 'why' }, T2);
      expect(flow.toPrimitives()).to.include({ name: 'Renamed', description: 'why', draftVersion: 1 });
      expect(flow.publish({ draftMatchesLatest: false, now: T3 })).to.deep.equal({ version: 1, created: false });
    });

    it('publish {version: 1} rolls back without creating a version', () => {
      const flow = newFlow();
      flow.publish({ draftMatchesLatest: false, now: T1 });
      flow.edit({ graph: minimalGraph('ca_2') }, T2);
      flow.publish({ draftMatchesLatest: false, now: T2 });
      expect(flow.publish({ version: 1, draftMatchesLatest: false, now: T3 })).to.deep.equal({ version: 1, created: false });
      expect(flow.toPrimitives()).to.include({ status: 'published', active: true, publishedVersion: 1, latestVersion: 2, publishedAt: T3.toISOString() });
    });

    it('publish {version} from draft re-publishes that version', () => {
      const flow = newFlow();
      flow.publish({ draftMatchesLatest: false, now: T1 });
      flow.unpublish(T2);
      expect(flow.publish({ version: 1, draftMatchesLatest: false, now: T3 })).to.deep.equal({ version: 1, created: false });
      expect(flow.toPrimitives()).to.include({ status: 'published', active: true, publishedVersion: 1, latestVersion: 1 });
    });

    const unknownVersions: Array<{ name: string; latest: number; version: number }> = [
      { name: 'a version above the latest', latest: 2, version: 9 },
      { name: 'version 0', latest: 2, version: 0 },
      { name: 'a negative version', latest: 2, version: -1 },
      { name: 'version 1 before any publish', latest: 0, version: 1 },
    ];
    for (const c of unknownVersions) {
      it(`publish ${c.name} throws validation_failed`, () => {
        const flow = newFlow();
        for (let i = 0; i < c.latest; i++) {
          flow.edit({ graph: minimalGraph(`ca_${i}`) }, T1);
          flow.publish({ draftMatchesLatest: false, now: T1 });
        }
        const error = thrown(() => flow.publish({ version: c.version, draftMatchesLatest: false, now: T2 }));
        expect(error.code).to.equal('validation_failed');
        expect(error.meta.param).to.equal('body.version');
        expect(error.message).to.match(new RegExp(`has no version ${c.version} \\(latest: ${c.latest}\\)`));
        expect(flow.toPrimitives().latestVersion).to.equal(c.latest);
      });
    }

    it('a refused publish {version} leaves the flow unchanged', () => {
      const flow = newFlow();
      const before = flow.toPrimitives();
      thrown(() => flow.publish({ version: 1, draftMatchesLatest: false, now: T1 }));
      expect(flow.toPrimitives()).to.deep.equal(before);
    });

    it('unpublish clears publishedVersion and active, keeps the versions', () => {
      const flow = newFlow();
      flow.publish({ draftMatchesLatest: false, now: T1 });
      flow.unpublish(T2);
      expect(flow.toPrimitives()).to.include({ status: 'draft', active: false, publishedVersion: null, latestVersion: 1, draftVersion: 1, updatedAt: T2.toISOString() });
      // re-publishing the same draft re-uses version 1
      expect(flow.publish({ draftMatchesLatest: false, now: T3 })).to.deep.equal({ version: 1, created: false });
    });

    it('deactivate keeps it published but not active', () => {
      const flow = newFlow();
      flow.publish({ draftMatchesLatest: false, now: T1 });
      flow.deactivate(T2);
      expect(flow.toPrimitives()).to.include({ status: 'published', active: false, publishedVersion: 1, updatedAt: T2.toISOString() });
    });
  });

  describe('edit', () => {
    it('changes the trigger event before the first publish', () => {
      const flow = newFlow();
      flow.edit({ triggerEvent: 'subscription.renewal' }, T1);
      expect(flow.toPrimitives()).to.include({ triggerEvent: 'subscription.renewal', updatedAt: T1.toISOString() });
    });

    it('refuses a trigger event change once published (invalid_state), with nothing changed', () => {
      const flow = newFlow();
      flow.publish({ draftMatchesLatest: false, now: T1 });
      const before = flow.toPrimitives();
      const error = thrown(() => flow.edit({ triggerEvent: 'manual', name: 'Other' }, T2));
      expect(error.code).to.equal('invalid_state');
      expect(error.meta.param).to.equal('body.triggerEvent');
      expect(flow.toPrimitives()).to.deep.equal(before);
    });

    it('refuses a trigger event change after unpublishing too (a version exists)', () => {
      const flow = newFlow();
      flow.publish({ draftMatchesLatest: false, now: T1 });
      flow.unpublish(T2);
      expect(thrown(() => flow.edit({ triggerEvent: 'manual' }, T3)).code).to.equal('invalid_state');
      expect(flow.toPrimitives().triggerEvent).to.equal('payment.authorization_requested');
    });

    it('accepts the same trigger event after publishing', () => {
      const flow = newFlow();
      flow.publish({ draftMatchesLatest: false, now: T1 });
      flow.edit({ triggerEvent: 'payment.authorization_requested', name: 'Same' }, T2);
      expect(flow.toPrimitives()).to.include({ name: 'Same', triggerEvent: 'payment.authorization_requested' });
    });

    it('refuses a structurally broken graph with validation_failed and keeps the draft', () => {
      const flow = newFlow();
      const error = thrown(() => flow.edit({ graph: graph([n('a', 'approve')], [e('a', 'a')]) }, T1));
      expect(error.code).to.equal('validation_failed');
      expect(error.meta.details).to.have.length(2);
      expect(flow.toPrimitives().graph).to.deep.equal(minimalGraph());
    });

    it('a refused edit changes nothing (trigger event with a broken graph)', () => {
      const flow = newFlow();
      const before = flow.toPrimitives();
      thrown(() => flow.edit({ triggerEvent: 'manual', graph: graph([n('a', 'approve')], [e('a', 'a')]) }, T1));
      expect(flow.toPrimitives()).to.deep.equal(before);
    });

    it('description may be cleared with null; omitted fields are kept', () => {
      const flow = newFlow();
      flow.edit({ description: 'first' }, T1);
      flow.edit({ name: 'New' }, T2);
      expect(flow.toPrimitives()).to.include({ name: 'New', description: 'first' });
      flow.edit({ description: null }, T3);
      expect(flow.toPrimitives().description).to.equal(null);
    });
  });

  describe('markDeleted', () => {
    it('refused while published, allowed once unpublished', () => {
      const flow = newFlow();
      flow.publish({ draftMatchesLatest: false, now: T1 });
      const error = thrown(() => flow.markDeleted(T2));
      expect(error.code).to.equal('invalid_state');
      expect(flow.status).to.equal('published');
      flow.unpublish(T2);
      flow.markDeleted(T3);
      expect(flow.status).to.equal('deleted');
    });

    it('a deleted flow refuses everything', () => {
      const flow = newFlow();
      flow.markDeleted(T1);
      for (const trigger of FLOW_TRIGGERS) expect(thrown(() => ACT[trigger](flow)).code, trigger).to.equal('invalid_state');
    });
  });
});
