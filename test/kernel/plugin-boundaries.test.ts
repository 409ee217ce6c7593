import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { PROJECT_ROOT } from '../../kernel/loader.ts';

const KERNEL = path.join(PROJECT_ROOT, 'kernel');
const PLUGINS = path.join(PROJECT_ROOT, 'plugins');
const KERNEL_SURFACE = path.join(KERNEL, 'index.ts');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : sourceFiles(full);
    return /\.(ts|js|mjs)$/.test(e.name) && !e.name.endsWith('.d.ts') ? [full] : [];
  });
}

const inside = (file: string, dir: string) => file === dir || file.startsWith(dir + path.sep);
const pluginOf = (file: string) => (inside(file, PLUGINS) ? path.relative(PLUGINS, file).split(path.sep)[0] : null);

/**
 * The import rules of the plugin contract, for one file's text: plugin code imports the kernel only
 * through kernel/index.ts (tests may also use kernel internals and the test helpers); no plugin file
 * imports another plugin's files; the kernel imports no plugin.
 */
export function boundaryViolations(file: string, text: string): string[] {
  const found: string[] = [];
  const owner = pluginOf(file);
  const isTest = owner !== null && inside(file, path.join(PLUGINS, owner, 'test'));
  for (const ref of ts.preProcessFile(text, true, true).importedFiles) {
    if (!ref.fileName.startsWith('.')) continue;
    const target = path.resolve(path.dirname(file), ref.fileName);
    const at = `${path.relative(PROJECT_ROOT, file)} imports ${ref.fileName}`;
    if (owner === null) {
      if (inside(file, KERNEL) && inside(target, PLUGINS)) found.push(`${at}: the kernel never imports a plugin`);
      continue;
    }
    const targetPlugin = pluginOf(target);
    if (targetPlugin !== null && targetPlugin !== owner)
      found.push(`${at}: a plugin never imports another plugin (talk through provided services or hooks)`);
    if (!isTest && inside(target, KERNEL) && target !== KERNEL_SURFACE)
      found.push(`${at}: plugins import the kernel only through kernel/index.ts`);
  }
  return found;
}

describe('plugin boundaries: imports keep to the contract', () => {
  it('no plugin reaches past kernel/index.ts or into another plugin, and the kernel imports no plugin', () => {
    const files = [...sourceFiles(PLUGINS), ...sourceFiles(KERNEL)];
    expect(files.length).to.be.greaterThan(50);
    const violations = files.flatMap((f) => boundaryViolations(f, readFileSync(f, 'utf8')));
    expect(violations, violations.join('\n')).to.deep.equal([]);
  });

  it('catches each kind of violation (the rule can fail)', () => {
    const service = path.join(PLUGINS, 'data', 'services', 'x.ts');
    const test = path.join(PLUGINS, 'data', 'test', 'x.test.ts');
    expect(boundaryViolations(service, "import { hashToken } from '../../../kernel/passwords.ts';")).to.have.length(1);
    expect(boundaryViolations(service, "import type { X } from '../../identity/services/users.ts';")).to.have.length(1);
    expect(boundaryViolations(service, "const m = await import('../../audit/index.ts');")).to.have.length(1);
    expect(boundaryViolations(test, "import { x } from '../../identity/test/helpers.ts';")).to.have.length(1);
    expect(boundaryViolations(path.join(KERNEL, 'x.ts'), "import d from '../plugins/data/index.ts';")).to.have.length(
      1,
    );
    expect(
      boundaryViolations(
        service,
        "import { badRequest } from '../../../kernel/index.ts';\nimport { y } from './y.ts';",
      ),
    ).to.deep.equal([]);
    expect(boundaryViolations(test, "import { ManualClock } from '../../../kernel/clock.ts';")).to.deep.equal([]);
  });
});
