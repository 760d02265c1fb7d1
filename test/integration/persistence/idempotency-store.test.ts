import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { AesGcmCredentialCipher } from '../../../infrastructure/crypto/aes-gcm-credential-cipher';
import { SqlIdempotencyStore } from '../../../infrastructure/persistence/sql-idempotency-store';
import { MikroOrmTransactor } from '../../../infrastructure/persistence/mikro-orm-transactor';
import { recordRoundTrips } from '../../support/round-trip-recorder';
import { migrate, openOrm, type Orm } from '../../../infrastructure/persistence/orm';
import { createTestDatabase } from '../../support/test-infrastructure';

describe('Idempotency-Key store (PostgreSQL): locks of keys in flight', () => {
  let orm: Orm;
  let database: string;
  const scope = { organizationId: 'org_idem', environment: 'sandbox' as const };
  const cipher = new AesGcmCredentialCipher([randomBytes(32)]);
  const at = (ms: number) => new Date(Date.UTC(2026, 10, 26, 12, 0, 0) + ms);

  before(async () => {
    const url = await createTestDatabase();
    database = new URL(url).pathname.slice(1);
    orm = await openOrm(url, 2);
    await migrate(orm);
  });
  after(async () => {
    await orm?.close(true);
  });

  it('an in-flight key whose lock ran out is taken over by the same request; a renewed one is not', async () => {
    const store = new SqlIdempotencyStore(new MikroOrmTransactor(orm), cipher, 1_000);
    expect(await store.begin(scope, 'POST /v1/payments', 'stale', 'h1', at(0))).to.deep.equal({ kind: 'started' });
    expect(await store.begin(scope, 'POST /v1/payments', 'stale', 'h1', at(500))).to.deep.equal({ kind: 'conflict', reason: 'in_flight' });
    expect(await store.begin(scope, 'POST /v1/payments', 'stale', 'h1', at(1_500)), 'abandoned: its process died').to.deep.equal({ kind: 'started' });

    expect(await store.begin(scope, 'POST /v1/payments', 'alive', 'h1', at(0))).to.deep.equal({ kind: 'started' });
    await store.renew(scope, 'POST /v1/payments', 'alive', at(900));
    expect(await store.begin(scope, 'POST /v1/payments', 'alive', 'h1', at(1_500)), 'renewed until 1,900').to.deep.equal({ kind: 'conflict', reason: 'in_flight' });
    expect(await store.begin(scope, 'POST /v1/payments', 'alive', 'h1', at(2_000))).to.deep.equal({ kind: 'started' });
  });

  it('a completed key is not renewed back into flight', async () => {
    const store = new SqlIdempotencyStore(new MikroOrmTransactor(orm), cipher, 1_000);
    await store.begin(scope, 'POST /v1/payments', 'done', 'h1', at(0));
    await store.complete(scope, 'POST /v1/payments', 'done', { status: 201, body: { id: 'pay_1' }, headers: {} });
    await store.renew(scope, 'POST /v1/payments', 'done', at(10));
    const again = await store.begin(scope, 'POST /v1/payments', 'done', 'h1', at(20));
    expect(again).to.deep.equal({ kind: 'replay', response: { status: 201, body: { id: 'pay_1' }, headers: {} } });
  });

  it('answers stored at the same moment share one round trip (group commit), and each key replays its own', async () => {
    const store = new SqlIdempotencyStore(new MikroOrmTransactor(orm, { preparedStatements: true }), cipher, 1_000);
    const keys = ['grouped_1', 'grouped_2', 'grouped_3'];
    for (const key of keys) await store.begin(scope, 'POST /v1/payments', key, 'h1', at(0));
    // A statement's first use prepares it in a round trip of its own (prepared-statements.ts).
    await store.begin(scope, 'POST /v1/payments', 'warm', 'h1', at(0));
    await store.complete(scope, 'POST /v1/payments', 'warm', { status: 201, body: {}, headers: {} });
    const recorder = recordRoundTrips(database);
    try {
      await Promise.all(keys.map((key) => store.complete(scope, 'POST /v1/payments', key, { status: 201, body: { id: `pay_${key}` }, headers: {} })));
      expect(recorder.statements, recorder.statements.join('\n')).to.have.length(1);
    } finally {
      recorder.stop();
    }
    for (const key of keys) {
      expect(await store.begin(scope, 'POST /v1/payments', key, 'h1', at(20))).to.deep.equal({ kind: 'replay', response: { status: 201, body: { id: `pay_${key}` }, headers: {} } });
    }
  });

  it('keys claimed at the same moment are claimed by one statement; the same key twice in it is claimed once', async () => {
    const store = new SqlIdempotencyStore(new MikroOrmTransactor(orm, { preparedStatements: true }), cipher, 1_000);
    await store.begin(scope, 'POST /v1/payments', 'warm_claim', 'h1', at(0)); // prepares the statement
    const recorder = recordRoundTrips(database);
    try {
      const begun = await Promise.all(['claim_1', 'claim_2', 'claim_3'].map((key) => store.begin(scope, 'POST /v1/payments', key, 'h1', at(0))));
      expect(begun).to.deep.equal([{ kind: 'started' }, { kind: 'started' }, { kind: 'started' }]);
      expect(recorder.statements, recorder.statements.join('\n')).to.have.length(1);
    } finally {
      recorder.stop();
    }
    const twice = await Promise.all([store.begin(scope, 'POST /v1/payments', 'twice', 'h1', at(0)), store.begin(scope, 'POST /v1/payments', 'twice', 'h2', at(0))]);
    expect(twice).to.deep.equal([{ kind: 'started' }, { kind: 'conflict', reason: 'different_request' }]);
    const sameRequest = await Promise.all([store.begin(scope, 'POST /v1/payments', 'again', 'h1', at(0)), store.begin(scope, 'POST /v1/payments', 'again', 'h1', at(0))]);
    expect(sameRequest).to.deep.equal([{ kind: 'started' }, { kind: 'conflict', reason: 'in_flight' }]);
  });
});
