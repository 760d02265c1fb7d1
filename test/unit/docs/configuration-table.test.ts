import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';

/**
 * README's configuration table lists every environment variable the code reads (issue 27 item 8): the service's
 * (infrastructure, edge, application) and the benchmark's (bench). Test-only variables are the Tests section's.
 */
const ROOT = path.resolve(__dirname, '../../..');
const SOURCE_FOLDERS = ['infrastructure', 'edge', 'application', 'domain', 'bench'];

/** `process.env.NAME`, `env.NAME`, `env['NAME']` and the configuration's `integer(env, 'NAME', ...)` style readers. */
const READS = [/process\.env\.([A-Z][A-Z0-9_]+)/g, /\benv\.([A-Z][A-Z0-9_]+)/g, /\benv\[['"]([A-Z][A-Z0-9_]+)['"]\]/g, /\(env, ['"]([A-Z][A-Z0-9_]+)['"]/g];

function sourceFiles(folder: string): string[] {
  return fs.readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(folder, entry.name);
    if (entry.isDirectory()) return entry.name === 'generated' ? [] : sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

function variablesRead(): Map<string, string> {
  const read = new Map<string, string>();
  for (const file of SOURCE_FOLDERS.flatMap((folder) => sourceFiles(path.join(ROOT, folder)))) {
    const text = fs.readFileSync(file, 'utf8');
    for (const pattern of READS) for (const match of text.matchAll(pattern)) if (!read.has(match[1]!)) read.set(match[1]!, path.relative(ROOT, file));
  }
  return read;
}

function configurationTable(): string {
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf('## Configuration (environment)');
  expect(start, 'README has a "Configuration (environment)" section').to.be.greaterThan(-1);
  const section = readme.slice(start, readme.indexOf('\n## ', start + 1));
  return section.split('\n').filter((line) => line.startsWith('|')).map((line) => line.split('|')[1] ?? '').join(' ');
}

describe("README's configuration table", () => {
  it('names every environment variable the code reads, in its first column', () => {
    const listed = new Set([...configurationTable().matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((match) => match[1]));
    const read = variablesRead();
    expect(read.size, 'the scan finds the variables').to.be.greaterThan(20);
    const missing = [...read].filter(([name]) => !listed.has(name)).map(([name, file]) => `${name} (read in ${file})`);
    expect(missing, 'variables read but not in the table').to.deep.equal([]);
  });
});
