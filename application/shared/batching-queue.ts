/**
 * Group commit for a use case: items that arrive while a batch is being handled wait, and leave together as the
 * next batch. An idle queue starts a batch of one at once, so batching adds no latency when traffic is light and
 * saves a round trip per item when it is heavy (the batch size follows the load by itself).
 *
 * The handler answers one result per item, in order. When it throws, every item of that batch is rejected with
 * the error (their callers retry, as they would for a failure of their own).
 */
export class BatchingQueue<Item, Result> {
  private waiting: Array<{ item: Item; resolve: (result: Result) => void; reject: (error: unknown) => void }> = [];
  private running = 0;

  constructor(
    private readonly handle: (items: Item[]) => Promise<Result[]>,
    private readonly options: { maxBatch: number; maxConcurrent: number } = { maxBatch: 256, maxConcurrent: 2 },
  ) {}

  push(item: Item): Promise<Result> {
    return new Promise<Result>((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.running < this.options.maxConcurrent && this.waiting.length > 0) {
      const batch = this.waiting.splice(0, this.options.maxBatch);
      this.running += 1;
      void this.handle(batch.map((entry) => entry.item))
        .then(
          (results) => batch.forEach((entry, index) => entry.resolve(results[index]!)),
          (error: unknown) => batch.forEach((entry) => entry.reject(error)),
        )
        .finally(() => {
          this.running -= 1;
          this.pump();
        });
    }
  }
}
