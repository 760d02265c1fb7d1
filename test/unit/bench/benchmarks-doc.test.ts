import { expect } from 'chai';
import { benchmarksDocument } from '../../../bench/benchmarks-doc';

const table = (when: string) => `# Benchmarks\n\nRun ${when} on 2 cores.\n\n| setup | scenario |\n|---|---|\n| a | b |\n`;

describe('docs/benchmarks.md after a full make bench', () => {
  it('starts with the new table and keeps the earlier table and every note below it', () => {
    const previous = `${table('2026-11-26T06:53:35.197Z')}\n## Notes on the 06:53 UTC run\n\n- slow machine\n\n## Notes on the 06:08 UTC run\n\n- fast\n`;
    const written = benchmarksDocument(table('2026-11-26T13:23:29.295Z'), previous);
    expect(written.startsWith(table('2026-11-26T13:23:29.295Z').trimEnd())).to.equal(true);
    const order = ['Run 2026-11-26T13:23', '## The table of the run before (2026-11-26T06:53:35.197Z)', 'Run 2026-11-26T06:53', '## Notes on the 06:53 UTC run', '- slow machine', '## Notes on the 06:08 UTC run'];
    const positions = order.map((text) => written.indexOf(text));
    expect(positions.every((at) => at >= 0), written).to.equal(true);
    expect([...positions].sort((a, b) => a - b)).to.deep.equal(positions);
    expect(written.match(/^# Benchmarks$/gm)).to.have.length(1);
  });

  it('is the table alone when there was no file, and keeps notes that had no table above them', () => {
    expect(benchmarksDocument(table('2026-11-26T13:23:29.295Z'), null)).to.equal(table('2026-11-26T13:23:29.295Z'));
    const written = benchmarksDocument(table('2026-11-26T13:23:29.295Z'), '# Benchmarks\n\n## Notes\n\n- kept\n');
    expect(written).to.include('## Notes\n\n- kept');
    expect(written).not.to.include('The table of the run before');
  });
});
