import { expect } from 'chai';
import { periodicWorker } from '../../../../infrastructure/main/module';

describe('periodic workers', () => {
  it('never overlaps two runs, keeps going after a failed run, and stops', async () => {
    let running = 0;
    let overlapped = false;
    let runs = 0;
    const errors: unknown[] = [];
    const worker = periodicWorker(
      'test',
      5,
      async () => {
        runs += 1;
        running += 1;
        if (running > 1) overlapped = true;
        await new Promise((resolve) => setTimeout(resolve, 20)); // slower than the interval
        running -= 1;
        if (runs === 1) throw new Error('first run fails');
      },
      (error) => errors.push(error),
    );
    const started = await worker.start();
    while (runs < 3) await new Promise((resolve) => setTimeout(resolve, 5));
    await started.stop();
    const after = runs;
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(overlapped).to.equal(false);
    expect(errors).to.have.length(1);
    expect(runs).to.equal(after);
  });

  it('stop starts no new run and resolves once the run in flight has finished (the drain)', async () => {
    let release: () => void = () => undefined;
    let runs = 0;
    let finished = 0;
    const worker = periodicWorker(
      'test',
      5,
      async () => {
        runs += 1;
        await new Promise<void>((resolve) => (release = resolve));
        finished += 1;
      },
      () => undefined,
    );
    const started = await worker.start();
    while (runs < 1) await new Promise((resolve) => setTimeout(resolve, 5));
    let stopped = false;
    const stopping = started.stop().then(() => (stopped = true));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(stopped, 'stop waits for the run in flight').to.equal(false);
    release();
    await stopping;
    expect(finished).to.equal(1);
    expect(runs).to.equal(1);
  });
});
