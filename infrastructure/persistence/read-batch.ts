/**
 * Group commit's twin for reads (group-commit.ts says why: under load a process runs out of pooled connections, and
 * every round trip holds one until the event loop gets round to its answer). Reads of the same kind asked in the
 * same turn of the event loop leave together, as ONE statement for all their keys, and each caller gets its own
 * key's answer. A read outside any transaction sees what is committed when its statement runs, alone or grouped,
 * so grouping changes nothing a caller can observe but the time it waits (until the end of the turn, or the window).
 */
export interface ReadBatchOptions {
  /** Bounds one statement's size: a larger queue leaves as several statements. */
  readonly maxKeys?: number;
  /**
   * 0: a batch leaves at the end of the turn its first read was asked in. More: it waits that many milliseconds for
   * companions first. Embedded mode wants it (mikro-orm-transactor.ts, readBatchWindowOf): there the database runs on
   * this process's thread and plans each statement afresh, and its turns are short (one wire message each), so reads
   * of requests arriving together were asked in different turns and left alone.
   */
  readonly windowMs?: number;
}

export class ReadBatch<K, V> {
  private waiting: Array<{ key: K; resolve(value: V): void; reject(error: unknown): void }> = [];
  private flushScheduled = false;
  private readonly maxKeys: number;
  private readonly windowMs: number;

  /** `readAll` answers every key it is given, in order (one statement). */
  constructor(
    private readonly readAll: (keys: readonly K[]) => Promise<readonly V[]>,
    options: ReadBatchOptions = {},
  ) {
    this.maxKeys = options.maxKeys ?? 64;
    this.windowMs = options.windowMs ?? 0;
  }

  read(key: K): Promise<V> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ key, resolve, reject });
      if (this.flushScheduled) return;
      this.flushScheduled = true;
      // After the I/O callbacks of this turn (or of the turns within the window), so every read they asked for is in the batch.
      if (this.windowMs > 0) setTimeout(() => this.flush(), this.windowMs);
      else setImmediate(() => this.flush());
    });
  }

  private flush(): void {
    this.flushScheduled = false;
    const waiting = this.waiting;
    this.waiting = [];
    for (let start = 0; start < waiting.length; start += this.maxKeys) {
      const batch = waiting.slice(start, start + this.maxKeys);
      this.readAll(batch.map((entry) => entry.key)).then(
        (values) => batch.forEach((entry, index) => entry.resolve(values[index]!)),
        (error: unknown) => batch.forEach((entry) => entry.reject(error)),
      );
    }
  }
}

/**
 * A batch's rows in one order whatever the order they were asked in: batches that write rows (claims, counters) lock
 * them in this order, so two batches touching the same rows never wait on each other's rows in turn.
 */
export function inLockOrder<V>(rows: ReadonlyMap<string, V>): Array<[string, V]> {
  return [...rows.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}
