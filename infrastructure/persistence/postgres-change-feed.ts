import pg from 'pg';
import { CHANGE_TOPICS, type ChangeFeed, type ChangeListener, type ChangeTopic } from '../../domain/ports/change-feed';
import type { Logger } from '../logging/logger';
import { CHANGES_CHANNEL, type AnnouncedChange, type MikroOrmTransactor } from './mikro-orm-transactor';

const RECONNECT_DELAY_MS = 1_000;

/**
 * The change feed on PostgreSQL: changes this process commits are told by its transactor right after the commit,
 * changes of other processes arrive as notifications on a connection that LISTENs (PostgreSQL delivers a NOTIFY
 * only when its transaction commits, in commit order).
 *
 * Live only while that connection listens: when it drops, notifications in between are lost, so memory stops
 * serving until it listens again, and then every listener is reset (its memory may predate a lost change).
 * With `databaseUrl` null (embedded PGlite, which one process holds) every change is made in this process: live
 * from the start, no connection.
 */
export class PostgresChangeFeed implements ChangeFeed {
  private readonly listeners = new Map<ChangeTopic, ChangeListener[]>();
  private client: pg.Client | null = null;
  private listening = false;
  private stopped = false;
  private reconnect: NodeJS.Timeout | null = null;

  constructor(
    transactor: MikroOrmTransactor,
    private readonly databaseUrl: string | null,
    private readonly logger: Logger,
  ) {
    this.observe(transactor);
  }

  /** Another transactor of this process (a pool of its own): its commits are told at once too, not only by NOTIFY. */
  observe(transactor: MikroOrmTransactor): void {
    transactor.onChanges((changes) => this.tell(changes));
  }

  get live(): boolean {
    return this.databaseUrl === null || this.listening;
  }

  subscribe(topic: ChangeTopic, listener: ChangeListener): void {
    const list = this.listeners.get(topic) ?? [];
    list.push(listener);
    this.listeners.set(topic, list);
  }

  /** Resolves once listening (or after a first failed attempt, retrying in the background: memory just stays off). */
  async start(): Promise<void> {
    if (this.databaseUrl === null || this.client) return;
    this.stopped = false;
    await this.connect();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.reconnect) clearTimeout(this.reconnect);
    this.reconnect = null;
    this.listening = false;
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.databaseUrl! });
    this.client = client;
    client.on('notification', (message) => {
      if (message.channel === CHANGES_CHANNEL && message.payload) this.tell([parse(message.payload)].filter((c): c is AnnouncedChange => c !== null));
    });
    client.on('error', (error) => this.lost(client, error));
    client.on('end', () => this.lost(client, null));
    try {
      await client.connect();
      await client.query(`listen ${CHANGES_CHANNEL}`);
    } catch (error) {
      this.lost(client, error);
      return;
    }
    if (this.client !== client) return;
    this.listening = true;
    // Whatever was remembered before (or while reconnecting) may predate a change nobody heard of.
    for (const topic of CHANGE_TOPICS) for (const listener of this.listeners.get(topic) ?? []) listener.onReset();
  }

  private lost(client: pg.Client, error: unknown): void {
    if (this.client !== client) return;
    this.listening = false;
    this.client = null;
    client.end().catch(() => undefined);
    if (this.stopped) return;
    this.logger.warn({ err: error instanceof Error ? error.message : undefined }, 'change feed connection lost; in-memory reads off until it listens again');
    this.reconnect = setTimeout(() => {
      this.reconnect = null;
      if (!this.stopped) void this.connect();
    }, RECONNECT_DELAY_MS);
    this.reconnect.unref();
  }

  private tell(changes: readonly AnnouncedChange[]): void {
    for (const change of changes) for (const listener of this.listeners.get(change.topic) ?? []) listener.onChange(change.key);
  }
}

function parse(payload: string): AnnouncedChange | null {
  const colon = payload.indexOf(':');
  const topic = payload.slice(0, colon) as ChangeTopic;
  return colon > 0 && (CHANGE_TOPICS as readonly string[]).includes(topic) ? { topic, key: payload.slice(colon + 1) } : null;
}
