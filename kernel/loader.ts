import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ConfigError, SERVICE_NAMES, type ServiceName } from './config.ts';
import { ExtensionFolders, pluginIndexIn } from './extensions.ts';
import type { AnyPluginManifest } from './plugin.ts';

export const PROJECT_ROOT = fileURLToPath(new URL('..', import.meta.url));
export const KERNEL_MIGRATIONS_DIR = path.join(PROJECT_ROOT, 'migrations');

export const PLUGIN_ID = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;

/**
 * The project's plugins compiled into the same bundle as the kernel (a start from a bundle, see
 * runtime/bundle.ts), by folder name: imported from there, so they share the bundle's one copy of the
 * kernel instead of loading the files of their folders.
 */
const bundledPlugins = new Map<string, () => Promise<unknown>>();

/** @public called by the generated entry of a bundle (runtime/bundle.ts), which knip does not see */
export function registerBundledPlugins(imports: Record<string, () => Promise<unknown>>): void {
  for (const [id, load] of Object.entries(imports)) bundledPlugins.set(id, load);
}

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
    const name = path.basename(folder);
    const bundled = path.dirname(folder) === path.join(PROJECT_ROOT, 'plugins') ? bundledPlugins.get(name) : undefined;
    const mod = (await (bundled ? bundled() : importPluginIndex(folder, file))) as { default?: AnyPluginManifest };
    const manifest = mod.default;
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

/**
 * The `type` of the package.json nearest above `dir` ("commonjs" when none says "module"), which is how
 * Node decides whether a `.ts` or `.js` file is an ES module.
 */
function moduleScopeOf(dir: string): 'module' | 'commonjs' {
  for (let at = path.resolve(dir); ; at = path.dirname(at)) {
    const file = path.join(at, 'package.json');
    if (existsSync(file)) {
      try {
        return JSON.parse(readFileSync(file, 'utf8')).type === 'module' ? 'module' : 'commonjs';
      } catch {
        return 'commonjs';
      }
    }
    if (path.dirname(at) === at) return 'commonjs';
  }
}

const esModuleScopeNeeded = (folder: string) =>
  new ConfigError(
    `plugin folder ${folder} is not an ES module scope: add a package.json with "type": "module" to it (\`cms plugin new\` writes one)`,
  );

/**
 * Imports a plugin's index. A TypeScript index outside an ES module scope (an integrator's folder without
 * a package.json saying `"type": "module"`) would load as CommonJS and fail with an obscure cycle error
 * on its first `import`; it is refused first with one sentence naming the folder and the fix.
 */
async function importPluginIndex(folder: string, file: string): Promise<unknown> {
  const scope = file.endsWith('.mjs') ? 'module' : moduleScopeOf(folder);
  if (scope !== 'module' && file.endsWith('.ts')) throw esModuleScopeNeeded(folder);
  try {
    return await import(pathToFileURL(file).href);
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (scope !== 'module' && (code === 'ERR_REQUIRE_CYCLE_MODULE' || code === 'ERR_REQUIRE_ESM'))
      throw esModuleScopeNeeded(folder);
    throw err;
  }
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

/** Why one loaded plugin depends on another: it names one of the other's services or registries. */
export interface PluginEdge {
  /** The plugin that uses (or contributes to) something of `to`. */
  from: string;
  to: string;
  /** The service or registry name. */
  name: string;
  /** `needs` and `optional` name a service (or registry); `contributes` adds items to `to`'s registry. */
  kind: 'needs' | 'optional' | 'contributes';
  /** True when `name` is a registry `to` collects (no start order: its array exists from the start). */
  registry: boolean;
}

/** The plugins that provide each service and collect each registry, refusing a name claimed twice. */
function claimedNames(
  plugins: readonly AnyPluginManifest[],
  kernelServices: ReadonlySet<string>,
): { providerOf: Map<string, AnyPluginManifest>; collectorOf: Map<string, AnyPluginManifest> } {
  const providerOf = new Map<string, AnyPluginManifest>();
  const collectorOf = new Map<string, AnyPluginManifest>();
  for (const p of plugins) {
    checkManifest(p);
    for (const name of Object.keys(p.provides ?? {})) {
      if (kernelServices.has(name)) throw new Error(`plugin "${p.id}" provides "${name}", a kernel service name`);
      const other = providerOf.get(name);
      if (other) throw new Error(`service "${name}" is provided by both "${other.id}" and "${p.id}"`);
      providerOf.set(name, p);
    }
  }
  for (const p of plugins) {
    for (const name of p.collects ?? []) {
      if (collectorOf.has(name)) throw new Error(`registry "${name}" is collected by two plugins (one is "${p.id}")`);
      if (providerOf.has(name) || kernelServices.has(name))
        throw new Error(`plugin "${p.id}" collects "${name}", which is also a service name`);
      collectorOf.set(name, p);
    }
  }
  return { providerOf, collectorOf };
}

/**
 * Every dependency between loaded plugins: each `needs` and `optional` name another loaded plugin
 * provides or collects, and each `contributes` to a registry another loaded plugin collects. Refuses
 * a needed name that neither the kernel nor a loaded plugin offers, naming the plugin.
 */
export function pluginEdges(plugins: readonly AnyPluginManifest[], kernelServices: ReadonlySet<string>): PluginEdge[] {
  const { providerOf, collectorOf } = claimedNames(plugins, kernelServices);
  const edges: PluginEdge[] = [];
  const add = (p: AnyPluginManifest, name: string, kind: PluginEdge['kind'], required: boolean) => {
    if (kernelServices.has(name)) return;
    const collector = collectorOf.get(name);
    const owner = collector ?? providerOf.get(name);
    if (!owner) {
      if (required)
        throw new Error(`plugin "${p.id}" needs "${name}", which neither the kernel nor a loaded plugin provides`);
      return;
    }
    if (owner !== p) edges.push({ from: p.id, to: owner.id, name, kind, registry: owner === collector });
  };
  for (const p of plugins) {
    for (const name of p.needs as readonly string[]) add(p, name, 'needs', true);
    for (const name of (p.optional ?? []) as readonly string[]) add(p, name, 'optional', false);
    for (const name of Object.keys(p.contributes ?? {})) if (collectorOf.has(name)) add(p, name, 'contributes', false);
  }
  return edges;
}

const describeEdge = (e: PluginEdge) =>
  e.kind === 'contributes'
    ? `"${e.from}" contributes to "${e.name}" of "${e.to}"`
    : `"${e.from}" ${e.kind === 'needs' ? 'needs' : 'optionally uses'} "${e.name}" of "${e.to}"`;

/**
 * Refuses a circle among the loaded plugins, whatever its edges: required or optional services,
 * registries used or contributed to. Each plugin may only depend on plugins that never depend back on
 * it, so every service a plugin declares is set up before it and the graph `cms plugins` prints reads
 * top down. The message names the plugins in the circle and why each depends on the next.
 */
function refuseCycles(plugins: readonly AnyPluginManifest[], edges: readonly PluginEdge[]): void {
  const out = new Map<string, PluginEdge[]>();
  for (const e of edges) out.set(e.from, [...(out.get(e.from) ?? []), e]);
  const state = new Map<string, 'visiting' | 'done'>();
  const path: PluginEdge[] = [];
  const visit = (id: string) => {
    state.set(id, 'visiting');
    for (const e of out.get(id) ?? []) {
      if (state.get(e.to) === 'done') continue;
      if (state.get(e.to) === 'visiting') {
        const circle = [...path.slice(path.findIndex((x) => x.from === e.to)), e];
        const ids = [...circle.map((x) => x.from), e.to];
        throw new Error(
          `circular plugin dependency: ${ids.join(' -> ')} (${circle.map(describeEdge).join('; ')}). ` +
            'Optional services and contributions count too: turn one direction into a registry the other plugin ' +
            'collects, or move the code to the plugin it depends on (CONTRIBUTING.md, "Ports")',
        );
      }
      path.push(e);
      visit(e.to);
      path.pop();
    }
    state.set(id, 'done');
  };
  for (const p of plugins) if (!state.has(p.id)) visit(p.id);
}

/**
 * Orders plugins so that each comes after the plugins providing what it needs or optionally uses.
 * Registries (`collects`) impose no order: their arrays exist from the start and fill as contributors
 * are set up. Refuses a missing dependency and any circle (see `refuseCycles`), naming the plugins.
 */
export function orderPlugins(plugins: AnyPluginManifest[], kernelServices: ReadonlySet<string>): AnyPluginManifest[] {
  const edges = pluginEdges(plugins, kernelServices);
  refuseCycles(plugins, edges);
  const byId = new Map(plugins.map((p) => [p.id, p]));
  const ordered: AnyPluginManifest[] = [];
  const done = new Set<string>();
  const visit = (p: AnyPluginManifest) => {
    if (done.has(p.id)) return;
    done.add(p.id);
    for (const e of edges) if (e.from === p.id && !e.registry && e.kind !== 'contributes') visit(byId.get(e.to)!);
    ordered.push(p);
  };
  for (const p of plugins) visit(p);
  return ordered;
}
