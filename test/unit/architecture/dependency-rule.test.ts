import { expect } from 'chai';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..', '..');
/** The layers the rule speaks of; test/ and bench/ may import anything. */
const LAYERS = ['domain', 'application', 'edge', 'infrastructure'];

/**
 * The dependency rule of docs/engineering.md, as written in .dependency-cruiser.cjs: domain imports only domain;
 * application only domain; edge only application and domain; infrastructure may import all; no cycle in the
 * domain; ipaddr.js only in domain/shared/ip-address.ts. Run here rather than as a separate step, so a violation
 * fails `make test` and shows in mocha's summary with the offending imports.
 */
describe('architecture: dependency rule (dependency-cruiser)', () => {
  it('finds no import that crosses a layer the wrong way', async function () {
    this.timeout(120_000); // parses every source file; slow on a busy machine
    // dependency-cruiser is ESM-only: imported, not required.
    const { cruise } = await import('dependency-cruiser');
    const { default: extractDepcruiseOptions } = await import('dependency-cruiser/config-utl/extract-depcruise-options');
    const { default: extractTSConfig } = await import('dependency-cruiser/config-utl/extract-ts-config');

    const options = await extractDepcruiseOptions(path.join(ROOT, '.dependency-cruiser.cjs'));
    const tsConfig = extractTSConfig(path.join(ROOT, 'tsconfig.json'));
    // baseDir: the rules' paths are relative to the repository, wherever mocha was started.
    const result = await cruise(LAYERS, { ...options, baseDir: ROOT, validate: true }, {}, { tsConfig });
    if (typeof result.output === 'string') throw new Error('dependency-cruiser answered text, not a cruise result');
    const { summary } = result.output;
    const violations = summary.violations
      .filter((violation) => violation.rule.severity === 'error')
      .map((violation) => {
        const route = violation.cycle ? violation.cycle.map((step) => step.name).join(' -> ') : violation.to;
        return `${violation.rule.name}: ${violation.from} -> ${route}`;
      });
    expect(summary.totalCruised, 'modules cruised').to.be.greaterThan(100);
    expect(violations, `imports that break the dependency rule (.dependency-cruiser.cjs):\n  ${violations.join('\n  ')}\n`).to.deep.equal([]);
  });
});
