/**
 * The webhook verifier as merchants install it: built, packed with `npm pack` (so "files" and "exports" are the
 * published ones), unpacked into a directory outside the repository (no node_modules above it, so no runtime
 * dependency can sneak in), then loaded by plain `node` child processes, without tsx, from CommonJS and ESM.
 */
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdtemp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { generateWebhookSecret, sign } from '../../../infrastructure/crypto/webhook-signer';

const run = promisify(execFile);
const repository = path.resolve(__dirname, '../../..');
const packageDir = path.join(repository, 'webhook-verifier');
const packageName = '@payment-orchestration/webhook-verifier';

/** What a consumer prints: the event it verified, the code a tampered body got, and where the name resolved. */
interface ConsumerReport {
  eventId: string;
  tamperedCode: string;
  sameErrorClass: boolean;
  resolved: string;
  exportNames: string[];
}

const cjsConsumer = `
const verifier = require('${packageName}');
const { verifyWebhook, WebhookVerificationError } = verifier;
const c = JSON.parse(process.env.VERIFY_CASE);
const event = verifyWebhook({ rawBody: Buffer.from(c.body), signatureHeader: c.header, secret: c.secret, now: c.now });
let tamperedCode = null;
try { verifyWebhook({ rawBody: c.body.replace('evt_', 'evx_'), signatureHeader: c.header, secret: c.secret, now: c.now }); }
catch (error) { if (error instanceof WebhookVerificationError) tamperedCode = error.code; }
import('${packageName}').then((esm) => {
  console.log(JSON.stringify({ eventId: event.id, tamperedCode, sameErrorClass: esm.WebhookVerificationError === WebhookVerificationError,
    resolved: require.resolve('${packageName}'), exportNames: Object.keys(verifier).sort() }));
});
`;

const esmConsumer = `
import { verifyWebhook, WebhookVerificationError } from '${packageName}';
import * as verifier from '${packageName}';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
const c = JSON.parse(process.env.VERIFY_CASE);
const event = verifyWebhook({ rawBody: c.body, signatureHeader: c.header, secret: [c.otherSecret, c.secret], now: new Date(c.now * 1000) });
let tamperedCode = null;
try { verifyWebhook({ rawBody: c.body.replace('evt_', 'evx_'), signatureHeader: c.header, secret: c.secret, now: c.now }); }
catch (error) { if (error instanceof WebhookVerificationError) tamperedCode = error.code; }
const fromRequire = createRequire(import.meta.url)('${packageName}');
console.log(JSON.stringify({ eventId: event.id, tamperedCode, sameErrorClass: fromRequire.WebhookVerificationError === WebhookVerificationError,
  resolved: fileURLToPath(import.meta.resolve('${packageName}')), exportNames: Object.keys(verifier).sort() }));
`;

/** TypeScript consumers: the declarations must type both entry points, and a wrong call must not compile. */
const typedUse = (importLine: string) => `${importLine}
const event = verifyWebhook<{ id: string }>({ rawBody: Buffer.from('{}'), signatureHeader: 't=1,v1=00', secret: ['whsec_a'], now: 1 });
const id: string = event.data.object.id;
const code: 'missing_signature' | 'malformed_signature' | 'timestamp_out_of_tolerance' | 'signature_mismatch' | 'invalid_payload' =
  new WebhookVerificationError('signature_mismatch', 'x').code;
const seconds: number = DEFAULT_TOLERANCE_SECONDS;
// @ts-expect-error the secret is required
verifyWebhook({ rawBody: '{}', signatureHeader: 't=1,v1=00' });
export { id, code, seconds };
`;

describe('webhook verifier package: the built output from CommonJS and ESM, without a TypeScript runner', function () {
  this.timeout(180_000);
  let consumerDir: string;
  let workDir: string;
  const now = 1_767_225_600;
  const secret = generateWebhookSecret();
  const body = JSON.stringify({ id: 'evt_pkg', type: 'payment.captured', apiVersion: '2026-01-01', data: { object: { id: 'pay_1' } } });
  const verifyCase = JSON.stringify({ body, header: sign([secret], now, body), secret, otherSecret: generateWebhookSecret(), now });

  const runNode = async (file: string): Promise<ConsumerReport> => {
    // A clean environment: no NODE_OPTIONS (tsx registers nothing in the child), only what node needs.
    const { stdout } = await run(process.execPath, [file], { cwd: consumerDir, env: { PATH: process.env.PATH ?? '', VERIFY_CASE: verifyCase } });
    return JSON.parse(stdout) as ConsumerReport;
  };

  before(async () => {
    // The same build `make build` runs, so the test never checks a stale dist/.
    await run('npm', ['run', '--silent', 'build'], { cwd: packageDir });
    workDir = await mkdtemp(path.join(tmpdir(), 'webhook-verifier-package-'));
    const { stdout } = await run('npm', ['pack', '--silent', '--pack-destination', workDir], { cwd: packageDir });
    const tarball = path.join(workDir, stdout.trim().split('\n').pop()!);
    consumerDir = path.join(workDir, 'consumer');
    const installed = path.join(consumerDir, 'node_modules', ...packageName.split('/'));
    await mkdir(installed, { recursive: true });
    await run('tar', ['-xzf', tarball, '-C', installed, '--strip-components=1']);
    await writeFile(path.join(consumerDir, 'consumer.cjs'), cjsConsumer);
    await writeFile(path.join(consumerDir, 'consumer.mjs'), esmConsumer);
  });
  after(async () => {
    if (workDir) await rm(workDir, { recursive: true, force: true });
  });

  it('ships only the build, the ESM entry and the README, with no dependencies', async () => {
    const manifest = JSON.parse(await readFile(path.join(consumerDir, 'node_modules', packageName, 'package.json'), 'utf8'));
    expect(manifest).not.to.have.property('dependencies');
    expect(manifest).not.to.have.property('peerDependencies');
    const { stdout } = await run('npm', ['pack', '--dry-run', '--json'], { cwd: packageDir });
    const files = (JSON.parse(stdout) as Array<{ files: Array<{ path: string }> }>)[0].files.map((f) => f.path).sort();
    expect(files).to.deep.equal(['README.md', 'dist/cjs/index.d.ts', 'dist/cjs/index.js', 'esm/index.d.mts', 'esm/index.mjs', 'package.json']);
  });

  it('require() loads the CommonJS build and verifies a signature', async () => {
    const report = await runNode('consumer.cjs');
    expect(report.eventId).to.equal('evt_pkg');
    expect(report.tamperedCode).to.equal('signature_mismatch');
    expect(report.resolved).to.match(/webhook-verifier[/\\]dist[/\\]cjs[/\\]index\.js$/);
    expect(report.exportNames).to.deep.equal(['DEFAULT_TOLERANCE_SECONDS', 'WebhookVerificationError', 'parseSignatureHeader', 'verifyWebhook']);
    expect(report.sameErrorClass, 'import() from CommonJS gets the same class').to.equal(true);
  });

  it('import loads the ESM entry, exports the same names, and shares one error class with require()', async () => {
    const report = await runNode('consumer.mjs');
    expect(report.eventId).to.equal('evt_pkg');
    expect(report.tamperedCode).to.equal('signature_mismatch');
    expect(report.resolved).to.match(/webhook-verifier[/\\]esm[/\\]index\.mjs$/);
    expect(report.exportNames).to.deep.equal(['DEFAULT_TOLERANCE_SECONDS', 'WebhookVerificationError', 'parseSignatureHeader', 'verifyWebhook']);
    expect(report.sameErrorClass).to.equal(true);
  });

  it('types both entry points for TypeScript consumers (node16 CommonJS and ESM, and the older node10 resolution)', async () => {
    const names = 'verifyWebhook, WebhookVerificationError, DEFAULT_TOLERANCE_SECONDS';
    await writeFile(path.join(consumerDir, 'typed.cts'), typedUse(`import { ${names} } from '${packageName}';`));
    await writeFile(path.join(consumerDir, 'typed.mts'), typedUse(`import { ${names} } from '${packageName}';`));
    await writeFile(path.join(consumerDir, 'typed-node10.ts'), typedUse(`import { ${names} } from '${packageName}';`));
    const options = { strict: true, noEmit: true, skipLibCheck: true, types: ['node'], typeRoots: [path.join(repository, 'node_modules/@types')] };
    await writeFile(path.join(consumerDir, 'tsconfig.node16.json'), JSON.stringify({ compilerOptions: { ...options, module: 'node16', moduleResolution: 'node16' }, files: ['typed.cts', 'typed.mts'] }));
    await writeFile(path.join(consumerDir, 'tsconfig.node10.json'), JSON.stringify({ compilerOptions: { ...options, module: 'commonjs', moduleResolution: 'node10' }, files: ['typed-node10.ts'] }));
    const tsc = path.join(repository, 'node_modules/typescript/bin/tsc');
    for (const project of ['tsconfig.node16.json', 'tsconfig.node10.json']) {
      const result = await run(process.execPath, [tsc, '-p', project], { cwd: consumerDir }).then(() => 'compiles', (error: { stdout: string }) => error.stdout);
      expect(result, project).to.equal('compiles');
    }
  });
});
