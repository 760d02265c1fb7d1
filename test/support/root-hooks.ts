/**
 * Mocha root hooks for every run. Integration resources (the run's database, NATS stream, servers) are
 * opened lazily by the suites that need them and registered here for closing, so unit tests touch no I/O.
 */
import chai from 'chai';
import chaiAsPromised from 'chai-as-promised';

chai.use(chaiAsPromised);

type Closer = () => Promise<void> | void;
const closers: Closer[] = [];

/** Registers a resource to close once the whole run is over (after every suite). */
export function closeAfterRun(closer: Closer): void {
  closers.push(closer);
}

export const mochaHooks = {
  async afterAll(): Promise<void> {
    for (const close of closers.reverse()) {
      try {
        await close();
      } catch (error) {
        console.error('closing a test resource failed', error);
      }
    }
  },
};
