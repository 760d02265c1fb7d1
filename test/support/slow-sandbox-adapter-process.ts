/**
 * `main.js connector sandbox` with one test-only change: the sandbox's timeout scenario holds a call for
 * SLOW_CALL_MS (default 3000) instead of 15 s, so a test has a call of known length in flight when it sends SIGTERM.
 * Runs the adapter through the real entry point (runConnectorProcess), drain included.
 */
import { ADAPTER_STARTERS, runConnectorProcess } from '../../infrastructure/main/connector-process-entry';
import { startSandboxAcquirer } from '../../infrastructure/connectors/sandbox/sandbox-acquirer.server';

const timeoutScenarioDelayMs = Number(process.env.SLOW_CALL_MS ?? 3_000);
ADAPTER_STARTERS['sandbox-slow'] = async () => (options) => startSandboxAcquirer({ ...options, timeoutScenarioDelayMs });

runConnectorProcess('sandbox-slow').catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
