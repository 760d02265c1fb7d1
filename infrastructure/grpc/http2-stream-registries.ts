/**
 * Gives every HTTP/2 session of this process (gRPC channels and servers) stream registries that V8 can collect
 * young, instead of Node's own `Map` and `Set`.
 *
 * Why: a long-lived `Map` or `Set` with churn keeps whatever passed through it alive until the next full GC. When V8
 * grows or compacts a Map's hash table it allocates a new table and leaves a pointer to it in the obsolete one (for
 * live iterators); the obsolete table, in the old generation once the Map is old, is dead but is still a root for
 * every scavenge until a mark-compact. So each table in the chain, with the entries it held, survives and is
 * promoted. A session registers every stream (every gRPC call) in such a Map: measured on the sandbox adapter's
 * gRPC server under the payments benchmark (26 Nov), its isolate promoted 4 to 10 MB per scavenge with pauses of
 * 26 to 33 ms, and 0.35 MB with pauses of 6 to 9 ms once the registries were replaced; every in-flight Authorize
 * call waited out those pauses. A synthetic test (a Map of 50 live entries with churn) promoted 4.2 MB per
 * scavenge, a plain object used the same way 0.04 MB.
 *
 * How: `http2.connect` and `http2.createServer`/`createSecureServer` are wrapped so each new session gets the
 * replacements while it is still empty. Node keeps the registries in a symbol-keyed state object and calls only
 * get/set/add/delete/size/forEach on them, the methods these classes have; where a Node version does not have that
 * shape, the session is left as it is, so this can only lose its benefit, never break a session.
 */
import http2 from 'node:http2';

/** Streams by id (Node's `state.streams`): a null-prototype object, whose dictionary V8 rehashes without a chain. */
export class StreamsById<S> {
  private entries: Record<number, S> = Object.create(null);
  private count = 0;

  get size(): number {
    return this.count;
  }

  get(id: number): S | undefined {
    return this.entries[id];
  }

  set(id: number, stream: S): this {
    if (this.entries[id] === undefined) this.count += 1;
    this.entries[id] = stream;
    return this;
  }

  delete(id: number): boolean {
    if (this.entries[id] === undefined) return false;
    delete this.entries[id];
    this.count -= 1;
    // An empty registry starts afresh, so an idle session does not keep a store sized for its busiest moment.
    if (this.count === 0) this.entries = Object.create(null);
    return true;
  }

  /** Visits a snapshot: Node destroys streams from inside forEach, which deletes them from the registry. */
  forEach(visit: (stream: S, id: number, registry: this) => void): void {
    for (const [id, stream] of Object.entries(this.entries)) visit(stream, Number(id), this);
  }
}

/** Streams still waiting for an id (Node's `state.pendingStreams`): a handful at a time, so an array. */
export class PendingStreams<S> {
  private items: S[] = [];

  get size(): number {
    return this.items.length;
  }

  add(stream: S): this {
    if (!this.items.includes(stream)) this.items.push(stream);
    return this;
  }

  delete(stream: S): boolean {
    const index = this.items.indexOf(stream);
    if (index < 0) return false;
    this.items.splice(index, 1);
    return true;
  }

  forEach(visit: (stream: S, same: S, registry: this) => void): void {
    for (const stream of [...this.items]) visit(stream, stream, this);
  }
}

interface SessionState {
  streams?: unknown;
  pendingStreams?: unknown;
}

/**
 * Node's own registry: a SafeMap or SafeSet, which Node's primordials cut off from Map.prototype and Set.prototype
 * (so `instanceof Map` is false), told by its tag and its methods.
 */
function isNodeRegistry(value: unknown, tag: 'Map' | 'Set'): value is { size: number } {
  if (typeof value !== 'object' || value === null) return false;
  const registry = value as { size?: unknown; forEach?: unknown };
  return Object.prototype.toString.call(value) === `[object ${tag}]` && typeof registry.size === 'number' && typeof registry.forEach === 'function';
}

/** Replaces a new session's registries; true when it did (the session had Node's expected, still empty, state). */
export function useChurnFreeStreamRegistries(session: http2.Http2Session): boolean {
  const stateKey = Object.getOwnPropertySymbols(session).find((symbol) => symbol.description === 'state');
  const state = stateKey ? ((session as unknown as Record<symbol, SessionState>)[stateKey] ?? null) : null;
  if (!state || !isNodeRegistry(state.streams, 'Map') || !isNodeRegistry(state.pendingStreams, 'Set')) return false;
  if (state.streams.size > 0 || state.pendingStreams.size > 0) return false;
  state.streams = new StreamsById();
  state.pendingStreams = new PendingStreams();
  return true;
}

let installed = false;

/** Wraps the http2 factories once per process (each worker thread has its own module instance, and installs its own). */
export function installChurnFreeHttp2StreamRegistries(): void {
  if (installed) return;
  installed = true;
  const connect = http2.connect;
  http2.connect = function connectWithChurnFreeRegistries(this: unknown, ...args: unknown[]) {
    const session = (connect as (...a: unknown[]) => http2.ClientHttp2Session).apply(this, args);
    useChurnFreeStreamRegistries(session);
    return session;
  } as typeof http2.connect;
  for (const factory of ['createServer', 'createSecureServer'] as const) {
    const create = http2[factory] as (...a: unknown[]) => http2.Http2Server;
    (http2 as Record<string, unknown>)[factory] = function createWithChurnFreeRegistries(this: unknown, ...args: unknown[]) {
      const server = create.apply(this, args);
      server.on('session', (session: http2.ServerHttp2Session) => useChurnFreeStreamRegistries(session));
      return server;
    };
  }
}
