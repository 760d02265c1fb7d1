/**
 * Mocha root hooks for every run. Integration resources (the run's databases, NATS streams, servers) are
 * opened lazily by the suites that need them and registered here for closing, so unit tests touch no I/O.
 */
import chai from 'chai';
import chaiAsPromised from 'chai-as-promised';
import { failOnLeakedHandles, noteRunningTestFile } from './leak-check';

chai.use(chaiAsPromised);

type Closer = () => Promise<void> | void;

/**
 * `services` close first (they hold connections to what `resources` are: databases, containers, private
 * servers); each group closes in parallel.
 */
const closers: Record<'services' | 'resources', Closer[]> = { services: [], resources: [] };

/** Registers something to close once the whole run is over (after every suite). */
export function closeAfterRun(closer: Closer, group: 'services' | 'resources' = 'services'): void {
  closers[group].push(closer);
}

async function closeAll(list: Closer[]): Promise<void> {
  const results = await Promise.allSettled(list.map(async (close) => close()));
  for (const result of results) if (result.status === 'rejected') console.error('closing a test resource failed', result.reason);
}

export const mochaHooks = {
  beforeEach(this: Mocha.Context): void {
    noteRunningTestFile(this.currentTest?.file);
  },
  // Runs without mocha's --exit: once everything registered here is closed, nothing may keep the process alive.
  afterAll: [
    async function closeEverything(this: Mocha.Context): Promise<void> {
      this.timeout(180_000);
      await closeAll(closers.services.splice(0));
      await closeAll(closers.resources.splice(0));
    },
    failOnLeakedHandles,
  ],
};
