import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { PROJECT_ROOT } from '../../kernel/loader.ts';

const KERNEL = path.join(PROJECT_ROOT, 'kernel');
const PLUGINS = path.join(PROJECT_ROOT, 'plugins');
const BENCH = path.join(PROJECT_ROOT, 'bench');
const SCRIPTS = path.join(PROJECT_ROOT, 'scripts');
const TESTS = path.join(PROJECT_ROOT, 'test');
const KERNEL_SURFACE = path.join(KERNEL, 'index.ts');
/**
 * The dashboard's public SDK, the one file of another plugin a plugin's `admin/` screens (and other
 * browser apps) may import: its index. The modules behind it (`sdk/api-types.ts`, `sdk/page.tsx`, ...)
 * are internal to the dashboard.
 */
const ADMIN_SDK = path.join(PLUGINS, 'admin-ui', 'app', 'src', 'sdk', 'index.ts');
const ADMIN_APP = path.join(PLUGINS, 'admin-ui', 'app');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : sourceFiles(full);
    return /\.(ts|tsx|js|mjs)$/.test(e.name) && !e.name.endsWith('.d.ts') ? [full] : [];
  });
}

const inside = (file: string, dir: string) => file === dir || file.startsWith(dir + path.sep);
const pluginOf = (file: string) => (inside(file, PLUGINS) ? path.relative(PLUGINS, file).split(path.sep)[0] : null);
const isSpec = (file: string) => /\.test\.(ts|js|mjs)$/.test(file);
/** Browser code: the dashboard app and every plugin's `admin/` screens. */
const isAdminScreen = (file: string) => {
  const plugin = pluginOf(file);
  return plugin !== null && inside(file, path.join(PLUGINS, plugin, 'admin'));
};
/** Another browser application of a plugin (`plugins/page-editor/app/`), built with the dashboard. */
const isOtherApp = (file: string) => {
  const plugin = pluginOf(file);
  return plugin !== null && plugin !== 'admin-ui' && inside(file, path.join(PLUGINS, plugin, 'app'));
};
const isBrowserCode = (file: string) => isAdminScreen(file) || isOtherApp(file) || inside(file, ADMIN_APP);
/** A plugin's public face: its manifest. Everything else in its folder is internal to it. */
const isManifest = (file: string) => {
  const plugin = pluginOf(file);
  return (
    plugin !== null &&
    path.dirname(file) === path.join(PLUGINS, plugin) &&
    /^index\.(ts|js|mjs)$/.test(path.basename(file))
  );
};

/**
 * The import rules of the plugin contract, for one file's text (package imports are not checked):
 * - a plugin imports only kernel/index.ts and its own files; its tests may also use kernel internals
 *   and the shared harness (`test/`), never another plugin's files;
 * - the kernel imports no plugin;
 * - benchmarks (bench/) and scripts (scripts/) import no plugin internals (a plugin's manifest at the
 *   most) and no test specs: what they share with the tests lives in `test/helpers` and `test/fixtures`;
 * - browser code (a plugin's `admin/` screens, the dashboard in `plugins/admin-ui/app/`, another app
 *   such as `plugins/page-editor/app/`) imports no kernel; `admin/` screens and other apps import
 *   their own `admin/` (or `app/`) files and, of the dashboard, exactly its SDK's index
 *   (`plugins/admin-ui/app/src/sdk/index.ts`, never a module behind it); a plugin's server code never
 *   imports browser code
 *   (its tests may).
 */
function boundaryViolations(file: string, text: string): string[] {
  const found: string[] = [];
  const owner = pluginOf(file);
  const isTest = owner !== null && inside(file, path.join(PLUGINS, owner, 'test'));
  const isTool = inside(file, BENCH) || inside(file, SCRIPTS);
  for (const ref of ts.preProcessFile(text, true, true).importedFiles) {
    if (!ref.fileName.startsWith('.')) continue;
    const target = path.resolve(path.dirname(file), ref.fileName);
    const at = `${path.relative(PROJECT_ROOT, file)} imports ${ref.fileName}`;
    const targetPlugin = pluginOf(target);
    if (isTool) {
      if (targetPlugin !== null && !isManifest(target))
        found.push(
          `${at}: benchmarks and scripts use a plugin through its manifest or the HTTP API, never its internals`,
        );
      else if (isSpec(target)) found.push(`${at}: benchmarks and scripts never import a test spec`);
      continue;
    }
    if (owner === null) {
      if (inside(file, KERNEL) && inside(target, PLUGINS)) found.push(`${at}: the kernel never imports a plugin`);
      continue;
    }
    if (isBrowserCode(file) || isBrowserCode(target)) {
      if (inside(target, KERNEL)) found.push(`${at}: browser code never imports the kernel (it calls the HTTP API)`);
      else if (isAdminScreen(file) && target !== ADMIN_SDK && !inside(target, path.join(PLUGINS, owner, 'admin')))
        found.push(`${at}: a plugin's admin screens import their own admin/ files and the dashboard SDK only`);
      else if (isOtherApp(file) && target !== ADMIN_SDK && !inside(target, path.join(PLUGINS, owner, 'app')))
        found.push(`${at}: a plugin's browser app imports its own app/ files and the dashboard SDK only`);
      else if (!isBrowserCode(file) && !isTest)
        found.push(`${at}: server code never imports browser code (admin/, admin-ui/app)`);
      continue;
    }
    if (targetPlugin !== null && targetPlugin !== owner)
      found.push(`${at}: a plugin never imports another plugin (talk through provided services or hooks)`);
    else if (
      targetPlugin === null &&
      !(isTest && (inside(target, KERNEL) || inside(target, TESTS))) &&
      target !== KERNEL_SURFACE
    )
      found.push(
        inside(target, KERNEL)
          ? `${at}: plugins import the kernel only through kernel/index.ts`
          : `${at}: a plugin imports only kernel/index.ts and its own files`,
      );
  }
  return found;
}

describe('plugin boundaries: imports keep to the contract', () => {
  it('no plugin reaches past kernel/index.ts or into another plugin, the kernel imports no plugin, and benchmarks and scripts no plugin internals or specs', () => {
    const files = [...sourceFiles(PLUGINS), ...sourceFiles(KERNEL), ...sourceFiles(BENCH), ...sourceFiles(SCRIPTS)];
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
    expect(
      boundaryViolations(test, "import { startLocalS3 } from '../../../test/helpers/s3-server.ts';"),
    ).to.deep.equal([]);
    // A plugin's own code imports nothing of the project outside kernel/index.ts and its folder.
    expect(boundaryViolations(service, "import { EDGE_TABLE } from '../../../edge/routes.ts';")).to.have.length(1);
    expect(boundaryViolations(service, "import { x } from '../../../test/helpers/kernel.ts';")).to.have.length(1);

    // A plugin's admin screens: the dashboard SDK and their own admin/ files, nothing else.
    const screen = path.join(PLUGINS, 'audit', 'admin', 'AuditLog.tsx');
    expect(
      boundaryViolations(
        screen,
        "import { api } from '../../admin-ui/app/src/sdk/index.ts';\nimport { x } from './x.ts';",
      ),
    ).to.deep.equal([]);
    expect(
      boundaryViolations(screen, "import type { ApiAnswer } from '../../admin-ui/app/src/sdk/api-types.ts';"),
    ).to.have.length(1);
    expect(
      boundaryViolations(screen, "import { PageHeader } from '../../admin-ui/app/src/sdk/page.tsx';"),
    ).to.have.length(1);
    expect(
      boundaryViolations(screen, "import { Layout } from '../../admin-ui/app/src/shell/Layout.tsx';"),
    ).to.have.length(1);
    expect(boundaryViolations(screen, "import { x } from '../../identity/admin/x.tsx';")).to.have.length(1);
    expect(boundaryViolations(screen, "import { x } from '../routes/audit-log.ts';")).to.have.length(1);
    expect(boundaryViolations(screen, "import { notFound } from '../../../kernel/index.ts';")).to.have.length(1);
    expect(boundaryViolations(service, "import screens from '../admin/index.ts';")).to.have.length(1);
    // Another browser app (the page editor): its own app/ files and the dashboard SDK, nothing else.
    const editor = path.join(PLUGINS, 'page-editor', 'app', 'src', 'Editor.tsx');
    expect(
      boundaryViolations(
        editor,
        "import { api } from '../../../admin-ui/app/src/sdk/index.ts';\nimport { x } from './x.ts';",
      ),
    ).to.deep.equal([]);
    expect(boundaryViolations(editor, "import { api } from '../../../admin-ui/app/src/api/client.ts';")).to.have.length(
      1,
    );
    expect(
      boundaryViolations(editor, "import type { ApiBody } from '../../../admin-ui/app/src/sdk/api-types.ts';"),
    ).to.have.length(1);
    expect(boundaryViolations(editor, "import { x } from '../../../content/services/render.ts';")).to.have.length(1);
    expect(
      boundaryViolations(path.join(PLUGINS, 'page-editor', 'index.ts'), "import x from './app/src/x.ts';"),
    ).to.have.length(1);

    const bench = path.join(BENCH, 'x.ts');
    const script = path.join(SCRIPTS, 'x.ts');
    expect(boundaryViolations(bench, "import { s } from '../plugins/search/store/search-query.ts';")).to.have.length(1);
    expect(boundaryViolations(bench, "import { s } from '../plugins/assets/test/s3-server.ts';")).to.have.length(1);
    expect(boundaryViolations(script, "import { s } from '../test/e2e/bad-input.test.ts';")).to.have.length(1);
    expect(
      boundaryViolations(
        bench,
        "import data from '../plugins/data/index.ts';\nimport { createTestDatabase } from '../test/helpers/database.ts';\nimport { createKernel } from '../kernel/kernel.ts';",
      ),
    ).to.deep.equal([]);
  });
});
