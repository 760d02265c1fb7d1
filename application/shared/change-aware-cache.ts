import type { ChangeFeed, ChangeTopic } from '../../domain/ports/change-feed';
import type { Clock } from '../../domain/ports/clock';

export interface ChangeAwareCacheOptions<V> {
  readonly clock: Clock;
  /**
   * The announced change key a value answers to (entries whose value has that key are dropped on its change).
   * By default the cache key itself, as for data kept per tenant under `tenantChangeKey`.
   */
  readonly changeKeyOf?: (cacheKey: string, value: V) => string;
  /** Values worth keeping (e.g. not "not found": a key created a moment later must work at once). */
  readonly keep?: (value: V) => boolean;
  /** A bound on staleness should an announcement never arrive (a bug, an out-of-band write); 60 s by default. */
  readonly ttlMs?: number;
  /** 10,000 by default. */
  readonly maxEntries?: number;
}

const DEFAULT_TTL_MS = 60_000;
const DEFAULT_MAX_ENTRIES = 10_000;

/**
 * Database reads kept in memory for as long as the change feed vouches for them: an announced change drops the
 * entries it names, a reset of the feed drops them all, and nothing is served or kept while the feed is not live
 * (changes from other processes could be missed then). A read that overlapped any change of the topic is not
 * kept either, since it may have seen the row from before the change.
 */
export class ChangeAwareCache<V> {
  private readonly entries = new Map<string, { value: V; storedAt: number }>();
  /** Counts the topic's changes, so a read can tell whether one happened while it was in flight. */
  private changes = 0;
  private readonly ttlMs: number;
  private readonly maxEntries: number;
  private readonly changeKeyOf: (cacheKey: string, value: V) => string;

  constructor(
    private readonly feed: ChangeFeed,
    topic: ChangeTopic,
    private readonly options: ChangeAwareCacheOptions<V>,
  ) {
    this.ttlMs = options.ttlMs ?? DEFAULT_TTL_MS;
    this.maxEntries = options.maxEntries ?? DEFAULT_MAX_ENTRIES;
    this.changeKeyOf = options.changeKeyOf ?? ((cacheKey) => cacheKey);
    feed.subscribe(topic, {
      onChange: (changeKey) => this.drop(changeKey),
      onReset: () => {
        this.changes += 1;
        this.entries.clear();
      },
    });
  }

  async get(cacheKey: string, load: () => Promise<V>): Promise<V> {
    const values = await this.getMany([cacheKey], async () => new Map([[cacheKey, await load()]]));
    return values.get(cacheKey) as V;
  }

  /**
   * Several keys at once: those remembered are served from memory, the others read by ONE `loadMissing` call
   * (which answers every key it is given) and kept under the same rules as `get`.
   */
  async getMany(cacheKeys: readonly string[], loadMissing: (missing: string[]) => Promise<Map<string, V>>): Promise<Map<string, V>> {
    const now = this.options.clock.now().getTime();
    const values = new Map<string, V>();
    const missing: string[] = [];
    for (const cacheKey of cacheKeys) {
      const hit = this.feed.live ? this.entries.get(cacheKey) : undefined;
      if (hit && now - hit.storedAt < this.ttlMs) values.set(cacheKey, hit.value);
      else missing.push(cacheKey);
    }
    if (missing.length === 0) return values;
    const changesBefore = this.changes;
    const wasLive = this.feed.live;
    const loaded = await loadMissing(missing);
    const keepable = wasLive && this.feed.live && this.changes === changesBefore;
    for (const cacheKey of missing) {
      const value = loaded.get(cacheKey) as V;
      values.set(cacheKey, value);
      if (keepable && (this.options.keep?.(value) ?? true)) this.store(cacheKey, value, now);
    }
    return values;
  }

  private store(cacheKey: string, value: V, now: number): void {
    if (this.entries.size >= this.maxEntries) {
      // Oldest first: a Map iterates in insertion order, and a refreshed entry is re-inserted below.
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.delete(cacheKey);
    this.entries.set(cacheKey, { value, storedAt: now });
  }

  private drop(changeKey: string): void {
    this.changes += 1;
    for (const [cacheKey, entry] of this.entries) {
      if (this.changeKeyOf(cacheKey, entry.value) === changeKey) this.entries.delete(cacheKey);
    }
  }
}
