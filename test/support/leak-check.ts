/**
 * Handle-leak check for runs without mocha's `--exit`. Without it mocha waits for the event loop to drain, so a
 * server, socket, timer, pool, NATS connection, child process or worker thread left open by a test hangs the run.
 * After the run's closers have run, `failOnLeakedHandles` fails the run naming what still keeps the loop alive,
 * and arms a watchdog that ends a process still alive some seconds later, so a leak can never hang CI.
 *
 * TEST_LEAK_ORIGINS=1 also names the test file (and the stack) that opened each leaked handle; it is opt-in
 * because tracking every asynchronous resource slows the run.
 */
import { createHook } from 'node:async_hooks';

/** How long the closed resources get to finish closing (a socket's close event takes a few ticks). */
const SETTLE_MS = Number(process.env.TEST_LEAK_SETTLE_MS ?? 5_000);
/** How long a process that passed the check may take to exit before the watchdog ends it. */
const WATCHDOG_MS = Number(process.env.TEST_EXIT_WATCHDOG_MS ?? 30_000);

/**
 * What keeps the event loop alive besides the process's own stdio: resource types as
 * process.getActiveResourcesInfo() names them ('TCPWRAP', 'Timeout', 'ChildProcess', ...).
 */
export function liveResources(): string[] {
  const resources = process.getActiveResourcesInfo().filter((type) => type !== 'TTYWrap');
  // stdout and stderr are pipes under CI; each is one PipeWrap that is not a leak.
  let stdioPipes = [process.stdout, process.stderr].filter((stream) => (stream as unknown as { _type?: string })._type === 'pipe').length;
  return resources.filter((type) => !(type === 'PipeWrap' && stdioPipes-- > 0));
}

/** Human detail for the open handles (addresses of sockets and servers, pids of child processes). */
function describeHandles(): string[] {
  const getHandles = (process as unknown as { _getActiveHandles?: () => unknown[] })._getActiveHandles;
  if (!getHandles) return [];
  const stdio = new Set<unknown>([process.stdout, process.stderr]);
  return getHandles.call(process).filter((handle) => !stdio.has(handle)).map(describeHandle);
}

function describeHandle(handle: unknown): string {
  const h = handle as Record<string, unknown> & { constructor?: { name?: string }; address?: () => unknown };
  const kind = h.constructor?.name ?? typeof handle;
  // Sockets, servers and child processes wrap the native handle async_hooks saw being opened.
  const origin = origins.get(handle as object) ?? (h._handle && typeof h._handle === 'object' ? origins.get(h._handle) : undefined) ?? '';
  if (typeof h.remoteAddress === 'string') return `${kind} to ${h.remoteAddress}:${String(h.remotePort)}${origin}`;
  if (typeof h.pid === 'number') return `${kind} pid ${h.pid} (${String(h.spawnfile ?? '')})${origin}`;
  if (typeof h.address === 'function') {
    try { return `${kind} listening on ${JSON.stringify(h.address())}${origin}`; } catch { /* closed meanwhile */ }
  }
  if (kind === 'Timeout') return `Timeout of ${String(h._idleTimeout)} ms${origin}`;
  return `${kind}${origin}`;
}

/** Where each tracked resource was opened, when TEST_LEAK_ORIGINS=1 (keyed by the resource object). */
const origins = new WeakMap<object, string>();
let currentTestFile = '(outside any test)';

/** Called by the root hooks before each test so the origins know which file is running. */
export function noteRunningTestFile(file: string | undefined): void {
  if (file) currentTestFile = file.replace(`${process.cwd()}/`, '');
}

if (process.env.TEST_LEAK_ORIGINS === '1') {
  Error.stackTraceLimit = 40;
  createHook({
    init(_id, type, _trigger, resource) {
      if (type === 'PROMISE' || typeof resource !== 'object' || resource === null) return;
      const frames = (new Error().stack ?? '').split('\n').slice(1).filter((line) => !line.includes('node:') && !line.includes('leak-check'));
      // The test file on the stack when there is one (async stacks lose it), else the file whose test ran last.
      const testFrame = frames.find((line) => line.includes('/test/') && !line.includes('/test/support/'));
      const file = testFrame?.match(/(test\/[^:)]+)/)?.[1] ?? currentTestFile;
      const where = frames.slice(0, 6).map((line) => `      ${line.trim()}`).join('\n');
      origins.set(resource, `, opened by ${file}${where ? `\n${where}` : ''}`);
    },
  }).enable();
}

function report(resources: string[]): string {
  return [`${resources.length} handle(s) still keep the event loop alive: ${resources.join(', ')}`, ...describeHandles().map((line) => `  - ${line}`)].join('\n');
}

/**
 * The last root hook: polls until nothing but stdio keeps the loop alive and throws, naming what does, if
 * something still does after SETTLE_MS. Then arms the exit watchdog.
 */
export async function failOnLeakedHandles(this: Mocha.Context): Promise<void> {
  const hook = this.runnable();
  const deadline = Date.now() + SETTLE_MS;
  let resources: string[];
  for (;;) {
    // Referenced, so that the process does not exit while this hook waits (everything else may be closed already,
    // and an exit here skips mocha's summary); a timer that fired is no longer an active resource, so it is not
    // counted below. This hook's own mocha timer is a Timeout too: drop it so it is not counted as a leak.
    await new Promise((resolve) => setTimeout(resolve, 50));
    hook.clearTimeout();
    resources = liveResources();
    if (resources.length === 0 || Date.now() > deadline) break;
  }
  armExitWatchdog();
  if (resources.length > 0) throw new Error(`Leaked handles after the run's closers: ${report(resources)}`);
}

/** Ends a process that should have exited by now, naming what holds it, with a failing exit code. */
function armExitWatchdog(): void {
  setTimeout(() => {
    console.error(`\nThe test process did not exit ${WATCHDOG_MS} ms after the run ended. ${report(liveResources())}`);
    // mocha sets the exit code to the failure count in its own 'exit' listener; this one runs after it.
    process.on('exit', () => { process.exitCode = 1; });
    process.exit(1);
  }, WATCHDOG_MS).unref();
}
