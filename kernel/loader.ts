import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { ServiceName } from './config.ts';
import type { KernelServices, PluginManifest } from './plugin.ts';

export const PROJECT_ROOT = fileURLToPath(new URL('..', import.meta.url));
export const PLUGINS_DIR = path.join(PROJECT_ROOT, 'plugins');
export const KERNEL_MIGRATIONS_DIR = path.join(PROJECT_ROOT, 'migrations');

/** Imports every `plugins/<id>/index.(ts|js)` and checks that its id matches its folder. */
export async function discoverPlugins(dir = PLUGINS_DIR): Promise<PluginManifest[]> {
  if (!existsSync(dir)) return [];
  const found: PluginManifest[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    if (!entry.isDirectory()) continue;
    const file = ['index.ts', 'index.js'].map((f) => path.join(dir, entry.name, f)).find(existsSync);
    if (!file) continue;
    const mod = (await import(pathToFileURL(file).href)) as { default?: PluginManifest };
    const manifest = mod.default;
    if (!manifest || typeof manifest.id !== 'string') throw new Error(`plugins/${entry.name}: index does not default-export a plugin manifest`);
    if (manifest.id !== entry.name) throw new Error(`plugins/${entry.name}: manifest id "${manifest.id}" differs from its folder name`);
    found.push(manifest);
  }
  return found;
}

/** The plugins one process loads: those of its service (all of them for all-in-one), minus disabled ones. */
export function selectPlugins(all: PluginManifest[], service: ServiceName | 'all', disabled: string[]): PluginManifest[] {
  return all.filter((p) => (service === 'all' || p.services.includes(service)) && !disabled.includes(p.id));
}

/**
 * Orders plugins so that each comes after the plugins providing what it needs. Refuses a missing or
 * circular dependency, naming the plugin.
 */
export function orderPlugins(plugins: PluginManifest[], kernelServices: ReadonlySet<keyof KernelServices | string>): PluginManifest[] {
  const providerOf = new Map<string, PluginManifest>();
  for (const p of plugins) {
    for (const name of Object.keys(p.provides ?? {})) {
      if (kernelServices.has(name)) throw new Error(`plugin "${p.id}" provides "${name}", a kernel service name`);
      const other = providerOf.get(name);
      if (other) throw new Error(`service "${name}" is provided by both "${other.id}" and "${p.id}"`);
      providerOf.set(name, p);
    }
  }
  const ordered: PluginManifest[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (p: PluginManifest, chain: string[]) => {
    if (state.get(p.id) === 'done') return;
    if (state.get(p.id) === 'visiting') throw new Error(`circular plugin dependency: ${[...chain, p.id].join(' -> ')}`);
    state.set(p.id, 'visiting');
    for (const need of p.needs as readonly string[]) {
      if (kernelServices.has(need)) continue;
      const provider = providerOf.get(need);
      if (!provider) throw new Error(`plugin "${p.id}" needs "${need}", which neither the kernel nor a loaded plugin provides`);
      if (provider !== p) visit(provider, [...chain, p.id]);
    }
    state.set(p.id, 'done');
    ordered.push(p);
  };
  for (const p of plugins) visit(p, []);
  return ordered;
}
