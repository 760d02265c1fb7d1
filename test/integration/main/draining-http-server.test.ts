import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { DrainingHttpServer } from '../../../infrastructure/main/draining-http-server';
import { loadConfig } from '../../../infrastructure/config/config';

/** A server whose /slow answers when the test says, and whose other paths answer at once. */
async function serve() {
  const release: Array<() => void> = [];
  const edge = new DrainingHttpServer(
    (request, response) => {
      if (request.url === '/slow') release.push(() => response.end('slow done'));
      else response.end('ok');
    },
    (response) => response.writeHead(503).end('refused'),
  );
  await new Promise<void>((resolve) => edge.server.listen(0, '127.0.0.1', resolve));
  const port = (edge.server.address() as AddressInfo).port;
  const get = (path: string, agent: http.Agent | false = false) =>
    new Promise<{ status?: number; body?: string; connection?: string; error?: string }>((resolve) => {
      http
        .get({ host: '127.0.0.1', port, path, agent }, (response) => {
          let body = '';
          response.on('data', (chunk) => (body += chunk));
          response.on('end', () => resolve({ status: response.statusCode, body, connection: response.headers.connection }));
        })
        .on('error', (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }));
    });
  return { edge, release, get };
}

const until = async (condition: () => boolean) => {
  while (!condition()) await new Promise((resolve) => setImmediate(resolve));
};

describe('DrainingHttpServer: the edge stops without cutting', () => {
  it('a request in flight finishes within the grace, its answer closing the connection; new connections are refused', async () => {
    const { edge, release, get } = await serve();
    const agent = new http.Agent({ keepAlive: true });
    const slow = get('/slow', agent);
    await until(() => release.length === 1);
    const drained = edge.drain(10_000);
    expect(await get('/other'), 'a new connection').to.deep.include({ error: 'ECONNREFUSED' });
    release[0]!();
    expect(await slow).to.deep.include({ status: 200, body: 'slow done', connection: 'close' });
    expect(await drained, 'finished in time').to.equal(true);
    agent.destroy();
  });

  it('after the grace, what still runs is cut and drain says so', async () => {
    const { edge, release, get } = await serve();
    const slow = get('/slow');
    await until(() => release.length === 1);
    expect(await edge.drain(50)).to.equal(false);
    expect((await slow).error).to.be.oneOf(['ECONNRESET', 'socket hang up']);
  });

  it('SHUTDOWN_GRACE_MS is 25 s unless set', () => {
    expect(loadConfig({}).shutdownGraceMs).to.equal(25_000);
    expect(loadConfig({ SHUTDOWN_GRACE_MS: '5000' }).shutdownGraceMs).to.equal(5_000);
  });
});
