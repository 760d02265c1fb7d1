import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../../../..');
const TSX = path.join(ROOT, 'node_modules/.bin/tsx');
const MAIN = path.join(ROOT, 'infrastructure/main/main.ts');

/** Runs `main.ts migrate` (the shortest start-up) as an operator would, and collects what it prints. */
function migrateWith(env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'refusals-'));
  return new Promise((resolve) => {
    execFile(TSX, [MAIN, 'migrate'], { cwd: ROOT, env: { PATH: process.env.PATH, DATA_DIR: dataDir, ...env }, timeout: 90_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

/** One sentence on one line, no stack frame. */
function expectOneSentence(stderr: string, expected: string): void {
  const lines = stderr.trim().split('\n');
  expect(lines, stderr).to.have.length(1);
  expect(lines[0]).to.equal(expected);
  expect(stderr).to.not.match(/\n\s+at /);
}

describe('start-up refusals: a setting that cannot work is one sentence naming it, not a stack', function () {
  this.timeout(120_000);

  it('an unknown LOG_LEVEL', async () => {
    const result = await migrateWith({ LOG_LEVEL: 'verbose' });
    expect(result.code).to.equal(1);
    expectOneSentence(result.stderr, 'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "verbose"');
  });

  it('an unreachable DATABASE_URL, without the password it carries', async () => {
    const result = await migrateWith({ DATABASE_URL: 'postgres://owner:s3cret-pw@127.0.0.1:1/payments' });
    expect(result.code).to.equal(1);
    expectOneSentence(result.stderr, 'DATABASE_URL: cannot reach PostgreSQL at postgres://127.0.0.1:1/payments (ECONNREFUSED); start it or correct DATABASE_URL.');
    expect(result.stdout + result.stderr).to.not.include('s3cret-pw');
  });

  it('an unreachable NATS_URL (the embedded database answering)', async () => {
    const result = await migrateWith({ NATS_URL: 'nats://user:natspw@127.0.0.1:1', LOG_LEVEL: 'silent' });
    expect(result.code).to.equal(1);
    expectOneSentence(result.stderr, 'NATS_URL: cannot reach NATS JetStream at nats://127.0.0.1:1 (CONNECTION_REFUSED); start it or correct NATS_URL.');
    expect(result.stdout + result.stderr).to.not.include('natspw');
  });
});
