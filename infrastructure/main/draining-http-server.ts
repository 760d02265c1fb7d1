/**
 * The edge's HTTP server, which drains instead of cutting (contract.md 8, Shutdown). Once `drain` begins it takes no
 * new work: the listener closes (a new connection is refused), idle keep-alive connections close, a request that
 * still arrives on an open connection is refused by `refuse` (503, `Connection: close`), and every response of a
 * request in flight says `Connection: close`. Those requests finish for up to the grace period; only what is still
 * running then is cut. Liveness is still answered: the process is alive while it drains.
 */
import http from 'node:http';

const LIVENESS_PATH = /^\/health\/live\/?(\?|$)/;

export class DrainingHttpServer {
  readonly server: http.Server;
  private draining = false;
  private readonly inFlight = new Set<http.ServerResponse>();

  constructor(
    handle: http.RequestListener,
    private readonly refuse: (response: http.ServerResponse) => void,
  ) {
    this.server = http.createServer((request, response) => {
      if (this.draining && !LIVENESS_PATH.test(request.url ?? '')) {
        response.setHeader('Connection', 'close');
        this.refuse(response);
        return;
      }
      this.inFlight.add(response);
      response.once('close', () => this.finished(response));
      if (this.draining) response.setHeader('Connection', 'close');
      handle(request, response);
    });
  }

  /**
   * Stops taking new work and lets the requests in flight finish, for up to `graceMs`; then closes the connections
   * still open. True when everything finished in time.
   */
  async drain(graceMs: number): Promise<boolean> {
    this.draining = true;
    for (const response of this.inFlight) if (!response.headersSent) response.setHeader('Connection', 'close');
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeIdleConnections();
    let timer: NodeJS.Timeout | undefined;
    const inTime = await Promise.race([
      closed.then(() => true),
      new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), graceMs))),
    ]);
    clearTimeout(timer);
    if (!inTime) this.server.closeAllConnections();
    await closed;
    return inTime;
  }

  private finished(response: http.ServerResponse): void {
    this.inFlight.delete(response);
    // A response whose headers left before the drain began kept its connection alive: close it now that it is idle.
    if (this.draining) this.server.closeIdleConnections();
  }
}
