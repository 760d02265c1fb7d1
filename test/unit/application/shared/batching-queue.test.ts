import { expect } from 'chai';
import { BatchingQueue } from '../../../../application/shared/batching-queue';

/** A handler whose batches finish only when the test says so. */
function controlledHandler() {
  const batches: number[][] = [];
  const finishers: Array<(fail?: Error) => void> = [];
  const handle = (items: number[]) =>
    new Promise<string[]>((resolve, reject) => {
      batches.push(items);
      finishers.push((fail) => (fail ? reject(fail) : resolve(items.map((n) => `done ${n}`))));
    });
  return { batches, finishers, handle };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('BatchingQueue (group commit)', () => {
  it('starts an item at once when idle, and groups what arrives meanwhile into the next batch', async () => {
    const h = controlledHandler();
    const queue = new BatchingQueue(h.handle, { maxBatch: 100, maxConcurrent: 1 });
    const first = queue.push(1);
    expect(h.batches).to.deep.equal([[1]]);
    const rest = [2, 3, 4].map((n) => queue.push(n));
    expect(h.batches).to.have.length(1); // waiting for the running batch
    h.finishers[0]!();
    expect(await first).to.equal('done 1');
    await tick();
    expect(h.batches).to.deep.equal([[1], [2, 3, 4]]);
    h.finishers[1]!();
    expect(await Promise.all(rest)).to.deep.equal(['done 2', 'done 3', 'done 4']);
  });

  it('runs up to maxConcurrent batches and splits at maxBatch', async () => {
    const h = controlledHandler();
    const queue = new BatchingQueue(h.handle, { maxBatch: 2, maxConcurrent: 2 });
    const all = [1, 2, 3, 4, 5].map((n) => queue.push(n));
    expect(h.batches).to.deep.equal([[1], [2]]);
    h.finishers[0]!();
    await tick();
    expect(h.batches).to.deep.equal([[1], [2], [3, 4]]);
    h.finishers[1]!();
    await tick();
    expect(h.batches).to.deep.equal([[1], [2], [3, 4], [5]]);
    h.finishers[2]!();
    h.finishers[3]!();
    expect(await Promise.all(all)).to.deep.equal(['done 1', 'done 2', 'done 3', 'done 4', 'done 5']);
  });

  it('rejects every item of a failed batch, and goes on with the next one', async () => {
    const h = controlledHandler();
    const queue = new BatchingQueue(h.handle, { maxBatch: 10, maxConcurrent: 1 });
    const first = queue.push(1);
    const second = [queue.push(2), queue.push(3)];
    const settled = Promise.allSettled([first, ...second]);
    h.finishers[0]!(new Error('database down'));
    await tick();
    expect(h.batches).to.deep.equal([[1], [2, 3]]);
    h.finishers[1]!(new Error('still down'));
    const outcomes = await settled;
    expect(outcomes.map((o) => (o.status === 'rejected' ? (o.reason as Error).message : o.value))).to.deep.equal(['database down', 'still down', 'still down']);
    const third = queue.push(4);
    h.finishers[2]!();
    expect(await third).to.equal('done 4');
  });
});
