import { expect } from 'chai';
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import {
  PendingStreams,
  StreamsById,
  installChurnFreeHttp2StreamRegistries,
  useChurnFreeStreamRegistries,
} from '../../../infrastructure/grpc/http2-stream-registries';

/** The registries Node keeps in a session's symbol-keyed state. */
function registriesOf(session: http2.Http2Session): { streams: unknown; pendingStreams: unknown } {
  const key = Object.getOwnPropertySymbols(session).find((symbol) => symbol.description === 'state')!;
  return (session as unknown as Record<symbol, { streams: unknown; pendingStreams: unknown }>)[key];
}

function get(session: http2.ClientHttp2Session, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = session.request({ ':path': path });
    let body = '';
    let status = 0;
    request.setEncoding('utf8');
    request.on('response', (headers) => (status = Number(headers[':status'])));
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => resolve({ status, body }));
    request.on('error', reject);
    request.end();
  });
}

/** The registry's size once closing streams have left it (a stream leaves at its 'close', after 'end'); 500 ms at most. */
async function sizeOnceSettled(registry: StreamsById<unknown>): Promise<number> {
  for (let i = 0; i < 50 && registry.size > 0; i += 1) await new Promise((resolve) => setTimeout(resolve, 10));
  return registry.size;
}

function connect(port: number): http2.ClientHttp2Session {
  const client = http2.connect(`http://127.0.0.1:${port}`);
  client.on('error', () => undefined); // a session destroyed on purpose, or the server's GOAWAY at the end
  return client;
}

describe('HTTP/2 stream registries without Map churn', () => {
  describe('StreamsById', () => {
    it('keeps streams by id with a size, and forgets them on delete', () => {
      const registry = new StreamsById<string>();
      registry.set(1, 'one').set(3, 'three');
      expect(registry.size).to.equal(2);
      expect(registry.get(3)).to.equal('three');
      expect(registry.get(5)).to.equal(undefined);
      expect(registry.delete(1)).to.equal(true);
      expect(registry.delete(1)).to.equal(false);
      expect(registry.get(1)).to.equal(undefined);
      expect(registry.size).to.equal(1);
      registry.set(3, 'three again');
      expect(registry.size).to.equal(1);
    });

    it('visits every stream even when the visit removes them (as Node does when it destroys a session)', () => {
      const registry = new StreamsById<string>();
      for (const id of [1, 3, 5, 7]) registry.set(id, `s${id}`);
      const visited: string[] = [];
      registry.forEach((stream, id) => {
        visited.push(stream);
        registry.delete(id);
      });
      expect(visited).to.deep.equal(['s1', 's3', 's5', 's7']);
      expect(registry.size).to.equal(0);
    });
  });

  describe('PendingStreams', () => {
    it('holds each stream once and lets a visit remove them', () => {
      const pending = new PendingStreams<object>();
      const a = {};
      const b = {};
      pending.add(a).add(a).add(b);
      expect(pending.size).to.equal(2);
      const visited: object[] = [];
      pending.forEach((stream) => {
        visited.push(stream);
        pending.delete(stream);
      });
      expect(visited).to.deep.equal([a, b]);
      expect(pending.size).to.equal(0);
      expect(pending.delete(a)).to.equal(false);
    });
  });

  describe('installed on the http2 factories', () => {
    let server: http2.Http2Server;
    let port: number;
    const serverSessions: http2.ServerHttp2Session[] = [];
    const held: http2.ServerHttp2Stream[] = [];

    before(async () => {
      installChurnFreeHttp2StreamRegistries();
      const wrapped = http2.connect;
      installChurnFreeHttp2StreamRegistries();
      expect(http2.connect, 'a second install wraps nothing again').to.equal(wrapped);
      server = http2.createServer();
      server.on('session', (session) => {
        serverSessions.push(session);
        session.on('error', () => undefined); // the session the client destroys mid-stream
      });
      server.on('stream', (stream, headers) => {
        if (headers[':path'] === '/hold') {
          held.push(stream); // answered never: the client gives up on it
          stream.on('error', () => undefined); // destroyed with its session when the client goes away
          return;
        }
        stream.respond({ ':status': 200 });
        setImmediate(() => stream.end(String(headers[':path'])));
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      port = (server.address() as AddressInfo).port;
    });

    after(async () => {
      for (const stream of held) stream.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    });

    it('gives client and server sessions the replacement registries, and requests complete over them', async () => {
      const client = connect(port);
      try {
        expect(registriesOf(client).streams).to.be.instanceOf(StreamsById);
        expect(registriesOf(client).pendingStreams).to.be.instanceOf(PendingStreams);
        const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => get(client, `/r${i}`)));
        expect(answers.map((answer) => answer.body)).to.deep.equal(Array.from({ length: 40 }, (_, i) => `/r${i}`));
        expect(answers.every((answer) => answer.status === 200)).to.equal(true);
        const serverSession = serverSessions.at(-1)!;
        expect(registriesOf(serverSession).streams).to.be.instanceOf(StreamsById);
        // Every finished stream leaves both registries once both of its sides have closed.
        expect(await sizeOnceSettled(registriesOf(client).streams as StreamsById<unknown>)).to.equal(0);
        expect(await sizeOnceSettled(registriesOf(serverSession).streams as StreamsById<unknown>)).to.equal(0);
      } finally {
        client.close();
      }
    });

    it('still cancels the streams in flight when a session is destroyed', async () => {
      const client = connect(port);
      await get(client, '/warm');
      const inFlight = get(client, '/hold');
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect((registriesOf(client).streams as StreamsById<unknown>).size).to.equal(1);
      client.destroy(new Error('going away'));
      const outcome = await inFlight.then(
        () => 'answered',
        (error: Error) => error.message,
      );
      expect(outcome).to.equal('going away');
      expect(await sizeOnceSettled(registriesOf(client).streams as StreamsById<unknown>)).to.equal(0);
    });

    it('leaves a session alone when it does not have the state it expects', () => {
      const client = connect(port);
      try {
        // Already replaced at connect: a second attempt finds no Map and changes nothing.
        expect(useChurnFreeStreamRegistries(client)).to.equal(false);
        expect(useChurnFreeStreamRegistries({} as http2.Http2Session)).to.equal(false);
      } finally {
        client.close();
      }
    });
  });
});
