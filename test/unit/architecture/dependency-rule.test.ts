import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..', '..');

function sourceFiles(directory: string): string[] {
  return fs.readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

function importsOf(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:import|export)[^'"]*?from\s+['"]([^'"]+)['"]|require\(\s*['"]([^'"]+)['"]\s*\)|import\(\s*['"]([^'"]+)['"]\s*\)/g)].map(
    (match) => match[1] ?? match[2] ?? match[3],
  );
}

/** Node modules the domain may use: pure computation only (hashing for tokens and fingerprints). */
const ALLOWED_NODE_MODULES = new Set(['node:crypto', 'crypto']);
/** Pure libraries (no I/O), each behind the one domain module that may import it. */
const ALLOWED_LIBRARIES: Record<string, string> = { 'ipaddr.js': 'domain/shared/ip-address.ts' };

describe('architecture: dependency rule', () => {
  it('keeps domain/ free of imports from outside domain/ (no framework, no I/O)', () => {
    const offenders: string[] = [];
    for (const file of sourceFiles(path.join(ROOT, 'domain'))) {
      for (const specifier of importsOf(file)) {
        if (ALLOWED_NODE_MODULES.has(specifier)) continue;
        if (ALLOWED_LIBRARIES[specifier] === path.relative(ROOT, file).split(path.sep).join('/')) continue;
        const resolved = specifier.startsWith('.') ? path.resolve(path.dirname(file), specifier) : null;
        if (!resolved || !resolved.startsWith(path.join(ROOT, 'domain') + path.sep)) {
          offenders.push(`${path.relative(ROOT, file)} -> ${specifier}`);
        }
      }
    }
    expect(offenders).to.deep.equal([]);
  });

  it('keeps application/ free of infrastructure and edge imports', () => {
    const offenders = sourceFiles(path.join(ROOT, 'application')).flatMap((file) =>
      importsOf(file)
        .filter((specifier) => /(^|\/)(infrastructure|edge)\//.test(specifier) || /^(koa|@koa\/|@mikro-orm\/|@grpc\/|nats|pg|pino)/.test(specifier))
        .map((specifier) => `${path.relative(ROOT, file)} -> ${specifier}`),
    );
    expect(offenders).to.deep.equal([]);
  });
});
