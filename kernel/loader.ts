import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { SERVICE_NAMES, type ServiceName } from './config.ts';
import { ExtensionFolders, pluginIndexIn } from './extensions.ts';
import type { AnyPluginManifest } from './plugin.ts';

export const PROJECT_ROOT = fileURLToPath(new URL('..', import.meta.url));
export const PLUGINS_DIR = path.join(PROJECT_ROOT, 'plugins');
export const KERNEL_MIGRATIONS_DIR = path.join(PROJECT_ROOT, 'migrations');

const PLUGIN_ID = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;

/**
 * Imports every plugin folder (the project's `plugins/<id>/` and those on CMS_PLUGIN_PATH) and checks
 * each manifest: id equal to its folder name, known services, no id twice.
 */
export async function discoverPlugins(
  extensions = new ExtensionFolders(PROJECT_ROOT, undefined),
): Promise<AnyPluginManifest[]> {
  const found: AnyPluginManifest[] = [];
  const folderOf = new Map<string, string>();
  for (const folder of extensions.pluginFolders()) {
    const file = pluginIndexIn(folder)!;
    const mod = (await import(pathToFileURL(file).href)) as { default?: AnyPluginManifest };
    const manifest = mod.default;
    const name = path.basename(folder);
    if (!manifest || typeof manifest.id !== 'string')
      throw new Error(`plugin folder ${folder}: index does not default-export a plugin manifest`);
    if (manifest.id !== name)
      throw new Error(`plugin folder ${folder}: manifest id "${manifest.id}" differs from its folder name`);
    const other = folderOf.get(manifest.id);
    if (other) throw new Error(`plugin id "${manifest.id}" is used by two folders: ${other} and ${folder}`);
    folderOf.set(manifest.id, folder);
    found.push(manifest);
  }
  return found;
}

/** Refuses a manifest whose shape the kernel cannot honour, naming the plugin and the field. */
export function checkManifest(p: AnyPluginManifest): void {
  const fail = (what: string) => {
    throw new Error(`plugin "${p.id}": ${what}`);
  };
  if (!PLUGIN_ID.test(p.id)) fail('id must be kebab-case (a-z, 0-9, single dashes)');
  if (!Array.isArray(p.processes) || p.processes.length === 0)
    fail('processes must list at least one of ' + SERVICE_NAMES.join(', '));
  for (const s of [...p.processes, ...(p.routesIn ?? [])])
    if (!SERVICE_NAMES.includes(s)) fail(`unknown service "${s}"`);
  for (const s of p.routesIn ?? [])
    if (!p.processes.includes(s)) fail(`routesIn names "${s}", which is not in processes`);
  if (!Array.isArray(p.needs)) fail('needs must be an array');
  for (const name of p.optional ?? []) if (p.needs.includes(name)) fail(`"${name}" is both needed and optional`);
}

/** True when this process mounts the plugin's routes and runs its jobs (not only its services). */
export function mountsRoutes(p: AnyPluginManifest, service: ServiceName | 'all'): boolean {
  return service === 'all' || (p.routesIn ?? p.processes).includes(service);
}

/** The plugins one process loads: those of its service (all of them for all-in-one), minus disabled ones. */
export function selectPlugins(
  all: AnyPluginManifest[],
  service: ServiceName | 'all',
  disabled: string[],
): AnyPluginManifest[] {
  return all.filter((p) => (service === 'all' || p.processes.includes(service)) && !disabled.includes(p.id));
}

/**
 * Orders plugins so that each comes after the plugins providing what it needs (or optionally uses, when
 * loaded). Registries (`collects`) impose no order: their arrays exist from the start and fill as
 * contributors are set up. Refuses a missing or circular dependency, naming the plugin.
 */
export function orderPlugins(plugins: AnyPluginManifest[], kernelServices: ReadonlySet<string>): AnyPluginManifest[] {
  const providerOf = new Map<string, AnyPluginManifest>();
  const claim = (name: string, p: AnyPluginManifest, what: string) => {
    if (kernelServices.has(name)) throw new Error(`plugin "${p.id}" ${what} "${name}", a kernel service name`);
    const other = providerOf.get(name);
    if (other) throw new Error(`service "${name}" is provided by both "${other.id}" and "${p.id}"`);
    providerOf.set(name, p);
  };
  const registries = new Set<string>();
  for (const p of plugins) {
    checkManifest(p);
    for (const name of Object.keys(p.provides ?? {})) claim(name, p, 'provides');
  }
  for (const p of plugins) {
    for (const name of p.collects ?? []) {
      if (registries.has(name)) throw new Error(`registry "${name}" is collected by two plugins (one is "${p.id}")`);
      if (providerOf.has(name) || kernelServices.has(name))
        throw new Error(`plugin "${p.id}" collects "${name}", which is also a service name`);
      registries.add(name);
    }
  }
  const ordered: AnyPluginManifest[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const providerFor = (need: string) =>
    kernelServices.has(need) || registries.has(need) ? undefined : providerOf.get(need);
  // Plugins a plugin cannot start without: the providers of its `needs`, transitively.
  const requiredClosure = (p: AnyPluginManifest, seen = new Set<AnyPluginManifest>()): Set<AnyPluginManifest> => {
    for (const need of p.needs as readonly string[]) {
      const provider = providerFor(need);
      if (provider && !seen.has(provider)) {
        seen.add(provider);
        requiredClosure(provider, seen);
      }
    }
    return seen;
  };
  const visit = (p: AnyPluginManifest, chain: string[]) => {
    if (state.get(p.id) === 'done') return;
    if (state.get(p.id) === 'visiting') throw new Error(`circular plugin dependency: ${[...chain, p.id].join(' -> ')}`);
    state.set(p.id, 'visiting');
    for (const need of p.needs as readonly string[]) {
      if (kernelServices.has(need) || registries.has(need)) continue;
      const provider = providerOf.get(need);
      if (!provider)
        throw new Error(`plugin "${p.id}" needs "${need}", which neither the kernel nor a loaded plugin provides`);
      if (provider !== p) visit(provider, [...chain, p.id]);
    }
    // An optional service orders its provider first when it can. When that would close a circle (two
    // plugins that use each other's services optionally, e.g. gateway and content), the provider comes
    // later and the plugin receives a late-bound handle (PluginScopes), usable once start-up is done.
    for (const need of (p.optional ?? []) as readonly string[]) {
      const provider = providerFor(need);
      if (!provider || provider === p || state.get(provider.id) === 'visiting') continue;
      if ([...requiredClosure(provider)].some((q) => q === p || state.get(q.id) === 'visiting')) continue;
      visit(provider, [...chain, p.id]);
    }
    state.set(p.id, 'done');
    ordered.push(p);
  };
  for (const p of plugins) visit(p, []);
  return ordered;
}
