import { expect } from 'chai';
import { startTestServiceWith, type Merchant, type TestService } from '../../support/test-service';
import { IDENTITY_MODULE } from '../../../infrastructure/main/identity.module';
import { CONNECTORS_MODULE } from '../../../infrastructure/main/connectors.module';
import { paymentsModule } from '../../../infrastructure/main/payments.module';
import { bankAccountInput, recipientInput } from '../../support/builders/recipient.builder';
import { moduleList } from '../../../infrastructure/main/module';
import { NO_FLOWS_MODULE } from '../../support/no-flows-module';

/** Split recipients through the REST edge on PostgreSQL (contract.md 4 and 7; docs/payments.md, Recipients). */
describe('recipients through the REST edge (PostgreSQL)', function () {
  this.timeout(60_000);
  let service: TestService;
  let merchant: Merchant;

  const bankAccount = bankAccountInput;
  const recipient = recipientInput;

  interface EventRow {
    type: string;
    organizationId: string;
    environment: string;
    data: { object: Record<string, any>; previousAttributes: Record<string, any> | null };
  }
  const events = async (objectId: string): Promise<EventRow[]> => {
    const rows = await service.core.orm.em.fork({ useContext: false }).execute<Array<{ type: string; organization_id: string; environment: string; data: any }>>(
      'select type, organization_id, environment, data from events where object_id = ? order by created_at, id',
      [objectId],
    );
    return rows.map((r) => ({ type: r.type, organizationId: r.organization_id, environment: r.environment, data: typeof r.data === 'string' ? JSON.parse(r.data) : r.data }));
  };

  before(async () => {
    service = await startTestServiceWith(moduleList().with(IDENTITY_MODULE).with(NO_FLOWS_MODULE).with(CONNECTORS_MODULE).with(paymentsModule()), { transport: 'in-process' });
    merchant = await service.merchant('Recipients merchant');
  });
  after(async () => {
    await service?.stop();
  });

  it('creates a recipient with exactly the contract\'s fields, documents as digits; reads it back; creation emits no event', async () => {
    const created = await merchant.sandbox.post('/v1/recipients', recipient({ email: 'Financeiro@Ana.example', metadata: { sellerId: 42 } }));
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    expect(created.body.id).to.match(/^rcp_[0-9A-Z]{26}$/);
    expect(Object.keys(created.body).sort()).to.deep.equal(['bankAccount', 'createdAt', 'document', 'email', 'id', 'metadata', 'name', 'object', 'updatedAt']);
    expect(created.body).to.deep.include({
      object: 'recipient',
      name: 'Loja da Ana',
      document: '11222333000181',
      email: 'financeiro@ana.example',
      bankAccount: { ...bankAccount(), holderDocument: '11222333000181' },
      metadata: { sellerId: 42 },
    });
    expect(created.body.createdAt).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const read = await merchant.sandbox.get(`/v1/recipients/${created.body.id}`);
    expect(read.status).to.equal(200);
    expect(read.body).to.deep.equal(created.body);
    expect(await events(created.body.id)).to.deep.equal([]);
    // Optional fields left out are null / empty.
    const minimal = await merchant.sandbox.post('/v1/recipients', recipient({ document: '529.982.247-25' }));
    expect(minimal.body).to.include({ email: null, document: '52998224725' });
    expect(minimal.body.metadata).to.deep.equal({});
  });

  it('refuses unknown fields, missing required fields and values out of bounds with 422 validation_failed naming the field', async () => {
    for (const [body, param] of [
      [recipient({ color: 'red' }), 'body.color'],
      [recipient({ bankAccount: bankAccount({ iban: 'x' }) }), 'body.bankAccount.iban'],
      [{ document: '52998224725', bankAccount: bankAccount() }, 'body.name'],
      [{ name: 'Ana', bankAccount: bankAccount() }, 'body.document'],
      [{ name: 'Ana', document: '52998224725' }, 'body.bankAccount'],
      [recipient({ name: '' }), 'body.name'],
      [recipient({ name: 'x'.repeat(121) }), 'body.name'],
      [recipient({ name: '   ' }), 'body.name'],
      [recipient({ email: 'not-an-email' }), 'body.email'],
      [recipient({ document: '52998224724' }), 'body.document'],
      [recipient({ document: '11222333000182' }), 'body.document'],
      [recipient({ document: null }), 'body.document'],
      [recipient({ metadata: { note: 'v'.repeat(513) } }), 'body.metadata.note'],
      [recipient({ metadata: { note: { nested: true } } }), 'body.metadata.note'],
      [recipient({ bankAccount: bankAccount({ bankCode: '34' }) }), 'body.bankAccount.bankCode'],
      [recipient({ bankAccount: bankAccount({ bankCode: '0341' }) }), 'body.bankAccount.bankCode'],
      [recipient({ bankAccount: bankAccount({ branch: '' }) }), 'body.bankAccount.branch'],
      [recipient({ bankAccount: bankAccount({ branch: '123456' }) }), 'body.bankAccount.branch'],
      [recipient({ bankAccount: bankAccount({ account: '1'.repeat(21) }) }), 'body.bankAccount.account'],
      [recipient({ bankAccount: bankAccount({ account: '1234-5' }) }), 'body.bankAccount.account'],
      [recipient({ bankAccount: bankAccount({ accountDigit: '123' }) }), 'body.bankAccount.accountDigit'],
      [recipient({ bankAccount: bankAccount({ type: 'salary' }) }), 'body.bankAccount.type'],
      [recipient({ bankAccount: bankAccount({ holderName: '' }) }), 'body.bankAccount.holderName'],
      [recipient({ bankAccount: bankAccount({ holderName: 'x'.repeat(121) }) }), 'body.bankAccount.holderName'],
      [recipient({ bankAccount: bankAccount({ holderDocument: '52998224724' }) }), 'body.bankAccount.holderDocument'],
      [recipient({ bankAccount: { bankCode: '341' } }), 'body.bankAccount.branch'],
    ] as const) {
      const r = await merchant.sandbox.post('/v1/recipients', body);
      expect(r.status, JSON.stringify(body)).to.equal(422);
      expect(r.body.error, JSON.stringify(body)).to.include({ code: 'validation_failed', param });
    }
  });

  it('Idempotency-Key on create: same body replays the first answer, another body is 409; one recipient created', async () => {
    const m = await service.merchant('Recipients idempotency');
    const key = `rcp-idem-${Date.now()}`;
    const first = await m.sandbox.post('/v1/recipients', recipient(), { 'Idempotency-Key': key });
    const again = await m.sandbox.post('/v1/recipients', recipient(), { 'Idempotency-Key': key });
    expect(first.status).to.equal(201);
    expect(again.status).to.equal(201);
    expect(again.body).to.deep.equal(first.body);
    expect(again.headers.get('idempotent-replayed')).to.equal('true');
    const other = await m.sandbox.post('/v1/recipients', recipient({ name: 'Another' }), { 'Idempotency-Key': key });
    expect(other.status).to.equal(409);
    expect(other.body.error.code).to.equal('idempotency_conflict');
    expect((await m.sandbox.get('/v1/recipients')).body.data.map((r: { id: string }) => r.id)).to.deep.equal([first.body.id]);
  });

  it('a recipient of another organization or environment is 404 on read and update, and is left unchanged', async () => {
    const id = (await merchant.sandbox.post('/v1/recipients', recipient())).body.id as string;
    const other = await service.merchant('Recipients other organization');
    for (const client of [merchant.live, other.sandbox, other.live]) {
      const read = await client.get(`/v1/recipients/${id}`);
      expect(read.status).to.equal(404);
      expect(read.body.error.code).to.equal('not_found');
      const patched = await client.patch(`/v1/recipients/${id}`, { name: 'Hijacked' });
      expect(patched.status).to.equal(404);
      expect((await client.get('/v1/recipients?limit=100')).body.data.map((r: { id: string }) => r.id)).to.not.include(id);
    }
    expect((await merchant.sandbox.get(`/v1/recipients/${id}`)).body.name).to.equal('Loja da Ana');
    expect(await events(id)).to.deep.equal([]);
    expect((await merchant.sandbox.get('/v1/recipients/rcp_nonexistent')).status).to.equal(404);
  });

  it('PATCH: omitted fields stay, null clears email; a change emits exactly one recipient.updated with the recipient and the previous values', async () => {
    const created = (await merchant.sandbox.post('/v1/recipients', recipient({ email: 'a@ana.example', metadata: { tier: 'gold', keep: 1 } }))).body;
    const patched = await merchant.sandbox.patch(`/v1/recipients/${created.id}`, {
      name: 'Loja da Ana', // unchanged: not a previous attribute
      email: null,
      bankAccount: bankAccount({ bankCode: '001', account: '555', type: 'savings' }),
      metadata: { tier: null, vip: true },
    });
    expect(patched.status, JSON.stringify(patched.body)).to.equal(200);
    expect(patched.body).to.deep.include({ id: created.id, name: 'Loja da Ana', document: created.document, email: null, metadata: { keep: 1, vip: true }, createdAt: created.createdAt });
    expect(patched.body.bankAccount).to.deep.include({ bankCode: '001', account: '555', type: 'savings', branch: '1234' });
    expect(patched.body.updatedAt > created.updatedAt).to.equal(true);
    expect((await merchant.sandbox.get(`/v1/recipients/${created.id}`)).body).to.deep.equal(patched.body);

    const evts = await events(created.id);
    expect(evts.map((e) => e.type)).to.deep.equal(['recipient.updated']);
    const { organizationId } = merchant;
    expect(evts[0]).to.deep.include({ organizationId, environment: 'sandbox' });
    expect(evts[0]!.data.object).to.deep.equal(patched.body);
    expect(evts[0]!.data.previousAttributes).to.deep.equal({ email: 'a@ana.example', bankAccount: created.bankAccount, metadata: { tier: 'gold', keep: 1 } });

    // Only the field sent changes; the event names only it.
    const renamed = await merchant.sandbox.patch(`/v1/recipients/${created.id}`, { name: 'Ana Comércio' });
    expect(renamed.body).to.deep.include({ name: 'Ana Comércio', email: null, metadata: { keep: 1, vip: true } });
    expect(renamed.body.bankAccount).to.deep.equal(patched.body.bankAccount);
    const after = await events(created.id);
    expect(after).to.have.length(2);
    expect(after[1]!.data.previousAttributes).to.deep.equal({ name: 'Loja da Ana' });
  });

  it('a PATCH that changes nothing emits nothing and keeps updatedAt; a refused PATCH changes nothing', async () => {
    const created = (await merchant.sandbox.post('/v1/recipients', recipient({ email: 'b@ana.example', metadata: { a: 1 } }))).body;
    for (const body of [{}, { name: 'Loja da Ana', document: '11222333000181', email: 'B@ana.example', bankAccount: bankAccount(), metadata: { a: 1, absent: null } }]) {
      const same = await merchant.sandbox.patch(`/v1/recipients/${created.id}`, body);
      expect(same.status, JSON.stringify(same.body)).to.equal(200);
      expect(same.body).to.deep.equal(created);
    }
    for (const [body, param] of [
      [{ name: 'Changed', bankAccount: bankAccount({ bankCode: '1' }) }, 'body.bankAccount.bankCode'],
      [{ name: 'Changed', document: '52998224724' }, 'body.document'],
      [{ name: null }, 'body.name'],
      [{ bankAccount: null }, 'body.bankAccount'],
      [{ bankAccount: { account: '1' } }, 'body.bankAccount.bankCode'],
      [{ id: 'rcp_other' }, 'body.id'],
    ] as const) {
      const refused = await merchant.sandbox.patch(`/v1/recipients/${created.id}`, body);
      expect(refused.status, JSON.stringify(body)).to.equal(422);
      expect(refused.body.error, JSON.stringify(body)).to.include({ code: 'validation_failed', param });
    }
    expect((await merchant.sandbox.get(`/v1/recipients/${created.id}`)).body).to.deep.equal(created);
    expect(await events(created.id)).to.deep.equal([]);
  });

  it('lists newest first with cursor paging; startingAfter must be a recipient of this environment', async () => {
    const m = await service.merchant('Recipients list');
    const ids: string[] = [];
    for (const name of ['A', 'B', 'C', 'D', 'E']) ids.push((await m.sandbox.post('/v1/recipients', recipient({ name }))).body.id);
    const live = (await m.live.post('/v1/recipients', recipient({ name: 'Live' }))).body.id;
    const newestFirst = [...ids].reverse();

    const first = await m.sandbox.get('/v1/recipients?limit=2');
    expect(first.status).to.equal(200);
    expect(first.body).to.include({ object: 'list', hasMore: true });
    expect(first.body.data.map((r: any) => r.id)).to.deep.equal(newestFirst.slice(0, 2));
    expect(Object.keys(first.body.data[0]).sort()).to.deep.equal(['bankAccount', 'createdAt', 'document', 'email', 'id', 'metadata', 'name', 'object', 'updatedAt']);
    const second = await m.sandbox.get(`/v1/recipients?limit=2&startingAfter=${newestFirst[1]}`);
    expect(second.body.data.map((r: any) => r.id)).to.deep.equal(newestFirst.slice(2, 4));
    expect(second.body.hasMore).to.equal(true);
    const last = await m.sandbox.get(`/v1/recipients?limit=2&startingAfter=${newestFirst[3]}`);
    expect(last.body.data.map((r: any) => r.id)).to.deep.equal(newestFirst.slice(4));
    expect(last.body.hasMore).to.equal(false);
    expect((await m.sandbox.get('/v1/recipients')).body.data.map((r: any) => r.id)).to.deep.equal(newestFirst);
    expect((await m.live.get('/v1/recipients')).body.data.map((r: any) => r.id)).to.deep.equal([live]);

    const messages = new Set<string>();
    for (const cursor of ['rcp_nonexistent', live, (await merchant.sandbox.post('/v1/recipients', recipient())).body.id]) {
      const refused = await m.sandbox.get(`/v1/recipients?startingAfter=${cursor}`);
      expect(refused.status, cursor).to.equal(422);
      expect(refused.body.error).to.include({ code: 'validation_failed', param: 'query.startingAfter' });
      messages.add(refused.body.error.message);
    }
    expect(messages.size, 'the refusal does not tell whether the cursor exists elsewhere').to.equal(1);
    for (const [query, param] of [
      ['limit=0', 'query.limit'],
      ['limit=101', 'query.limit'],
      ['email=a@b.co', 'query.email'],
    ] as const) {
      const refused = await m.sandbox.get(`/v1/recipients?${query}`);
      expect(refused.status, query).to.equal(422);
      expect(refused.body.error.param).to.equal(param);
    }
  });

  it('needs recipients:read to read and recipients:write to create or change', async () => {
    const id = (await merchant.sandbox.post('/v1/recipients', recipient())).body.id as string;
    const readOnly = await service.core.apiKeys.create.execute({ organizationId: merchant.organizationId, environment: 'sandbox', name: 'recipients ro', scopes: ['recipients:read'] });
    const ro = service.client(readOnly.secret);
    expect((await ro.get(`/v1/recipients/${id}`)).status).to.equal(200);
    expect((await ro.get('/v1/recipients')).status).to.equal(200);
    expect((await ro.post('/v1/recipients', recipient())).status).to.equal(403);
    expect((await ro.patch(`/v1/recipients/${id}`, { name: 'No' })).status).to.equal(403);
    const paymentsOnly = await service.core.apiKeys.create.execute({ organizationId: merchant.organizationId, environment: 'sandbox', name: 'payments', scopes: ['payments:read'] });
    expect((await service.client(paymentsOnly.secret).get(`/v1/recipients/${id}`)).status).to.equal(403);
  });
});
