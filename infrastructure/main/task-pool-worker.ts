import type { BackgroundWorker } from './module';

export interface TaskPoolOptions<T> {
  readonly name: string;
  /** Claims (or reads) up to `limit` due tasks, in the order they should run. */
  claim(limit: number): Promise<readonly T[]>;
  /** Works one task. Its connector calls carry their own deadline (CONNECTOR_DEADLINE_MS), which bounds it. */
  work(task: T): Promise<unknown>;
  /** Identifies a task, so one still in flight is not started again when a read (not a claim) returns it twice. */
  keyOf(task: T): string;
  /** Tasks in flight at most. */
  readonly concurrency: number;
  /** How often to look for due tasks while there were none (a finished task looks again at once). */
  readonly idleMs: number;
  onError(error: unknown): void;
}

/**
 * A background worker that keeps up to `concurrency` tasks in flight and claims another as soon as one ends, so a
 * task waiting on a stalled acquirer holds one slot, not a whole batch (a loop that claims a batch and waits for all
 * of it waits for its slowest call). Claims never overlap; a request to claim made during one runs right after it.
 * Stopping claims nothing more and waits for the tasks in flight (contract.md 8: a draining process finishes what
 * it holds, so no payment is left mid-step by a deployment); the caller bounds the wait with SHUTDOWN_GRACE_MS, and a
 * task cut then still holds a lease or claim that expires, as when a process dies.
 */
export function taskPoolWorker<T>(options: TaskPoolOptions<T>): BackgroundWorker {
  return {
    name: options.name,
    async start() {
      const inFlight = new Set<string>();
      const running = new Set<Promise<void>>();
      let stopped = false;
      let claiming = false;
      let again = false;

      const fill = async (): Promise<void> => {
        if (stopped) return;
        if (claiming) {
          again = true;
          return;
        }
        const free = options.concurrency - inFlight.size;
        if (free <= 0) return;
        claiming = true;
        let tasks: readonly T[] = [];
        try {
          tasks = await options.claim(free);
        } catch (error) {
          options.onError(error);
        } finally {
          claiming = false;
        }
        for (const task of tasks) {
          const key = options.keyOf(task);
          if (inFlight.has(key) || inFlight.size >= options.concurrency) continue;
          inFlight.add(key);
          const run: Promise<void> = Promise.resolve()
            .then(() => options.work(task))
            .then(
              // The next task at once (on the next turn of the event loop, so timers and I/O are never starved)...
              () => void setImmediate(() => void fill()),
              // ...but after a failure only at the next tick: a task that fails at once must not spin.
              (error: unknown) => options.onError(error),
            )
            .finally(() => {
              inFlight.delete(key);
              running.delete(run);
            });
          running.add(run);
        }
        if (again) {
          again = false;
          setImmediate(() => void fill());
        }
      };

      const timer = setInterval(() => void fill(), options.idleMs);
      timer.unref();
      return {
        async stop() {
          stopped = true;
          clearInterval(timer);
          // A claim under way may still hand out tasks: wait for it, then for every task it started.
          while (claiming) await new Promise((resolve) => setImmediate(resolve));
          await Promise.allSettled([...running]);
        },
      };
    },
  };
}
