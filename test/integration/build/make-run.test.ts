import { expect } from 'chai';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * `make run` rebuilds only what changed (issue 27 item 8). Dry runs (`make -n`) of the Makefile's rules with the
 * build stamps in a temporary folder: nothing is compiled, so it says what a real run would do. `-o` keeps the
 * dependency install out of it (its stamp is the one `npm ci` writes).
 */
const ROOT = path.resolve(__dirname, '../../..');
const FULL_BUILD = 'node_modules/.bin/tsc -p tsconfig.json --incremental --tsBuildInfoFile dist/.tsbuildinfo';
const VERIFIER_BUILD = 'node_modules/.bin/tsc -p webhook-verifier/tsconfig.json';

function dryRun(stamps: { build: string; verifier: string }): Promise<string[]> {
  return new Promise((resolve, reject) => {
    execFile(
      'make',
      ['-n', '--no-print-directory', 'run', '-o', 'node_modules/.installed', `BUILD_STAMP=${stamps.build}`, `VERIFIER_BUILD=${stamps.verifier}`],
      // Run from `make test`, make passes its flags down (MAKEFLAGS, MAKELEVEL): a nested make would print its directory.
      { cwd: ROOT, timeout: 60_000, env: { ...process.env, MAKEFLAGS: '', MAKELEVEL: '' } },
      (error, stdout, stderr) => (error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout.trim().split('\n'))),
    );
  });
}

describe('make run rebuilds only what changed', () => {
  const folder = fs.mkdtempSync(path.join(tmpdir(), 'make-run-'));
  const stamps = { build: path.join(folder, 'built'), verifier: path.join(folder, 'verifier.js') };
  const at = (file: string, when: Date) => {
    fs.writeFileSync(file, '');
    fs.utimesSync(file, when, when);
  };
  const tomorrow = new Date(Date.now() + 86_400_000);
  const longAgo = new Date(1_000_000);
  after(() => fs.rmSync(folder, { recursive: true, force: true }));

  it('an unchanged tree compiles nothing and starts the service at once', async () => {
    at(stamps.verifier, tomorrow);
    at(stamps.build, tomorrow);
    const commands = await dryRun(stamps);
    expect(commands, commands.join('\n')).to.have.length(1);
    expect(commands[0]).to.match(/^node --max-semi-space-size=64 dist\/infrastructure\/main\/main\.js/);
  });

  it('a source newer than the last build recompiles incrementally (tsc keeps its build info in dist/)', async () => {
    at(stamps.verifier, tomorrow);
    at(stamps.build, longAgo);
    const commands = await dryRun(stamps);
    expect(commands).to.include(FULL_BUILD);
    expect(commands).to.not.include(VERIFIER_BUILD);
  });

  it("a change to the verifier package rebuilds it, and the service's build after it", async () => {
    at(stamps.verifier, longAgo);
    at(stamps.build, tomorrow);
    const commands = await dryRun(stamps);
    expect(commands.indexOf(VERIFIER_BUILD)).to.be.greaterThan(-1).and.lessThan(commands.indexOf(FULL_BUILD));
  });
});
