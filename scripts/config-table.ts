// Prints the configuration table of README.md from the kernel's and every plugin's config schema,
// so the documentation cannot drift from what start-up validates.
import type { TObject } from '@sinclair/typebox';
import { KernelConfigSchema } from '../kernel/config.ts';
import { discoverPlugins } from '../kernel/loader.ts';

function rows(owner: string, schema: TObject): string[] {
  return Object.entries(schema.properties).map(([name, prop]) => {
    const p = prop as { default?: unknown; description?: string };
    const def = p.default === undefined ? '(unset)' : `\`${String(p.default) || '(empty)'}\``;
    return `| \`${name}\` | ${owner} | ${def} | ${p.description ?? ''} |`;
  });
}

const lines = ['| Variable | Read by | Default | Meaning |', '|---|---|---|---|', ...rows('kernel', KernelConfigSchema)];
for (const plugin of await discoverPlugins()) if (plugin.config) lines.push(...rows(`plugin ${plugin.id}`, plugin.config));
console.log(lines.join('\n'));
