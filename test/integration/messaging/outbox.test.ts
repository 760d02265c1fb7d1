import { expect } from 'chai';
import { connect } from 'nats';
import type { StoredEvent } from '../../../domain/ports/event-outbox';
import { ManualClock } from '../../../infrastructure/clock/system-clock';
import { UlidIdGenerator } from '../../../infrastructure/clock/ulid-id-generator';
import { createLogger } from '../../../infrastructure/logging/logger';
import { InProcessTransport } from '../../../infrastructure/messaging/in-process-transport';
import { JetStreamTransport } from '../../../infrastructure/messaging/jetstream-transport';
import { OutboxRelay } from '../../../infrastructure/messaging/outbox-relay';
import { claimEventForConsumer } from '../../../infrastructure/messaging/processed-events';
import { SqlEventOutbox } from '../../../infrastructure/messaging/sql-event-outbox';
import { MikroOrmTransactor } from '../../../infrastructure/persistence/mikro-orm-transactor';
import { migrate, openOrm, type Orm } from '../../../infrastructure/persistence/orm';
import { eventually } from '../../support/eventually';
import { PrivateNats } from '../../support/private-nats';
import { createTestDatabase, testServers, uniqueStream } from '../../support/test-infrastructure';

const logger = createLogger('silent');
const ids = new UlidIdGenerator();

/**
 * Holds back every relay mark (the unit setting published_at) until released; records each one held. The mark is
 * recognised by its unit of work (it turns synchronous_commit off) and held before its transaction starts: with the
 * driver pipelining statements, delaying one statement of a unit would not hold the others back.
 */
function holdMarks(transactor: MikroOrmTransactor, held: string[]): () => Promise<void> {
  const original = transactor.run;
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  transactor.run = function <T>(this: MikroOrmTransactor, work: Parameters<MikroOrmTransactor['run']>[0]): Promise<T> {
    if (!String(work).includes('synchronous_commit')) return original.call(this, work) as Promise<T>;
    held.push('mark');
    return gate.then(() => original.call(this, work) as Promise<T>);
  } as MikroOrmTransactor['run'];
  return async () => {
    transactor.run = original;
    open();
  };
}

describe('transactional outbox, relay and event transports', () => {
  let orm: Orm;
  let transactor: MikroOrmTransactor;
  let outbox: SqlEventOutbox;

  before(async () => {
    orm = await openOrm(await createTestDatabase(), 8);
    await migrate(orm);
    transactor = new MikroOrmTransactor(orm);
    outbox = new SqlEventOutbox(ids, new ManualClock(new Date('2026-11-22T10:00:00.000Z')));
  });
  after(() => orm.close(true));

  const scopeOf = (organizationId: string) => ({ organizationId, environment: 'sandbox' as const });
  const append = (organizationId: string, count = 1, fail = false) =>
    transactor.run(async (tx) => {
      const events = await outbox.append(
        tx,
        Array.from({ length: count }, (_, i) => ({ type: 'note.created', scope: scopeOf(organizationId), object: { object: 'note', id: `note_${i}`, n: i } })),
      );
      if (fail) throw new Error('rolled back after appending');
      return events;
    });
  const unpublished = async (organizationId: string) =>
    Number((await orm.em.fork().execute(`select count(*)::int as n from events where organization_id = ? and published_at is null`, [organizationId]))[0].n);

  const sequencesOf = async (organizationId: string) =>
    (await orm.em.fork().execute(`select id, sequence from events where organization_id = ? order by id`, [organizationId])) as Array<{ id: string; sequence: number | null }>;
  const numberAll = async () => {
    // A relay on a transport that accepts everything: numbering happens at claim time.
    const relay = new OutboxRelay(transactor, new InProcessTransport(logger), logger);
    await relay.drain();
    await relay.stop();
  };

  describe('append and numbering', () => {
    it('writes the envelope at once and leaves numbering to the relay', async () => {
      const [first, second] = await append('org_seq_a', 2);
      expect(first.id).to.match(/^evt_/);
      expect(first.sequence).to.equal(null);
      expect(first.apiVersion).to.equal('2026-01-01');
      expect(first.createdAt).to.equal('2026-11-22T10:00:00.000Z');
      expect(first.data).to.deep.equal({ object: { object: 'note', id: 'note_0', n: 0 }, previousAttributes: null });
      await numberAll();
      expect((await sequencesOf('org_seq_a')).map((row) => [row.id, row.sequence])).to.deep.equal([[first.id, 1], [second.id, 2]]);
      await append('org_seq_b');
      await numberAll();
      expect((await sequencesOf('org_seq_b')).map((row) => row.sequence)).to.deep.equal([1]);
    });

    it('numbers on append when asked, sharing the counter with the relay', async () => {
      await append('org_seq_e');
      const [now] = await transactor.run((tx) =>
        outbox.append(tx, [{ type: 'note.created', scope: scopeOf('org_seq_e'), object: { object: 'note', id: 'n' } }], { assignSequence: true }),
      );
      expect(now.sequence).to.equal(1);
      await numberAll();
      expect((await sequencesOf('org_seq_e')).map((row) => row.sequence).sort()).to.deep.equal([1, 2]);
    });

    it('keeps sequences gapless and unique under concurrent transactions and concurrent relays', async () => {
      await Promise.all(Array.from({ length: 20 }, () => append('org_seq_c', 3)));
      const relays = [1, 2, 3].map(() => new OutboxRelay(transactor, new InProcessTransport(logger), logger, { batchSize: 7 }));
      await Promise.all(relays.map((relay) => relay.drain()));
      await Promise.all(relays.map((relay) => relay.stop()));
      const sequences = (await sequencesOf('org_seq_c')).map((row) => row.sequence).sort((a, b) => a! - b!);
      expect(sequences).to.deep.equal(Array.from({ length: 60 }, (_, i) => i + 1));
    });

    /** A relay (polling once a minute) on an in-process transport, and the ids it published for this organization. */
    async function relayWithConsumer(organizationId: string, durableName: string) {
      const published: string[] = [];
      const transport = new InProcessTransport(logger);
      const consumer = await transport.consume({ durableName }, async (event) => {
        if (event.organizationId === organizationId) published.push(event.id);
      });
      return { relay: new OutboxRelay(transactor, transport, logger, { pollIntervalMs: 60_000 }), published, consumer };
    }

    it('claims nudged events by id without scanning the outbox, and a scan still finds events nobody nudged', async () => {
      const { relay, published, consumer } = await relayWithConsumer('org_nudge', 'nudge-test');
      const claims: string[] = [];
      const original = (relay as any).publishBatch.bind(relay);
      (relay as any).publishBatch = (ids: string[] | null) => {
        claims.push(ids ? `ids:${ids.length}` : 'scan');
        return original(ids);
      };
      try {
        relay.start(); // the first pass scans (and publishes what earlier tests left)
        await eventually(() => claims.includes('scan'));
        await (relay as any).draining;
        claims.length = 0;
        const quiet = await append('org_nudge', 2); // committed, never nudged (as if by another process)
        const watched = new MikroOrmTransactor(orm);
        watched.onCommit((eventIds) => relay.nudge(eventIds));
        const nudged = await watched.run((tx) => outbox.append(tx, [{ type: 'note.created', scope: scopeOf('org_nudge'), object: { object: 'note', id: 'n' } }]));
        await eventually(() => published.length === 1);
        expect(published).to.deep.equal([nudged[0]!.id]);
        expect(claims).to.deep.equal(['ids:1']); // no scan: the last one is younger than the poll interval
        await relay.drain(); // the poll's scan
        expect(published.slice(1).sort()).to.deep.equal(quiet.map((e) => e.id).sort());
        expect(await unpublished('org_nudge')).to.equal(0);
      } finally {
        await relay.stop();
        await consumer.stop();
      }
    });

    it('publishes the next batch while the previous one is still being marked, and a drain waits for the marks', async () => {
      const { relay, published, consumer } = await relayWithConsumer('org_mark', 'mark-test');
      relay.start();
      await relay.drain(); // what earlier tests left
      const marks: string[] = [];
      const release = holdMarks(transactor, marks);
      try {
        const first = await append('org_mark');
        relay.nudge(first.map((e) => e.id));
        await eventually(() => published.length === 1 && marks.length === 1);
        const second = await append('org_mark');
        relay.nudge(second.map((e) => e.id));
        await eventually(() => published.length === 2); // not held back by the first batch's mark
        expect(await unpublished('org_mark')).to.equal(2);
        let drained = false;
        const draining = relay.drain().then(() => (drained = true));
        await new Promise((resolve) => setTimeout(resolve, 200));
        expect(drained).to.equal(false);
        await release();
        await draining;
        expect(await unpublished('org_mark')).to.equal(0);
      } finally {
        await release();
        await relay.stop();
        await consumer.stop();
      }
    });

    it('writes nothing, and uses no sequence number, when the transaction rolls back', async () => {
      await append('org_seq_d');
      await append('org_seq_d', 1, true).catch(() => undefined);
      await append('org_seq_d');
      await numberAll();
      expect((await sequencesOf('org_seq_d')).map((row) => row.sequence)).to.deep.equal([1, 2]);
    });
  });

  describe('relay to NATS JetStream', () => {
    it('publishes events committed while NATS is down once it is back, exactly once to the consumer', async function () {
      this.timeout(60_000);
      const nats = await PrivateNats.start();
      const { stream, subjectPrefix } = uniqueStream();
      const transport = await JetStreamTransport.connect({ url: nats.url, stream, subjectPrefix }, logger);
      const received: StoredEvent[] = [];
      const consumer = await transport.consume({ durableName: 'outbox-test' }, async (event) => {
        if (event.organizationId === 'org_down') received.push(event);
      });
      const relay = new OutboxRelay(transactor, transport, logger, { pollIntervalMs: 100 });
      try {
        await nats.kill();
        const committed = await append('org_down', 5);
        await relay.drain(); // fails: nothing published, nothing lost
        expect(await unpublished('org_down')).to.equal(5);

        await nats.up();
        relay.start();
        await eventually(() => received.length >= 5, 30_000);
        await eventually(async () => (await unpublished('org_down')) === 0);
        expect(received.map((event) => event.id)).to.deep.equal(committed.map((event) => event.id));
      } finally {
        await relay.stop();
        await consumer.stop();
        await transport.deleteStream();
        await transport.close();
      }
    });

    it('loses nothing when the process dies after commit and before publish', async () => {
      const { natsUrl } = await testServers();
      const { stream, subjectPrefix } = uniqueStream();
      const transport = await JetStreamTransport.connect({ url: natsUrl, stream, subjectPrefix }, logger);
      const received = new Map<string, number>();
      const consumer = await transport.consume({ durableName: 'crash-test' }, async (event) => {
        if (event.organizationId === 'org_crash') received.set(event.id, (received.get(event.id) ?? 0) + 1);
      });
      try {
        // The "crashed" process committed and never published; the next relay finds the events.
        const committed = await append('org_crash', 3);
        // A second crash: a relay claimed the events (lease) and died before marking them published.
        await orm.em.fork().execute(`update events set relay_lease_until = now() - interval '1 second' where organization_id = 'org_crash'`);
        const restarted = new OutboxRelay(transactor, transport, logger, { pollIntervalMs: 100 });
        await restarted.drain();
        await eventually(() => received.size === 3);
        expect([...received.keys()].sort()).to.deep.equal(committed.map((event) => event.id).sort());
        expect(await unpublished('org_crash')).to.equal(0);
        await restarted.stop();
      } finally {
        await consumer.stop();
        await transport.deleteStream();
        await transport.close();
      }
    });

    it('acks every handled message (acks sent in batches): nothing is pending or redelivered after the ack wait', async () => {
      const { natsUrl } = await testServers();
      const { stream, subjectPrefix } = uniqueStream();
      const transport = await JetStreamTransport.connect({ url: natsUrl, stream, subjectPrefix, ackWaitMs: 500 }, logger);
      const observer = await connect({ servers: natsUrl });
      const deliveries = new Map<string, number>();
      const consumer = await transport.consume({ durableName: 'ack-batch-test' }, async (event) => {
        deliveries.set(event.id, (deliveries.get(event.id) ?? 0) + 1);
      });
      try {
        const appended = await append('org_ack_batch', 20);
        await Promise.all(appended.map((event, i) => transport.publish({ ...event, sequence: i + 1 })));
        await eventually(() => deliveries.size === 20);
        const jsm = await observer.jetstreamManager();
        await eventually(async () => (await jsm.consumers.info(stream, 'ack-batch-test')).num_ack_pending === 0);
        await new Promise((resolve) => setTimeout(resolve, 800)); // past the 500 ms ack wait
        expect([...deliveries.values()].every((count) => count === 1), 'no redelivery').to.equal(true);
        expect((await jsm.consumers.info(stream, 'ack-batch-test')).num_redelivered).to.equal(0);
      } finally {
        await consumer.stop();
        await observer.close();
        await transport.deleteStream();
        await transport.close();
      }
    });

    it('drops a republished event by its id, and consumers recognise redeliveries by event id', async () => {
      const { natsUrl } = await testServers();
      const { stream, subjectPrefix } = uniqueStream();
      const transport = await JetStreamTransport.connect({ url: natsUrl, stream, subjectPrefix }, logger);
      let deliveries = 0;
      let sideEffects = 0;
      let failOnce = true;
      const consumer = await transport.consume({ durableName: 'dedup-test', retryDelayMs: 50 }, async (event, delivery) => {
        deliveries += 1;
        await transactor.run(async (tx) => {
          if (await claimEventForConsumer(tx, 'dedup-test', event.id)) sideEffects += 1;
        });
        // The side effect committed, but the ack is lost (crash before ack): JetStream redelivers.
        if (failOnce) {
          failOnce = false;
          expect(delivery.redelivered).to.equal(false);
          throw new Error('crash before ack');
        }
      });
      try {
        const [appended] = await append('org_dedup');
        const event = { ...appended, sequence: 1 };
        await transport.publish(event);
        await transport.publish(event); // a relay that died before marking: same Nats-Msg-Id
        await eventually(() => deliveries === 2);
        await new Promise((resolve) => setTimeout(resolve, 300));
        expect(deliveries).to.equal(2); // the first delivery and its redelivery; the duplicate publish was dropped
        expect(sideEffects).to.equal(1);
      } finally {
        await consumer.stop();
        await transport.deleteStream();
        await transport.close();
      }
    });
  });

  describe('in-process transport (embedded mode)', () => {
    it('publishes only after every consumer acknowledged, redelivers on failure and deduplicates by id', async () => {
      const transport = new InProcessTransport(logger);
      const seen: string[] = [];
      let failures = 0;
      await transport.consume({ durableName: 'a', retryDelayMs: 10 }, async (event, delivery) => {
        if (event.organizationId !== 'org_inproc') return;
        if (failures === 0) {
          failures += 1;
          throw new Error('transient');
        }
        expect(delivery.redelivered).to.equal(true);
        seen.push(event.id);
      });
      const [event] = await append('org_inproc');
      const relay = new OutboxRelay(transactor, transport, logger);
      await relay.drain();
      expect(seen).to.deep.equal([event.id]);
      expect(await unpublished('org_inproc')).to.equal(0);
      await transport.publish({ ...event, sequence: 1 });
      expect(seen).to.deep.equal([event.id]);
      await relay.stop();
    });
  });
});
