/**
 * A TCP proxy in front of PostgreSQL for tests of database failures: a service whose DATABASE_URL goes through it
 * can have its connections reset (all at once, or the one that sends a given statement) or new connections
 * refused (the listener closed: ECONNREFUSED, as when the database is down), and then served again.
 */
import net from 'node:net';

export class DatabaseProxy {
  private readonly connections = new Set<{ client: net.Socket; upstream: net.Socket }>();
  private server: net.Server | null = null;
  private port = 0;
  private resetTrigger: string | null = null;

  private constructor(
    private readonly upstreamHost: string,
    private readonly upstreamPort: number,
  ) {}

  /** A proxy to the server of `databaseUrl`, listening on a free loopback port. */
  static async start(databaseUrl: string): Promise<DatabaseProxy> {
    const target = new URL(databaseUrl);
    const proxy = new DatabaseProxy(target.hostname, Number(target.port || 5432));
    await proxy.listen();
    return proxy;
  }

  /** `databaseUrl` with its host and port replaced by the proxy's. */
  urlFor(databaseUrl: string): string {
    const url = new URL(databaseUrl);
    url.hostname = '127.0.0.1';
    url.port = String(this.port);
    return url.toString();
  }

  /** Resets (TCP RST) every open connection, both towards the client and towards PostgreSQL. */
  resetAll(): void {
    for (const pair of [...this.connections]) this.reset(pair);
  }

  /**
   * The next connection that sends bytes containing `text` (a statement's text: simple protocol, so run the service
   * without prepared statements) is reset before they reach PostgreSQL, so that statement never runs.
   */
  resetOnStatement(text: string): void {
    this.resetTrigger = text;
  }

  /** New connections are refused (the database is down); open ones are reset. */
  async refuse(): Promise<void> {
    const server = this.server;
    this.server = null;
    this.resetAll();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Accepts connections again, on the same port. */
  async accept(): Promise<void> {
    if (!this.server) await this.listen();
  }

  async stop(): Promise<void> {
    await this.refuse();
  }

  private listen(): Promise<void> {
    const server = net.createServer((client) => this.pipe(client));
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => {
        this.port = (server.address() as net.AddressInfo).port;
        this.server = server;
        resolve();
      });
    });
  }

  private pipe(client: net.Socket): void {
    const upstream = net.connect({ host: this.upstreamHost, port: this.upstreamPort });
    const pair = { client, upstream };
    this.connections.add(pair);
    const forget = () => this.connections.delete(pair);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    client.on('close', () => { forget(); upstream.destroy(); });
    upstream.on('close', () => { forget(); client.destroy(); });
    client.on('data', (chunk: Buffer) => {
      if (this.resetTrigger !== null && chunk.includes(this.resetTrigger)) {
        this.resetTrigger = null;
        this.reset(pair);
        return;
      }
      upstream.write(chunk);
    });
    upstream.pipe(client);
  }

  private reset(pair: { client: net.Socket; upstream: net.Socket }): void {
    this.connections.delete(pair);
    if (!pair.client.destroyed) pair.client.resetAndDestroy();
    if (!pair.upstream.destroyed) pair.upstream.resetAndDestroy();
  }
}
