// Prints the configuration table of README.md from the kernel's and every plugin's config schema, so
// the documentation cannot drift from what start-up validates. `--write` updates README.md in place.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { TObject } from '@sinclair/typebox';
import { KernelConfigSchema } from '../kernel/config.ts';
import { discoverPlugins, PROJECT_ROOT } from '../kernel/loader.ts';

function rows(owner: string, schema: TObject): string[] {
  return Object.entries(schema.properties).map(([name, prop]) => {
    const p = prop as { default?: unknown; description?: string };
    const def = p.default === undefined ? '(unset)' : `\`${String(p.default) || '(empty)'}\``;
    return `| \`${name}\` | ${owner} | ${def} | ${p.description ?? ''} |`;
  });
}

const lines = [
  '| Variable | Read by | Default | Meaning |',
  '|---|---|---|---|',
  ...rows('kernel', KernelConfigSchema),
];
const plugins = await discoverPlugins();
for (const plugin of plugins) if (plugin.config) lines.push(...rows(`plugin ${plugin.id}`, plugin.config));
// A plugin's command (a process of its own, such as the publish runner) reads its own environment.
for (const plugin of plugins)
  for (const command of plugin.commands ?? [])
    if (command.config) lines.push(...rows(`\`cms ${command.name}\``, command.config));
const table = lines.join('\n');

if (process.argv.includes('--write')) {
  const file = path.join(PROJECT_ROOT, 'README.md');
  const readme = readFileSync(file, 'utf8');
  const start = '<!-- config-table:start -->';
  const end = '<!-- config-table:end -->';
  const i = readme.indexOf(start);
  const j = readme.indexOf(end);
  if (i < 0 || j < i) throw new Error('README.md has no config-table markers');
  writeFileSync(file, readme.slice(0, i + start.length) + '\n' + table + '\n' + readme.slice(j));
} else {
  console.log(table);
}
