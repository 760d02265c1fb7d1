import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ManualClock } from '../../../infrastructure/clock/system-clock';
import { UlidIdGenerator } from '../../../infrastructure/clock/ulid-id-generator';
import { SqlEventOutbox } from '../../../infrastructure/messaging/sql-event-outbox';
import { InProcessTransport } from '../../../infrastructure/messaging/in-process-transport';
import { OutboxRelay } from '../../../infrastructure/messaging/outbox-relay';
import { createLogger } from '../../../infrastructure/logging/logger';
import { EmbeddedDatabaseBusyError, startEmbeddedDatabase } from '../../../infrastructure/persistence/embedded-database';
import { loadConfig } from '../../../infrastructure/config/config';
import { openDatabase } from '../../../infrastructure/main/bootstrap';
import { MikroOrmTransactor } from '../../../infrastructure/persistence/mikro-orm-transactor';
import { migrate, openOrm } from '../../../infrastructure/persistence/orm';
import { SqlFlowRepository } from '../../../infrastructure/persistence/flow.repository';

describe('embedded mode database (PGlite over the PostgreSQL wire protocol)', () => {
  it('serves the same migrations and outbox code, and keeps data across restarts', async function () {
    this.timeout(60_000);
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pglite-'));
    try {
      const first = await startEmbeddedDatabase(dataDir);
      let orm = await openOrm(first.url, 4);
      expect(await migrate(orm)).to.include('Migration20261122000100Foundation');
      const outbox = new SqlEventOutbox(new UlidIdGenerator(), new ManualClock());
      const transactor = new MikroOrmTransactor(orm, { preparedStatements: false });
      const scope = { organizationId: 'org_embedded', environment: 'sandbox' as const };
      // Concurrent units of work on several connections must not interleave inside transactions.
      const batches = await Promise.all(
        Array.from({ length: 5 }, () => transactor.run((tx) => outbox.append(tx, [{ type: 'note.created', scope, object: { object: 'note', id: 'n' } }]))),
      );
      expect(batches.flat()).to.have.length(5);
      const relay = new OutboxRelay(transactor, new InProcessTransport(createLogger('silent')), createLogger('silent'));
      await relay.drain();
      await relay.stop();
      const numbered = await orm.em.fork().execute(`select sequence from events where organization_id = 'org_embedded' and published_at is not null order by sequence`);
      expect(numbered.map((row) => Number(row.sequence))).to.deep.equal([1, 2, 3, 4, 5]);
      await orm.close(true);
      await first.stop();

      const second = await startEmbeddedDatabase(dataDir);
      orm = await openOrm(second.url, 4);
      expect(await migrate(orm)).to.deep.equal([]);
      const rows = await orm.em.fork().execute(`select count(*)::int as n from events where organization_id = 'org_embedded'`);
      expect(rows[0].n).to.equal(5);
      await orm.close(true);
      await second.stop();
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('reads timestamps back as ISO 8601 through raw queries too (a flow version published in embedded mode)', async function () {
    this.timeout(60_000);
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pglite-'));
    const database = await startEmbeddedDatabase(dataDir);
    const orm = await openOrm(database.url, 2);
    try {
      await migrate(orm);
      const transactor = new MikroOrmTransactor(orm, { preparedStatements: false });
      const scope = { organizationId: 'org_embedded', environment: 'sandbox' as const };
      const at = '2026-11-26T06:12:54.922Z';
      await orm.em.fork().execute(
        `insert into flows (id, organization_id, environment, name, trigger_event, status, doc, created_at, updated_at)
         values ('flw_1', 'org_embedded', 'sandbox', 'f', 'payment.authorization_requested', 'published', '{}', now(), now())`,
      );
      const flows = new SqlFlowRepository();
      const graph = { nodes: [], edges: [] };
      await transactor.run((tx) => flows.insertVersion(tx, scope, { flowId: 'flw_1', version: 1, triggerEvent: 'payment.authorization_requested', graph, accountIds: [], publishedAt: at }));
      const versions = await transactor.read((tx) => flows.listVersions(tx, scope, 'flw_1'));
      expect(versions.map((v) => v.publishedAt)).to.deep.equal([at]);
      expect((await transactor.read((tx) => flows.findVersion(tx, scope, 'flw_1', 1)))?.publishedAt).to.equal(at);
    } finally {
      await orm.close(true);
      await database.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('refuses a second database on a directory in use, and lets an operator command join the running one', async function () {
    this.timeout(60_000);
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pglite-lock-'));
    try {
      const running = await startEmbeddedDatabase(dataDir);
      try {
        await expect(startEmbeddedDatabase(dataDir)).to.be.rejectedWith(EmbeddedDatabaseBusyError);
        const config = { ...loadConfig({}), dataDir, databaseUrl: null };
        const joined = await openDatabase(config, createLogger('silent'), true);
        expect(joined.embedded).to.equal(null);
        expect((await joined.orm.em.fork().execute('select 1 as one'))[0].one).to.equal(1);
        await joined.orm.close(true);
      } finally {
        await running.stop();
      }
      // Stopped cleanly: the directory is free again.
      const again = await startEmbeddedDatabase(dataDir);
      await again.stop();
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
