import { expect } from 'chai';
import { startTestServiceWith, type Merchant, type TestService } from '../../support/test-service';
import type { ApiClient } from '../../support/api-client';
import { TimeoutInjector } from '../../support/faulty-payment-connectors';
import { eventually } from '../../support/eventually';
import { IDENTITY_MODULE } from '../../../infrastructure/main/identity.module';
import { CONNECTORS_MODULE } from '../../../infrastructure/main/connectors.module';
import { FLOWS_MODULE } from '../../../infrastructure/main/flows.module';
import { paymentsModule } from '../../../infrastructure/main/payments.module';
import { moduleList } from '../../../infrastructure/main/module';

const DEADLINE_MS = 400;

const card = (scenario = 'approved') => ({ token: `tok_sandbox_${scenario}`, brand: 'visa', bin: '411111', last4: '1111', expMonth: 12, expYear: 2030 });

type Node = { id: string; type: string; position: { x: number; y: number }; data?: Record<string, unknown> };
const node = (id: string, type: string, data: Record<string, unknown> = {}): Node => ({ id, type, position: { x: 0, y: 0 }, data });
const edge = (source: string, target: string, sourcePort?: string) => ({ id: `${source}-${sourcePort ?? 'next'}`, source, target, ...(sourcePort ? { sourcePort } : {}) });

/** trigger -> acquirer(first) -error-> acquirer(second); approved/declined to the terminals. */
function fallbackGraph(first: string, second: string) {
  return {
    nodes: [
      node('trigger', 'trigger'),
      node('first', 'acquirer', { connectorAccountId: first }),
      node('second', 'acquirer', { connectorAccountId: second }),
      node('approve', 'approve'),
      node('decline', 'decline'),
    ],
    edges: [
      edge('trigger', 'first'),
      edge('first', 'approve', 'approved'),
      edge('first', 'decline', 'declined'),
      edge('first', 'second', 'error'),
      edge('second', 'approve', 'approved'),
      edge('second', 'decline', 'declined'),
    ],
  };
}

/** trigger -> condition(amount >= threshold) -> true: acquirer(big) / false: acquirer(small). */
function ticketGraph(big: string, small: string, threshold = 5_000) {
  return {
    nodes: [
      node('trigger', 'trigger'),
      node('ticket', 'condition', { field: 'amount', operator: 'gte', value: threshold }),
      node('big', 'acquirer', { connectorAccountId: big }),
      node('small', 'acquirer', { connectorAccountId: small }),
      node('approve', 'approve'),
    ],
    edges: [edge('trigger', 'ticket'), edge('ticket', 'big', 'true'), edge('ticket', 'small', 'false'), edge('big', 'approve', 'approved'), edge('small', 'approve', 'approved')],
  };
}


/** A step of the payment's flow execution as node, type and the port it left by. */
const portOf = (step: { nodeId: string; type: string; port: string | null }) => ({ nodeId: step.nodeId, type: step.type, port: step.port });

describe('flows through the REST edge: drafts, publishing, versions, and payments routed by the published flow (PostgreSQL, sandbox over gRPC)', function () {
  this.timeout(60_000);
  let service: TestService;
  const injector = new TimeoutInjector();

  const createAccount = async (client: ApiClient, name: string, costBasisPoints: number, apiKey = 'sk_test') => {
    const r = await client.post('/v1/connector-accounts', { connectorSlug: 'sandbox', name, credentials: { merchantId: `m_${name}`, apiKey }, costBasisPoints });
    expect(r.status, JSON.stringify(r.body)).to.equal(201);
    return r.body.id as string;
  };
  const createFlow = async (client: ApiClient, body: Record<string, unknown>) => {
    const r = await client.post('/v1/flows', { name: 'Routing', ...body });
    expect(r.status, JSON.stringify(r.body)).to.equal(201);
    return r.body as { id: string } & Record<string, any>;
  };
  const publish = async (client: ApiClient, id: string, body: Record<string, unknown> = {}) => {
    const r = await client.post(`/v1/flows/${id}/publish`, body);
    expect(r.status, JSON.stringify(r.body)).to.equal(200);
    return r.body;
  };
  const flowRows = async (organizationId: string) =>
    Number((await service.core.orm.em.fork({ useContext: false }).execute<Array<{ n: string }>>('select count(*) as n from flows where organization_id = ?', [organizationId]))[0]!.n);

  before(async () => {
    service = await startTestServiceWith(moduleList().with(IDENTITY_MODULE).with(FLOWS_MODULE).with(CONNECTORS_MODULE).with(paymentsModule({ decorateConnectors: injector.decorate })), {
      transport: 'in-process',
      config: { connectorDeadlineMs: DEADLINE_MS },
    });
  });
  after(() => service?.stop());

  describe('builder metadata and drafts', () => {
    let m: Merchant;
    before(async () => {
      m = await service.merchant('Flow drafts');
    });

    it('GET /v1/flows/builder-metadata lists every node type with its exit ports, rule fields, operators and templates', async () => {
      const r = await m.sandbox.get('/v1/flows/builder-metadata');
      expect(r.status).to.equal(200);
      const types = Object.fromEntries(r.body.nodeTypes.map((t: any) => [t.type, t]));
      expect(Object.keys(types)).to.have.members([
        'trigger', 'condition', 'switch', 'set_variable', 'acquirer', 'antifraud', 'zero_auth', 'three_ds', 'review', 'route', 'capture', 'split', 'retry', 'delay', 'webhook', 'approve', 'decline',
      ]);
      expect(types.acquirer.ports).to.deep.equal(['approved', 'declined', 'error']);
      expect(types.antifraud.ports).to.deep.equal(['approve', 'review', 'decline', 'error']);
      expect(types.zero_auth.ports).to.deep.equal(['valid', 'invalid', 'unavailable']);
      expect(types.three_ds.ports).to.deep.equal(['authenticated', 'failed', 'unavailable']);
      expect(types.retry.ports).to.deep.equal(['retry', 'exhausted']);
      expect(types.condition.ports).to.deep.equal(['true', 'false']);
      expect(types.switch.ports).to.include('default');
      expect(types.approve.ports).to.deep.equal([]);
      expect(types.acquirer.publishable).to.equal(true);
      // Every node type runs now (publish-check.ts RUNNABLE_NODE_TYPES), the split node last.
      expect(types.antifraud.publishable).to.equal(true);
      expect(types.review.publishable).to.equal(true);
      expect(types.split.publishable).to.equal(true);
      expect(r.body.templates.map((t: any) => t.id)).to.have.members(['roteamento-por-ticket', 'recorrencia-com-retentativa', 'marketplace-split']);
      expect(r.body.operators.map((o: any) => o.operator)).to.include.members(['eq', 'gte', 'in']);
      expect(r.body.ruleFields.map((f: any) => f.field)).to.include.members(['amount', 'card.brand', 'metadata.<key>']);
    });

    it('POST /v1/flows creates a draft: a lone trigger by default, or the template graph and trigger event', async () => {
      const plain = await createFlow(m.sandbox, { name: 'Plain' });
      expect(plain.id).to.match(/^flw_/);
      expect(plain).to.include({ object: 'flow', status: 'draft', active: false, publishedVersion: null, latestVersion: null, triggerEvent: 'payment.authorization_requested' });
      expect(plain.graph.nodes.map((n: any) => n.type)).to.deep.equal(['trigger']);

      const fromTemplate = await createFlow(m.sandbox, { name: 'Retries', template: 'recorrencia-com-retentativa' });
      expect(fromTemplate).to.include({ template: 'recorrencia-com-retentativa', triggerEvent: 'subscription.renewal' });
      expect(fromTemplate.graph.nodes.map((n: any) => n.type)).to.include('retry');

      const got = await m.sandbox.get(`/v1/flows/${plain.id}`);
      expect(got.status).to.equal(200);
      expect(got.body).to.deep.equal(plain);
    });

    it('refuses bad drafts with 422 and stores nothing: unknown node type, unknown field, an edge into nowhere, a port the node lacks', async () => {
      const before = await flowRows(m.organizationId);
      const badType = await m.sandbox.post('/v1/flows', { name: 'x', graph: { nodes: [node('t', 'teleport')], edges: [] } });
      expect(badType.status).to.equal(422);
      expect(badType.body.error.code).to.equal('validation_failed');
      const unknownField = await m.sandbox.post('/v1/flows', { name: 'x', color: 'red' });
      expect(unknownField.status).to.equal(422);
      const dangling = await m.sandbox.post('/v1/flows', { name: 'x', graph: { nodes: [node('trigger', 'trigger')], edges: [edge('trigger', 'ghost')] } });
      expect(dangling.status).to.equal(422);
      expect(dangling.body.error.message).to.contain('ghost');
      const badPort = await m.sandbox.post('/v1/flows', {
        name: 'x',
        graph: { nodes: [node('trigger', 'trigger'), node('c', 'condition'), node('d', 'decline')], edges: [edge('trigger', 'c'), edge('c', 'd', 'maybe')] },
      });
      expect(badPort.status).to.equal(422);
      expect(badPort.body.error.param).to.equal('body.graph.edges[1].sourcePort');
      const tooMany = await m.sandbox.post('/v1/flows', { name: 'x', graph: { nodes: Array.from({ length: 121 }, (_, i) => node(`n${i}`, 'decline')), edges: [] } });
      expect(tooMany.status).to.equal(422);
      expect(await flowRows(m.organizationId)).to.equal(before);
    });

    it("refuses every bound of the spec's create body with 422 (and applies its defaults)", async () => {
      const before = await flowRows(m.organizationId);
      const trigger = node('trigger', 'trigger');
      const bad: Array<[string, Record<string, unknown>]> = [
        ['name missing', {}],
        ['name empty', { name: '' }],
        ['name 121 chars', { name: 'n'.repeat(121) }],
        ['description 501 chars', { name: 'x', description: 'd'.repeat(501) }],
        ['unknown trigger event', { name: 'x', triggerEvent: 'payment.created' }],
        ['unknown template', { name: 'x', template: 'cascata' }],
        ['no nodes', { name: 'x', graph: { nodes: [], edges: [] } }],
        ['node id 65 chars', { name: 'x', graph: { nodes: [{ ...trigger, id: 'i'.repeat(65) }] } }],
        ['node id empty', { name: 'x', graph: { nodes: [{ ...trigger, id: '' }] } }],
        ['node without type', { name: 'x', graph: { nodes: [{ id: 't', position: { x: 0, y: 0 } }] } }],
        ['node without position', { name: 'x', graph: { nodes: [{ id: 't', type: 'trigger' }] } }],
        ['position without y', { name: 'x', graph: { nodes: [{ ...trigger, position: { x: 1 } }] } }],
        ['position x not a number', { name: 'x', graph: { nodes: [{ ...trigger, position: { x: '1', y: 0 } }] } }],
        ['label 121 chars', { name: 'x', graph: { nodes: [{ ...trigger, label: 'l'.repeat(121) }] } }],
        ['notes 501 chars', { name: 'x', graph: { nodes: [{ ...trigger, notes: 'n'.repeat(501) }] } }],
        ['data not a map', { name: 'x', graph: { nodes: [{ ...trigger, data: [] }] } }],
        ['edge source 65 chars', { name: 'x', graph: { nodes: [trigger], edges: [{ source: 's'.repeat(65), target: 'trigger' }] } }],
        ['edge without target', { name: 'x', graph: { nodes: [trigger], edges: [{ source: 'trigger' }] } }],
        ['edge id 65 chars', { name: 'x', graph: { nodes: [trigger, node('d', 'decline')], edges: [{ id: 'e'.repeat(65), source: 'trigger', target: 'd' }] } }],
        ['unknown edge field', { name: 'x', graph: { nodes: [trigger, node('d', 'decline')], edges: [{ source: 'trigger', target: 'd', label: 'x' }] } }],
      ];
      for (const [what, body] of bad) {
        const r = await m.sandbox.post('/v1/flows', body);
        expect(r.status, what).to.equal(422);
        expect(r.body.error.code, what).to.equal('validation_failed');
      }
      expect(await flowRows(m.organizationId)).to.equal(before);

      const atBounds = await createFlow(m.sandbox, {
        name: 'n'.repeat(120),
        description: 'd'.repeat(500),
        graph: { nodes: [{ ...trigger, id: 'i'.repeat(64), label: 'l'.repeat(120), notes: 'n'.repeat(500) }, { id: 'd', type: 'decline', position: { x: 1.5, y: -2 } }] },
      });
      expect(atBounds.triggerEvent).to.equal('payment.authorization_requested');
      expect(atBounds.graph.nodes[1].data).to.deep.equal({});
      expect(atBounds.graph.edges).to.deep.equal([]);
    });

    it('an edge without id gets one; edges may omit the port of a single-port source', async () => {
      const f = await createFlow(m.sandbox, {
        graph: { nodes: [node('trigger', 'trigger'), node('decline', 'decline')], edges: [{ source: 'trigger', target: 'decline' }] },
      });
      expect(f.graph.edges).to.deep.equal([{ id: 'edge_1', source: 'trigger', target: 'decline' }]);
      // A generated id steps around the ids the body chose.
      const named = await createFlow(m.sandbox, {
        graph: {
          nodes: [node('trigger', 'trigger'), node('a', 'acquirer'), node('ok', 'approve'), node('no', 'decline')],
          edges: [{ source: 'trigger', target: 'a' }, { id: 'edge_1', source: 'a', target: 'ok', sourcePort: 'approved' }, { source: 'a', target: 'no', sourcePort: 'declined' }],
        },
      });
      expect(named.graph.edges.map((e: { id: string }) => e.id)).to.deep.equal(['edge_4', 'edge_1', 'edge_3']);
    });

    it('lists flows newest first with filters and cursor; another environment sees none of them (404 by id)', async () => {
      const other = await service.merchant('Flow listing');
      const a = await createFlow(other.sandbox, { name: 'A' });
      const b = await createFlow(other.sandbox, { name: 'B', template: 'recorrencia-com-retentativa' });
      const list = await other.sandbox.get('/v1/flows');
      expect(list.body.data.map((f: any) => f.id)).to.deep.equal([b.id, a.id]);
      const page = await other.sandbox.get('/v1/flows?limit=1');
      expect(page.body).to.include({ hasMore: true });
      const next = await other.sandbox.get(`/v1/flows?limit=1&startingAfter=${page.body.data[0].id}`);
      expect(next.body.data.map((f: any) => f.id)).to.deep.equal([a.id]);
      const renewals = await other.sandbox.get('/v1/flows?triggerEvent=subscription.renewal');
      expect(renewals.body.data.map((f: any) => f.id)).to.deep.equal([b.id]);
      expect((await other.live.get('/v1/flows')).body.data).to.deep.equal([]);
      expect((await other.live.get(`/v1/flows/${a.id}`)).status).to.equal(404);
      expect((await m.sandbox.get(`/v1/flows/${a.id}`)).status).to.equal(404);
      for (const attempt of [
        other.live.patch(`/v1/flows/${a.id}`, { name: 'taken' }),
        other.live.post(`/v1/flows/${a.id}/publish`, {}),
        other.live.post(`/v1/flows/${a.id}/unpublish`, {}),
        other.live.get(`/v1/flows/${a.id}/versions`),
        other.live.delete(`/v1/flows/${a.id}`),
      ]) {
        expect((await attempt).status).to.equal(404);
      }
      expect((await other.sandbox.get(`/v1/flows/${a.id}`)).body).to.include({ name: 'A', status: 'draft' });
    });

    it('POST /v1/flows with an Idempotency-Key creates one flow; the same key again answers the same flow', async () => {
      const other = await service.merchant('Flow idempotency');
      const headers = { 'Idempotency-Key': 'flow-create-1' };
      const first = await other.sandbox.post('/v1/flows', { name: 'Once' }, headers);
      const again = await other.sandbox.post('/v1/flows', { name: 'Once' }, headers);
      expect(first.status).to.equal(201);
      expect(again.status).to.equal(201);
      expect(again.body.id).to.equal(first.body.id);
      expect(await flowRows(other.organizationId)).to.equal(1);
    });

    it('PATCH edits the draft; the trigger event may change only before the first publish', async () => {
      const account = await createAccount(m.sandbox, 'patch-acq', 10);
      const f = await createFlow(m.sandbox, { name: 'Before' });
      const renamed = await m.sandbox.patch(`/v1/flows/${f.id}`, { name: 'After', description: 'edited', triggerEvent: 'manual' });
      expect(renamed.status).to.equal(200);
      expect(renamed.body).to.include({ name: 'After', description: 'edited', triggerEvent: 'manual' });
      await m.sandbox.patch(`/v1/flows/${f.id}`, { triggerEvent: 'payment.authorization_requested', graph: fallbackGraph(account, account) });
      // Same account twice is allowed (listed once at run time); publish, then the trigger is fixed.
      await publish(m.sandbox, f.id);
      const change = await m.sandbox.patch(`/v1/flows/${f.id}`, { triggerEvent: 'manual' });
      expect(change.status).to.equal(409);
      expect(change.body.error.code).to.equal('invalid_state');
      const broken = await m.sandbox.patch(`/v1/flows/${f.id}`, { graph: { nodes: [node('trigger', 'trigger')], edges: [edge('trigger', 'nowhere')] } });
      expect(broken.status).to.equal(422);
      expect((await m.sandbox.get(`/v1/flows/${f.id}`)).body.graph).to.deep.equal(fallbackGraph(account, account));
      await m.sandbox.post(`/v1/flows/${f.id}/unpublish`, {});
    });
  });

  describe('publishing and versions', () => {
    it('refuses a graph that cannot run with 422 and every fault in details; the flow stays a draft', async () => {
      const m = await service.merchant('Publish refused');
      const antifraudAccount = await m.sandbox.post('/v1/connector-accounts', { connectorSlug: 'sandbox-antifraud', name: 'af', credentials: { merchantId: 'm', apiKey: 'k' } });
      expect(antifraudAccount.status, JSON.stringify(antifraudAccount.body)).to.equal(201);
      const f = await createFlow(m.sandbox, {
        graph: {
          nodes: [
            node('trigger', 'trigger'),
            node('check', 'condition', { field: 'amount', operator: 'gte', value: 100 }),
            node('ghost', 'acquirer', { connectorAccountId: 'ca_does_not_exist' }),
            node('af', 'acquirer', { connectorAccountId: antifraudAccount.body.id }),
            node('review', 'review'),
            node('split', 'split'),
            node('approve', 'approve'),
          ],
          edges: [edge('trigger', 'check'), edge('check', 'ghost', 'true'), edge('ghost', 'af', 'error'), edge('af', 'review', 'error'), edge('review', 'split', 'approved'), edge('split', 'approve')],
        },
      });
      const r = await m.sandbox.post(`/v1/flows/${f.id}/publish`, {});
      expect(r.status).to.equal(422);
      expect(r.body.error.code).to.equal('validation_failed');
      const messages: string[] = r.body.error.details.map((d: any) => d.message);
      expect(messages.some((s) => s.includes('ca_does_not_exist'))).to.equal(true, 'unknown account');
      expect(messages.some((s) => s.includes('not an acquirer'))).to.equal(true, 'antifraud account in an acquirer node');
      expect(messages.some((s) => s.includes('Split node split can be reached after an acquirer call or a wait'))).to.equal(true, 'split after a review');
      expect(messages.some((s) => s.includes('Node split: splits lists 1 to 20 shares'))).to.equal(true, 'split without shares');
      expect(messages.some((s) => s.includes('Port false of node check'))).to.equal(true, 'unwired port');
      expect(messages.some((s) => s.includes('without an authorization'))).to.equal(true, 'approve reached from split');
      const after = await m.sandbox.get(`/v1/flows/${f.id}`);
      expect(after.body).to.include({ status: 'draft', active: false, latestVersion: null });
      expect((await m.sandbox.get(`/v1/flows/${f.id}/versions`)).body.data).to.deep.equal([]);
      const unknownParameter = await m.sandbox.get(`/v1/flows/${f.id}/versions?limit=abc`);
      expect(unknownParameter.status).to.equal(422);
      expect(unknownParameter.body.error).to.include({ code: 'validation_failed', param: 'query.limit' });

      // A template publishes once the merchant fills its accounts in; as created, its blank account is named.
      const renewal = await createFlow(m.sandbox, { template: 'recorrencia-com-retentativa' });
      const refused = await m.sandbox.post(`/v1/flows/${renewal.id}/publish`, {});
      expect(refused.status).to.equal(422);
      expect(refused.body.error.param).to.match(/^graph\.nodes\[\d+\]\.data\.connectorAccountId$/);
    });

    it('publishes versions: unchanged draft keeps its version, an edit makes the next, a stored version can be re-published (rollback)', async () => {
      const m = await service.merchant('Versions');
      const a = await createAccount(m.sandbox, 'a', 10);
      const b = await createAccount(m.sandbox, 'b', 20);
      const f = await createFlow(m.sandbox, { graph: fallbackGraph(a, b) });

      const v1 = await publish(m.sandbox, f.id);
      expect(v1).to.include({ status: 'published', active: true, publishedVersion: 1, latestVersion: 1, hasUnpublishedChanges: false });
      expect(v1.publishedAt).to.be.a('string');
      expect((await publish(m.sandbox, f.id)).publishedVersion).to.equal(1);

      const edited = await m.sandbox.patch(`/v1/flows/${f.id}`, { graph: fallbackGraph(b, a) });
      expect(edited.body).to.include({ publishedVersion: 1, hasUnpublishedChanges: true });
      const v2 = await publish(m.sandbox, f.id);
      expect(v2).to.include({ publishedVersion: 2, latestVersion: 2, hasUnpublishedChanges: false });

      const versions = await m.sandbox.get(`/v1/flows/${f.id}/versions`);
      expect(versions.status).to.equal(200);
      expect(versions.body.data.map((v: any) => [v.version, v.inForce])).to.deep.equal([[2, true], [1, false]]);
      expect(versions.body.data[1].graph).to.deep.equal(fallbackGraph(a, b));
      expect(versions.body.data[0].connectorAccountIds).to.have.members([a, b]);

      const rolledBack = await publish(m.sandbox, f.id, { version: 1 });
      expect(rolledBack).to.include({ publishedVersion: 1, latestVersion: 2 });
      expect((await m.sandbox.get(`/v1/flows/${f.id}/versions`)).body.data.map((v: any) => [v.version, v.inForce])).to.deep.equal([[2, false], [1, true]]);
      // The rollback runs version 1: account a first.
      expect((await m.sandbox.post('/v1/payments', { amount: 1000, card: card() })).body.connectorAccountId).to.equal(a);

      const missing = await m.sandbox.post(`/v1/flows/${f.id}/publish`, { version: 7 });
      expect(missing.status).to.equal(422);
      expect(missing.body.error.param).to.equal('body.version');
    });

    it('one active flow per trigger event: publishing another makes the first inactive but still published; unpublish and delete rules', async () => {
      const m = await service.merchant('Active flow');
      const a = await createAccount(m.sandbox, 'a', 10);
      const first = await createFlow(m.sandbox, { name: 'first', graph: fallbackGraph(a, a) });
      const second = await createFlow(m.sandbox, { name: 'second', graph: fallbackGraph(a, a) });
      await publish(m.sandbox, first.id);
      await publish(m.sandbox, second.id);
      expect((await m.sandbox.get(`/v1/flows/${first.id}`)).body).to.include({ status: 'published', active: false });
      expect((await m.sandbox.get(`/v1/flows/${second.id}`)).body).to.include({ status: 'published', active: true });
      expect((await m.sandbox.get('/v1/flows?status=published')).body.data).to.have.length(2);

      const refused = await m.sandbox.delete(`/v1/flows/${second.id}`);
      expect(refused.status).to.equal(409);
      expect(refused.body.error.code).to.equal('invalid_state');
      const unpublished = await m.sandbox.post(`/v1/flows/${second.id}/unpublish`, {});
      expect(unpublished.status).to.equal(200);
      expect(unpublished.body).to.include({ status: 'draft', active: false, publishedVersion: null, latestVersion: 1 });
      expect((await m.sandbox.post(`/v1/flows/${second.id}/unpublish`, {})).status).to.equal(409);
      const deleted = await m.sandbox.delete(`/v1/flows/${second.id}`);
      expect(deleted.status).to.equal(200);
      expect(deleted.body).to.include({ id: second.id, deleted: true });
      expect((await m.sandbox.get(`/v1/flows/${second.id}`)).status).to.equal(404);
      expect((await m.sandbox.get(`/v1/flows/${second.id}/versions`)).status).to.equal(404);
    });

    it('two flows of one trigger published at once: exactly one ends up active', async () => {
      const m = await service.merchant('Concurrent publish');
      const a = await createAccount(m.sandbox, 'a', 10);
      const flows = await Promise.all(Array.from({ length: 4 }, (_, i) => createFlow(m.sandbox, { name: `f${i}`, graph: fallbackGraph(a, a) })));
      const results = await Promise.all(flows.map((f) => m.sandbox.post(`/v1/flows/${f.id}/publish`, {})));
      expect(results.map((r) => r.status)).to.deep.equal([200, 200, 200, 200]);
      const listed = (await m.sandbox.get('/v1/flows')).body.data;
      expect(listed.filter((f: any) => f.active)).to.have.length(1);
      expect(listed.every((f: any) => f.status === 'published')).to.equal(true);
    });
  });

  describe('payments routed by the published flow', () => {
    it('a condition on the amount picks the acquirer (not the cheapest, as direct routing would); the full view shows the steps', async () => {
      const m = await service.merchant('Ticket routing');
      const cheap = await createAccount(m.sandbox, 'cheap', 10);
      const premium = await createAccount(m.sandbox, 'premium', 900);
      // Before any flow: direct routing, cheapest first.
      const direct = await m.sandbox.post('/v1/payments', { amount: 9_000, card: card() });
      expect(direct.body.connectorAccountId).to.equal(cheap);
      expect((await m.sandbox.get(`/v1/payments/${direct.body.id}`)).body.routing.strategy).to.equal('direct');

      const f = await createFlow(m.sandbox, { graph: ticketGraph(premium, cheap) });
      await publish(m.sandbox, f.id);
      const big = await m.sandbox.post('/v1/payments', { amount: 9_000, card: card() });
      expect(big.status).to.equal(201);
      expect(big.body).to.include({ status: 'captured', connectorAccountId: premium });
      const small = await m.sandbox.post('/v1/payments', { amount: 1_000, card: card() });
      expect(small.body.connectorAccountId).to.equal(cheap);

      const view = (await m.sandbox.get(`/v1/payments/${big.body.id}`)).body;
      expect(view.routing.strategy).to.equal('flow');
      expect(view.flowExecution).to.include({ flowId: f.id, name: 'Routing', version: 1, status: 'ended', waitingFor: null });
      expect(view.flowExecution.outcome).to.include({ result: 'approved', nodeId: 'approve' });
      expect(view.flowExecution.steps.map(portOf)).to.deep.equal([
        { nodeId: 'trigger', type: 'trigger', port: 'next' },
        { nodeId: 'ticket', type: 'condition', port: 'true' },
        { nodeId: 'big', type: 'acquirer', port: 'approved' },
        { nodeId: 'approve', type: 'approve', port: null },
      ]);
      // Each step has its timings; the acquirer's holds the call it made, with the attempt id the payment lists.
      for (const step of view.flowExecution.steps) expect(Date.parse(step.endedAt) - Date.parse(step.startedAt)).to.equal(step.durationMs).and.be.at.least(0);
      const acquirerStep = view.flowExecution.steps[2];
      expect(acquirerStep.calls.map((c: any) => [c.connectorAccountId, c.attemptId, c.result])).to.deep.equal([[premium, big.body.attempts[0].id, 'approved']]);
      // The flow's record is not part of the public payment object or its events' previousAttributes.
      expect(big.body).to.not.have.property('flowRun');
      const events = await service.core.orm.em.fork({ useContext: false }).execute<Array<{ data: any }>>('select data from events where object_id = ?', [big.body.id]);
      for (const e of events) {
        const data = typeof e.data === 'string' ? JSON.parse(e.data) : e.data;
        expect(data.object).to.not.have.property('flowRun');
        expect(data.previousAttributes ?? {}).to.not.have.property('flowRun');
      }
    });

    it('a route node orders its accounts by its strategy: priority as listed, lowest_cost by costBasisPoints, weighted by weight', async () => {
      const m = await service.merchant('Route strategies');
      const cheap = await createAccount(m.sandbox, 'cheap', 10);
      const premium = await createAccount(m.sandbox, 'premium', 900);
      const routeGraph = (data: Record<string, unknown>) => ({
        nodes: [node('trigger', 'trigger'), node('route', 'route', data), node('approve', 'approve')],
        edges: [edge('trigger', 'route'), edge('route', 'approve', 'approved')],
      });
      const f = await createFlow(m.sandbox, { graph: routeGraph({ strategy: 'priority', connectorAccountIds: [premium, cheap] }) });
      await publish(m.sandbox, f.id);
      expect((await m.sandbox.post('/v1/payments', { amount: 500, card: card() })).body.connectorAccountId).to.equal(premium);

      await m.sandbox.patch(`/v1/flows/${f.id}`, { graph: routeGraph({ strategy: 'lowest_cost', connectorAccountIds: [premium, cheap] }) });
      await publish(m.sandbox, f.id);
      expect((await m.sandbox.post('/v1/payments', { amount: 500, card: card() })).body.connectorAccountId).to.equal(cheap);

      // All the weight on one account: every payment goes there first.
      await m.sandbox.patch(`/v1/flows/${f.id}`, { graph: routeGraph({ strategy: 'weighted', connectorAccountIds: [cheap, premium], weights: [1, 1000] }) });
      await publish(m.sandbox, f.id);
      const routed = await Promise.all(Array.from({ length: 6 }, () => m.sandbox.post('/v1/payments', { amount: 500, card: card() })));
      expect(routed.filter((r) => r.body.connectorAccountId === premium).length).to.be.at.least(5);

      // A technical failure on the first account of the route falls back to the next one inside the node.
      injector.accountIds.add(premium);
      await m.sandbox.patch(`/v1/flows/${f.id}`, { graph: routeGraph({ strategy: 'priority', connectorAccountIds: [premium, cheap] }) });
      await publish(m.sandbox, f.id);
      const fell = await m.sandbox.post('/v1/payments', { amount: 500, card: card() });
      expect(fell.body.attempts.map((a: any) => [a.connectorAccountId, a.outcome])).to.deep.equal([
        [premium, 'timeout'],
        [cheap, 'approved'],
      ]);
      expect((await m.sandbox.get(`/v1/payments/${fell.body.id}`)).body.flowExecution.steps.map((s: any) => [s.nodeId, s.port])).to.deep.equal([
        ['trigger', 'next'],
        ['route', 'approved'],
        ['approve', null],
      ]);
      injector.accountIds.delete(premium);
      expect((await m.sandbox.get(`/v1/flows/${f.id}/versions`)).body.data).to.have.length(4);
    });

    it("falls back along the acquirer's error port when the first account times out, one attempt per account", async () => {
      const m = await service.merchant('Flow fallback');
      const slow = await createAccount(m.sandbox, 'slow', 900);
      const backup = await createAccount(m.sandbox, 'backup', 10);
      injector.accountIds.add(slow);
      const f = await createFlow(m.sandbox, { graph: fallbackGraph(slow, backup) });
      await publish(m.sandbox, f.id);
      const r = await m.sandbox.post('/v1/payments', { amount: 2_500, card: card(), captureMethod: 'manual' });
      expect(r.status).to.equal(201);
      expect(r.body).to.include({ status: 'authorized', connectorAccountId: backup, hasFallback: true });
      expect(r.body.attempts.map((a: any) => [a.connectorAccountId, a.outcome])).to.deep.equal([
        [slow, 'timeout'],
        [backup, 'approved'],
      ]);
      const view = (await m.sandbox.get(`/v1/payments/${r.body.id}`)).body;
      expect(view.flowExecution.steps.map(portOf)).to.deep.equal([
        { nodeId: 'trigger', type: 'trigger', port: 'next' },
        { nodeId: 'first', type: 'acquirer', port: 'error' },
        { nodeId: 'second', type: 'acquirer', port: 'approved' },
        { nodeId: 'approve', type: 'approve', port: null },
      ]);
      expect(view.flowExecution.steps[1].calls.map((c: any) => [c.connectorAccountId, c.result])).to.deep.equal([[slow, 'technical_failure']]);
      expect(view.flowExecution.steps[2].calls.map((c: any) => [c.connectorAccountId, c.result])).to.deep.equal([[backup, 'approved']]);
    });

    it('an issuer decline at the first acquirer ends routing through its declined port (no fallback)', async () => {
      const m = await service.merchant('Flow decline');
      const a = await createAccount(m.sandbox, 'a', 10);
      const b = await createAccount(m.sandbox, 'b', 20);
      const f = await createFlow(m.sandbox, { graph: fallbackGraph(a, b) });
      await publish(m.sandbox, f.id);
      const r = await m.sandbox.post('/v1/payments', { amount: 2_500, card: card('insufficient_funds') });
      expect(r.body.status).to.equal('failed');
      expect(r.body.decline.reason).to.equal('INSUFFICIENT_FUNDS');
      expect(r.body.attempts).to.have.length(1);
      const steps = (await m.sandbox.get(`/v1/payments/${r.body.id}`)).body.flowExecution.steps;
      expect(steps.slice(-2).map(portOf)).to.deep.equal([
        { nodeId: 'first', type: 'acquirer', port: 'declined' },
        { nodeId: 'decline', type: 'decline', port: null },
      ]);
    });

    it('a flow that declines before any acquirer fails the payment without a call, with payment.failed', async () => {
      const m = await service.merchant('Flow refuses');
      const a = await createAccount(m.sandbox, 'a', 10);
      const f = await createFlow(m.sandbox, {
        graph: {
          nodes: [node('trigger', 'trigger'), node('brand', 'switch', { field: 'card.brand', cases: [{ value: 'visa' }, { value: 'elo' }] }), node('acq', 'acquirer', { connectorAccountId: a }), node('no', 'decline'), node('yes', 'approve')],
          edges: [edge('trigger', 'brand'), edge('brand', 'acq', 'case_1'), edge('brand', 'no', 'case_2'), edge('brand', 'no', 'default'), edge('acq', 'yes', 'approved')],
        },
      });
      // Two edges from different ports to one node are fine; publish accepts it.
      await publish(m.sandbox, f.id);
      const elo = await m.sandbox.post('/v1/payments', { amount: 700, card: { ...card(), brand: 'elo' } });
      expect(elo.status).to.equal(201);
      expect(elo.body).to.include({ status: 'failed' });
      expect(elo.body.error).to.include({ code: 'declined_by_flow', stage: 'routing' });
      expect(elo.body.attempts).to.deep.equal([]);
      const view = (await m.sandbox.get(`/v1/payments/${elo.body.id}`)).body;
      expect(view.routing.stopReason).to.equal('declined_by_flow');
      expect(view.flowExecution.steps.map((s: any) => [s.nodeId, s.port])).to.deep.equal([['trigger', 'next'], ['brand', 'case_2'], ['no', null]]);
      await eventually(async () => {
        const rows = await service.core.orm.em.fork({ useContext: false }).execute<Array<{ type: string }>>('select type from events where object_id = ?', [elo.body.id]);
        return rows.some((row) => row.type === 'payment.failed');
      }, 2_000, 20);
      const visa = await m.sandbox.post('/v1/payments', { amount: 700, card: card() });
      expect(visa.body).to.include({ status: 'captured', connectorAccountId: a });
    });

    it('flowId runs a published flow that is not the active one; a draft or unknown flowId is refused with 422', async () => {
      const m = await service.merchant('FlowId');
      const a = await createAccount(m.sandbox, 'a', 10);
      const b = await createAccount(m.sandbox, 'b', 20);
      const toB = await createFlow(m.sandbox, { name: 'to b', graph: fallbackGraph(b, a) });
      const toA = await createFlow(m.sandbox, { name: 'to a', graph: fallbackGraph(a, b) });
      await publish(m.sandbox, toB.id);
      await publish(m.sandbox, toA.id); // toA is now the active one; toB stays published
      expect((await m.sandbox.post('/v1/payments', { amount: 500, card: card() })).body.connectorAccountId).to.equal(a);
      const named = await m.sandbox.post('/v1/payments', { amount: 500, card: card(), flowId: toB.id });
      expect(named.status).to.equal(201);
      expect(named.body.connectorAccountId).to.equal(b);
      expect((await m.sandbox.get(`/v1/payments/${named.body.id}`)).body.flowExecution.flowId).to.equal(toB.id);

      const draft = await createFlow(m.sandbox, { name: 'draft' });
      const refused = await m.sandbox.post('/v1/payments', { amount: 500, card: card(), flowId: draft.id });
      expect(refused.status).to.equal(422);
      expect(refused.body.error.param).to.equal('body.flowId');
      expect((await m.sandbox.post('/v1/payments', { amount: 500, card: card(), flowId: 'flw_nope' })).status).to.equal(422);
      const count = await service.core.orm.em.fork({ useContext: false }).execute<Array<{ n: string }>>('select count(*) as n from payments where organization_id = ?', [m.organizationId]);
      expect(Number(count[0]!.n)).to.equal(2);
    });

    it('after unpublishing the active flow, payments are routed directly again', async () => {
      const m = await service.merchant('Unpublish routing');
      const cheap = await createAccount(m.sandbox, 'cheap', 10);
      const premium = await createAccount(m.sandbox, 'premium', 900);
      const f = await createFlow(m.sandbox, { graph: fallbackGraph(premium, cheap) });
      await publish(m.sandbox, f.id);
      expect((await m.sandbox.post('/v1/payments', { amount: 500, card: card() })).body.connectorAccountId).to.equal(premium);
      await m.sandbox.post(`/v1/flows/${f.id}/unpublish`, {});
      expect((await m.sandbox.post('/v1/payments', { amount: 500, card: card() })).body.connectorAccountId).to.equal(cheap);
    });

    it('another edge process routes by a flow published through this one at once (change feed)', async () => {
      const second = await startTestServiceWith(moduleList().with(IDENTITY_MODULE).with(FLOWS_MODULE).with(CONNECTORS_MODULE).with(paymentsModule()), {
        joining: service,
        transport: 'in-process',
        workers: false,
        config: { connectorDeadlineMs: DEADLINE_MS },
      });
      try {
        const m = await service.merchant('Two edges, flows');
        const cheap = await createAccount(m.sandbox, 'cheap', 10);
        const premium = await createAccount(m.sandbox, 'premium', 900);
        const throughSecond = second.client(m.sandboxKey);
        const routedTo = async () => (await throughSecond.post('/v1/payments', { amount: 800, card: card() })).body.connectorAccountId as string;
        expect(await routedTo()).to.equal(cheap);
        expect(await routedTo()).to.equal(cheap); // remembered: no active flow
        const f = await createFlow(m.sandbox, { graph: fallbackGraph(premium, cheap) });
        await publish(m.sandbox, f.id);
        await eventually(async () => (await routedTo()) === premium, 2_000, 20);
        await m.sandbox.post(`/v1/flows/${f.id}/unpublish`, {});
        await eventually(async () => (await routedTo()) === cheap, 2_000, 20);
      } finally {
        await second.stop();
      }
    });
  });

  describe('connector accounts in published flows', () => {
    it('usedByFlows lists the published flows citing the account (not drafts); DELETE is refused with 409 until they stop citing it', async () => {
      const m = await service.merchant('Accounts in flows');
      const a = await createAccount(m.sandbox, 'a', 10);
      const b = await createAccount(m.sandbox, 'b', 20);
      await createFlow(m.sandbox, { name: 'draft only', graph: fallbackGraph(a, a) });
      expect((await m.sandbox.get(`/v1/connector-accounts/${a}`)).body.usedByFlows).to.deep.equal([]);

      const f = await createFlow(m.sandbox, { name: 'Main routing', graph: fallbackGraph(a, b) });
      await publish(m.sandbox, f.id);
      expect((await m.sandbox.get(`/v1/connector-accounts/${a}`)).body.usedByFlows).to.deep.equal([{ id: f.id, name: 'Main routing' }]);
      expect((await m.sandbox.get(`/v1/connector-accounts/${b}`)).body.usedByFlows).to.deep.equal([{ id: f.id, name: 'Main routing' }]);

      const refused = await m.sandbox.delete(`/v1/connector-accounts/${a}`);
      expect(refused.status).to.equal(409);
      expect(refused.body.error.code).to.equal('connector_account_in_use');
      expect((await m.sandbox.get(`/v1/connector-accounts/${a}`)).status).to.equal(200);
      // Disabling is the way to take it offline at once: the flow skips it.
      expect((await m.sandbox.patch(`/v1/connector-accounts/${a}`, { enabled: false })).status).to.equal(200);
      expect((await m.sandbox.post('/v1/payments', { amount: 600, card: card() })).body.connectorAccountId).to.equal(b);

      // A new version without the account frees it.
      const c = await createAccount(m.sandbox, 'c', 30);
      await m.sandbox.patch(`/v1/flows/${f.id}`, { graph: fallbackGraph(c, b) });
      expect((await m.sandbox.get(`/v1/connector-accounts/${a}`)).body.usedByFlows).to.have.length(1); // the draft does not run
      await publish(m.sandbox, f.id);
      expect((await m.sandbox.get(`/v1/connector-accounts/${a}`)).body.usedByFlows).to.deep.equal([]);
      expect((await m.sandbox.delete(`/v1/connector-accounts/${a}`)).status).to.equal(200);

      // Unpublishing frees the accounts of its version in force too.
      await m.sandbox.post(`/v1/flows/${f.id}/unpublish`, {});
      expect((await m.sandbox.delete(`/v1/connector-accounts/${b}`)).status).to.equal(200);
      // Re-publishing a stored version whose account is gone is refused.
      const rollback = await m.sandbox.post(`/v1/flows/${f.id}/publish`, { version: 1 });
      expect(rollback.status).to.equal(422);
    });
  });

  describe('with one database connection, as embedded mode (make run) has', () => {
    it('account reads and writes, publishing and deletion never wait for a second connection', async () => {
      const single = await startTestServiceWith(moduleList().with(IDENTITY_MODULE).with(FLOWS_MODULE).with(CONNECTORS_MODULE).with(paymentsModule()), {
        joining: service,
        transport: 'in-process',
        workers: false,
        config: { connectorDeadlineMs: DEADLINE_MS, databasePoolSize: 1 },
      });
      try {
        const m = await service.merchant('One connection');
        const client = single.client(m.sandboxKey);
        const a = await createAccount(client, 'a', 10);
        const f = await createFlow(client, { graph: fallbackGraph(a, a) });
        await publish(client, f.id);
        expect((await client.get(`/v1/connector-accounts/${a}`)).body.usedByFlows).to.have.length(1);
        expect((await client.get('/v1/connector-accounts')).body.data[0].usedByFlows).to.have.length(1);
        expect((await client.patch(`/v1/connector-accounts/${a}`, { name: 'renamed' })).body.usedByFlows).to.have.length(1);
        expect((await client.delete(`/v1/connector-accounts/${a}`)).status).to.equal(409);
        expect((await client.post('/v1/payments', { amount: 900, card: card() })).body.connectorAccountId).to.equal(a);
      } finally {
        await single.stop();
      }
    });
  });
});
