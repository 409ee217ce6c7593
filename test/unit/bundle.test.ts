import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { PROJECT_ROOT } from '../../kernel/loader.ts';
import { sourceBundle, sourceFingerprint } from '../../runtime/bundle.ts';

const run = promisify(execFile);

describe('start-up bundle of the sources (runtime/bundle.ts)', function () {
  this.timeout(120_000);

  it('is made once for the current sources and reused by the next start', async () => {
    const first = await sourceBundle();
    expect(first, 'a bundle').to.be.a('string');
    expect(existsSync(fileURLToPath(first!))).to.equal(true);
    expect(await sourceBundle()).to.equal(first);
  });

  it('is named by every source file: a changed, added or removed file makes another', () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'cms-fingerprint-'));
    try {
      mkdirSync(path.join(root, 'kernel'));
      mkdirSync(path.join(root, 'plugins', 'notes', 'test'), { recursive: true });
      writeFileSync(path.join(root, 'kernel', 'a.ts'), 'export const a = 1;\n');
      const initial = sourceFingerprint(root);
      expect(sourceFingerprint(root)).to.equal(initial);
      // A test file is never bundled: it does not count.
      writeFileSync(path.join(root, 'plugins', 'notes', 'test', 'x.test.ts'), '');
      expect(sourceFingerprint(root)).to.equal(initial);
      writeFileSync(path.join(root, 'plugins', 'notes', 'index.ts'), 'export default {};\n');
      const added = sourceFingerprint(root);
      expect(added).to.not.equal(initial);
      utimesSync(path.join(root, 'kernel', 'a.ts'), new Date(), new Date(Date.now() + 5_000));
      expect(sourceFingerprint(root)).to.not.equal(added);
      rmSync(path.join(root, 'plugins', 'notes', 'index.ts'));
      expect(sourceFingerprint(root)).to.not.equal(added);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('starts the same program: `cms plugins` from the bundle lists every project plugin', async () => {
    const { stdout, stderr } = await run('node', [path.join(PROJECT_ROOT, 'bin', 'cms.js'), 'plugins'], {
      cwd: PROJECT_ROOT,
    });
    expect(stderr, 'no fallback to the separate files').to.not.include('without a bundle');
    const { stdout: unbundled } = await run(
      'node',
      ['--import', 'tsx/esm', '-e', "import('./runtime/cli.ts').then((m) => m.main(['plugins']))"],
      { cwd: PROJECT_ROOT },
    );
    expect(stdout).to.equal(unbundled);
    expect(stdout).to.match(/\bidentity\b/);
  });
});
