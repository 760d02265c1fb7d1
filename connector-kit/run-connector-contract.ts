/**
 * The connector contract as a command a partner team runs against its own adapter, in whatever language it is
 * written:
 *
 *   npm run connector-contract -- --address host:port --fixture fixture.json [--timeout ms] [--connect-timeout ms]
 *
 * Checks the address answers gRPC, reads the capabilities (the fixture's, else Describe's), runs the contract
 * (acquirer-contract.ts, the same cases as the in-repo contract tests) with mocha, prints each case and a per-RPC
 * summary, and exits 0 when every case passed, 1 when one failed, 2 when the run could not start (bad arguments,
 * unreadable fixture, nothing listening). docs/connectors.md explains the fixture and the rules checked.
 */
import Mocha from 'mocha';
import { parseArgs } from 'node:util';
import { AcquirerConnectorClient } from '../infrastructure/grpc/generated/connector/v1/connector';
import { GrpcAcquirerGateway } from '../infrastructure/grpc/grpc-acquirer.gateway';
import { createGrpcClient, waitForReady } from '../infrastructure/grpc/grpc-client';
import { ACQUIRER_RPCS, defineAcquirerContract } from './acquirer-contract';
import { FixtureError, loadFixture, type ConnectorContractFixture } from './contract-fixture';

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

const USAGE =
  'Usage: npm run connector-contract -- --address host:port --fixture fixture.json [--timeout ms-per-case] [--connect-timeout ms]';

/** Which capability an RPC's cases need; RPCs not listed are always tested. */
const RPC_CAPABILITIES: Partial<Record<(typeof ACQUIRER_RPCS)[number], readonly string[]>> = {
  Authorize: ['card', 'debit_card'],
  Capture: ['card', 'debit_card'],
  Void: ['card', 'debit_card'],
  Refund: ['refund'],
  CreatePixCharge: ['pix'],
  CreateBoleto: ['boleto'],
  CancelCharge: ['pix', 'boleto'],
  CreateTokenizationSession: ['browser_tokenization'],
  Authenticate3ds: ['three_ds'],
};

class UsageError extends Error {}

interface RunOptions {
  readonly address: string;
  readonly fixturePath: string;
  readonly caseTimeoutMs: number;
  /** How long to wait for the address to answer gRPC before giving up (default 10 s). */
  readonly connectTimeoutMs: number;
}

function parseOptions(argv: readonly string[]): RunOptions {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: { address: { type: 'string' }, fixture: { type: 'string' }, timeout: { type: 'string' }, 'connect-timeout': { type: 'string' }, help: { type: 'boolean' } },
      strict: true,
    }));
  } catch (error) {
    throw new UsageError(`${(error as Error).message}\n${USAGE}`);
  }
  if (values.help) throw new UsageError(USAGE);
  if (!values.address || !/^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):\d{1,5}$/.test(values.address)) {
    throw new UsageError(`--address must be host:port (e.g. 127.0.0.1:50051), got ${values.address ?? 'nothing'}\n${USAGE}`);
  }
  if (!values.fixture) throw new UsageError(`--fixture is required\n${USAGE}`);
  const caseTimeoutMs = values.timeout === undefined ? 30_000 : Number(values.timeout);
  if (!Number.isInteger(caseTimeoutMs) || caseTimeoutMs < 1_000) throw new UsageError(`--timeout must be a whole number of ms, at least 1000\n${USAGE}`);
  const connectTimeoutMs = values['connect-timeout'] === undefined ? 10_000 : Number(values['connect-timeout']);
  if (!Number.isInteger(connectTimeoutMs) || connectTimeoutMs < 100) throw new UsageError(`--connect-timeout must be a whole number of ms, at least 100\n${USAGE}`);
  return { address: values.address, fixturePath: values.fixture, caseTimeoutMs, connectTimeoutMs };
}

async function assertReachable(address: string, timeoutMs: number): Promise<void> {
  const client = createGrpcClient(AcquirerConnectorClient, address);
  try {
    await waitForReady(client, timeoutMs);
  } catch {
    throw new UsageError(`Nothing answers gRPC at ${address} within ${timeoutMs} ms: is the adapter running there (plaintext HTTP/2)?`);
  } finally {
    client.close();
  }
}

/** The fixture's capabilities, else what the adapter's Describe declares. */
async function capabilitiesToTest(address: string, fixture: ConnectorContractFixture): Promise<readonly string[]> {
  if (fixture.capabilities) return fixture.capabilities;
  const gateway = new GrpcAcquirerGateway(address, { deadlineMs: fixture.deadlineMs ?? 5_000 });
  try {
    return (await gateway.describe()).capabilities;
  } catch (error) {
    throw new Error(`Describe failed, so the capabilities to test are unknown (list them in the fixture's "capabilities"): ${(error as Error).message}`);
  } finally {
    gateway.close();
  }
}

interface SuiteTally {
  passed: number;
  failed: number;
}

/** One line per RPC: passed, FAILED, or why it was not tested. */
function summaryLines(tallies: Map<string, SuiteTally>, capabilities: readonly string[]): string[] {
  const declared = new Set(capabilities);
  const rows: Array<[string, string]> = [];
  for (const rpc of ['grpc.health.v1', ...ACQUIRER_RPCS]) {
    const mentions = [...tallies].filter(([title]) => title.split(/[\s(]+/).includes(rpc));
    const passed = mentions.reduce((n, [, t]) => n + t.passed, 0);
    const failed = mentions.reduce((n, [, t]) => n + t.failed, 0);
    if (failed > 0) rows.push([rpc, `FAILED (${failed} of ${plural(passed + failed, 'case')})`]);
    else if (passed > 0) rows.push([rpc, `passed (${plural(passed, 'case')})`]);
    else {
      const needs = RPC_CAPABILITIES[rpc as keyof typeof RPC_CAPABILITIES];
      rows.push([rpc, needs && !needs.some((c) => declared.has(c)) ? `not tested: ${needs.join(' or ')} not declared` : 'not tested']);
    }
  }
  const width = Math.max(...rows.map(([rpc]) => rpc.length));
  return rows.map(([rpc, verdict]) => `  ${rpc.padEnd(width)}  ${verdict}`);
}

async function run(options: RunOptions): Promise<number> {
  const fixture = loadFixture(options.fixturePath);
  await assertReachable(options.address, options.connectTimeoutMs);
  const capabilities = await capabilitiesToTest(options.address, fixture);

  const mocha = new Mocha({ reporter: 'spec', timeout: options.caseTimeoutMs, color: Boolean(process.stdout.isTTY) });
  // Puts describe/it in scope for defineAcquirerContract, as the mocha command does for a test file.
  mocha.suite.emit('pre-require', globalThis, 'connector-contract', mocha);
  defineAcquirerContract(options.address, fixture, capabilities, async () => ({ address: options.address }));

  const tallies = new Map<string, SuiteTally>();
  const tally = (test: Mocha.Runnable, outcome: keyof SuiteTally) => {
    const suite = test.titlePath()[1] ?? test.titlePath()[0] ?? '';
    const entry = tallies.get(suite) ?? { passed: 0, failed: 0 };
    entry[outcome] += 1;
    tallies.set(suite, entry);
  };
  const failures = await new Promise<number>((resolve) => {
    const runner = mocha.run(resolve);
    runner.on('pass', (test) => tally(test, 'passed'));
    runner.on('fail', (test) => tally(test, 'failed'));
  });

  console.log(`Connector contract of the adapter at ${options.address} (fixture ${options.fixturePath})`);
  console.log(`Capabilities tested: ${capabilities.length > 0 ? capabilities.join(', ') : 'none'}`);
  for (const line of summaryLines(tallies, capabilities)) console.log(line);
  console.log(failures === 0 ? 'Result: PASSED' : `Result: FAILED (${plural(failures, 'failing case')})`);
  return failures === 0 ? 0 : 1;
}

Promise.resolve()
  .then(() => run(parseOptions(process.argv.slice(2))))
  .then(
    (code) => process.exit(code),
    (error: unknown) => {
      const expected = error instanceof UsageError || error instanceof FixtureError;
      console.error(expected ? (error as Error).message : `The contract run failed: ${(error as Error).message ?? String(error)}`);
      process.exit(expected ? 2 : 1);
    },
  );
