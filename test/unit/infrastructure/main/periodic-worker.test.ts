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
});
