import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { PROJECT_ROOT } from '../../kernel/loader.ts';

/**
 * CONTRIBUTING's "Walk-through: a new plugin" is code that runs: every block that starts with a
 * `// plugins/guestbook/<file>` line is written to a folder of this run (imports outside the plugin
 * pointed at this checkout), and the walk-through's own test file is loaded into this suite. A change
 * to the kernel that breaks the walk-through fails here, not in a newcomer's first hour.
 */
const FILE_LINE = /^\/\/ (plugins\/guestbook\/[\w./-]+\.ts)\n/;

function walkthroughFiles(markdown: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const [, body] of markdown.matchAll(/```ts\n([\s\S]*?)```/g)) {
    const named = FILE_LINE.exec(body);
    if (named) files.set(named[1], body);
  }
  return files;
}

/** Relative imports that leave the plugin folder become absolute paths into this checkout. */
function pointedAtCheckout(file: string, text: string): string {
  const pluginDir = path.join(PROJECT_ROOT, 'plugins', 'guestbook');
  return text.replace(/(from |import\()'(\.{1,2}\/[^']+)'/g, (whole, lead: string, spec: string) => {
    const target = path.resolve(path.dirname(path.join(PROJECT_ROOT, file)), spec);
    return target.startsWith(pluginDir + path.sep) ? whole : `${lead}'${target}'`;
  });
}

const files = walkthroughFiles(readFileSync(path.join(PROJECT_ROOT, 'CONTRIBUTING.md'), 'utf8'));
const folder = path.join(PROJECT_ROOT, '.test-data', `walkthrough-${process.pid}`);
for (const [file, text] of files) {
  const target = path.join(folder, file.replace(/^plugins\//, ''));
  mkdirSync(path.dirname(target), { recursive: true });
  writeFileSync(target, pointedAtCheckout(file, text));
}
after(() => rmSync(folder, { recursive: true, force: true }));

describe('CONTRIBUTING walk-through', () => {
  it('holds the whole plugin: manifest, config, store, routes, migration and test', () => {
    expect([...files.keys()].sort()).to.deep.equal([
      'plugins/guestbook/config.ts',
      'plugins/guestbook/index.ts',
      'plugins/guestbook/migrations/0001_guestbook.ts',
      'plugins/guestbook/routes.ts',
      'plugins/guestbook/store.ts',
      'plugins/guestbook/test/guestbook.test.ts',
    ]);
  });
});

// The walk-through's own test cases join this suite: they start the plugin and use it over HTTP.
if (files.has('plugins/guestbook/test/guestbook.test.ts')) {
  await import(path.join(folder, 'guestbook', 'test', 'guestbook.test.ts'));
}
