import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { PROJECT_ROOT } from '../../kernel/loader.ts';

const run = promisify(execFile);

/** Table rows as trimmed cells, so the formatter's column padding does not count. */
const cells = (table: string) =>
  table
    .split('\n')
    .filter((line) => line.startsWith('|') && !/^\|[\s|:-]+\|$/.test(line))
    .map((line) =>
      line
        .slice(1, -1)
        .split(/(?<!\\)\|/)
        .map((cell) => cell.trim()),
    );

describe('README configuration table', function () {
  this.timeout(60_000);

  it('lists exactly what the kernel and every plugin read (npm run config:table -- --write)', async () => {
    const { stdout } = await run('node', ['--import', 'tsx', 'scripts/config-table.ts'], { cwd: PROJECT_ROOT });
    const readme = readFileSync(path.join(PROJECT_ROOT, 'README.md'), 'utf8');
    const start = readme.indexOf('<!-- config-table:start -->');
    const end = readme.indexOf('<!-- config-table:end -->');
    expect(start, 'markers').to.be.greaterThan(-1);
    expect(cells(stdout).length, 'rows generated').to.be.greaterThan(20);
    expect(cells(readme.slice(start, end))).to.deep.equal(cells(stdout));
  });
});
