import { expect } from 'chai';
import { ReadBatch } from '../../../../infrastructure/persistence/read-batch';

describe('ReadBatch (reads of the same turn, or of a window, as one statement)', () => {
  it('reads asked in the same turn go to one readAll, in order, and each caller gets its own answer', async () => {
    const calls: string[][] = [];
    const batch = new ReadBatch<string, string>(async (keys) => {
      calls.push([...keys]);
      return keys.map((key) => key.toUpperCase());
    });
    expect(await Promise.all([batch.read('a'), batch.read('b'), batch.read('a')])).to.deep.equal(['A', 'B', 'A']);
    expect(await batch.read('c')).to.equal('C');
    expect(calls).to.deep.equal([['a', 'b', 'a'], ['c']]);
  });

  it('splits a larger queue at maxKeys, and a failed readAll fails only its own callers', async () => {
    const batch = new ReadBatch<number, number>(async (keys) => {
      if (keys.includes(3)) throw new Error('database down');
      return keys.map((key) => key * 10);
    }, { maxKeys: 2 });
    const answers = await Promise.allSettled([1, 2, 3, 4].map((key) => batch.read(key)));
    expect(answers.map((a) => (a.status === 'fulfilled' ? a.value : (a.reason as Error).message))).to.deep.equal([10, 20, 'database down', 'database down']);
  });

  it('with a window, reads asked in later turns within it join the batch; one asked after it left starts the next', async () => {
    const calls: string[][] = [];
    const batch = new ReadBatch<string, string>(async (keys) => {
      calls.push([...keys]);
      return [...keys];
    }, { windowMs: 500 });
    const first = batch.read('a');
    await new Promise((resolve) => setImmediate(resolve)); // a later turn of the event loop
    const second = batch.read('b');
    expect(await Promise.all([first, second])).to.deep.equal(['a', 'b']);
    expect(await batch.read('c')).to.equal('c');
    expect(calls).to.deep.equal([['a', 'b'], ['c']]);
  });
});
