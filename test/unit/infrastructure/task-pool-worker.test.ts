import { expect } from 'chai';
import { taskPoolWorker } from '../../../infrastructure/main/task-pool-worker';
import { eventually } from '../../support/eventually';

/** A queue of due tasks, each finishing when the test releases it. */
class Tasks {
  readonly due: string[] = [];
  readonly started: string[] = [];
  readonly finished: string[] = [];
  readonly claims: number[] = [];
  inFlight = 0;
  maxInFlight = 0;
  private readonly releases = new Map<string, () => void>();

  claim = async (limit: number): Promise<string[]> => {
    this.claims.push(limit);
    return this.due.splice(0, limit);
  };

  work = async (task: string): Promise<void> => {
    this.started.push(task);
    this.inFlight += 1;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    await new Promise<void>((resolve) => this.releases.set(task, resolve));
    this.inFlight -= 1;
    this.finished.push(task);
  };

  release(task: string): void {
    this.releases.get(task)?.();
  }
}

describe('task-pool workers (recovery, reconciliation, settlement)', () => {
  it('keeps at most `concurrency` tasks in flight and starts the next as soon as one ends, while a slow one keeps waiting', async () => {
    const tasks = new Tasks();
    tasks.due.push('slow', 'b', 'c', 'd', 'e');
    const worker = taskPoolWorker({ name: 't', claim: tasks.claim, work: tasks.work, keyOf: (t) => t, concurrency: 2, idleMs: 10, onError: () => undefined });
    const started = await worker.start();
    try {
      await eventually(() => tasks.started.length === 2, 5_000, 5);
      expect(tasks.started).to.deep.equal(['slow', 'b']);
      // 'slow' never ends during the test (an acquirer stalled): the other slot works through the rest one by one.
      for (const [done, next] of [['b', 'c'], ['c', 'd'], ['d', 'e']] as const) {
        tasks.release(done);
        await eventually(() => tasks.started.includes(next), 5_000, 5);
      }
      expect(tasks.maxInFlight).to.equal(2);
      expect(tasks.claims.every((limit) => limit <= 2)).to.equal(true);
      tasks.release('e');
      await eventually(() => tasks.finished.includes('e'), 5_000, 5);
      expect(tasks.finished).to.not.include('slow');
    } finally {
      tasks.release('slow');
      await started.stop();
    }
  });

  it('stops claiming on stop and resolves only once the tasks in flight have finished (the drain)', async () => {
    const tasks = new Tasks();
    tasks.due.push('a', 'b');
    const worker = taskPoolWorker({ name: 't', claim: tasks.claim, work: tasks.work, keyOf: (t) => t, concurrency: 2, idleMs: 10, onError: () => undefined });
    const started = await worker.start();
    await eventually(() => tasks.started.length === 2, 5_000, 5);
    tasks.due.push('c');
    let stopped = false;
    const stopping = started.stop().then(() => (stopped = true));
    tasks.release('a');
    await eventually(() => tasks.finished.includes('a'), 5_000, 5);
    await new Promise((resolve) => setTimeout(resolve, 30)); // several idle periods: nothing new may be claimed
    expect(stopped, 'stop waits for b').to.equal(false);
    tasks.release('b');
    await stopping;
    expect(tasks.finished).to.have.members(['a', 'b']);
    expect(tasks.started).to.not.include('c');
  });

  it('does not start a task again while it is in flight when a read returns it twice; keeps going after failures', async () => {
    const starts: string[] = [];
    const errors: unknown[] = [];
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let claims = 0;
    const worker = taskPoolWorker<string>({
      name: 't',
      claim: async () => {
        claims += 1;
        if (claims === 2) throw new Error('database hiccup');
        return ['op_1'];
      },
      work: async (task) => {
        starts.push(task);
        if (starts.length === 1) await held;
        else throw new Error('work failed');
      },
      keyOf: (t) => t,
      concurrency: 4,
      idleMs: 5,
      onError: (error) => errors.push(error),
    });
    const started = await worker.start();
    try {
      await eventually(() => claims >= 4, 5_000, 5);
      expect(starts).to.deep.equal(['op_1']);
      release();
      await eventually(() => starts.length >= 2 && errors.some((e) => (e as Error).message === 'work failed'), 5_000, 5);
      expect(errors.some((e) => (e as Error).message === 'database hiccup')).to.equal(true);
    } finally {
      await started.stop();
    }
    const after = claims;
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(claims, 'no claim after stop').to.equal(after);
  });
});
