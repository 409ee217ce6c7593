import { loadKernelConfig, type ServiceName } from './config.ts';
import { KERNEL_SERVICE_NAMES, resolvePluginSet } from './kernel.ts';
import { pluginEdges, type PluginEdge } from './loader.ts';
import type { AnyPluginManifest } from './plugin.ts';

/** `cms plugins [--service <name>]`: the plugins a process loads, in start order, and their dependencies. */
export async function describePluginSet(
  service: ServiceName | 'all',
  env: NodeJS.ProcessEnv = process.env,
): Promise<string> {
  const plugins = await resolvePluginSet({ service }, loadKernelConfig(env));
  return formatPluginGraph(plugins, service, new Set(KERNEL_SERVICE_NAMES));
}

/**
 * The plugin graph as text (`cms plugins`): each plugin in start order with its processes and what
 * its manifest declares, every name tagged with the plugin that offers it, then the dependencies
 * between plugins. `plugins` must be ordered already (`resolvePluginSet`), which also refused circles.
 */
export function formatPluginGraph(
  plugins: readonly AnyPluginManifest[],
  processName: string,
  kernelServices: ReadonlySet<string>,
): string {
  const edges = pluginEdges(plugins, kernelServices);
  const owner = new Map<string, string>();
  for (const p of plugins) {
    for (const name of Object.keys(p.provides ?? {})) owner.set(name, p.id);
    for (const name of p.collects ?? []) owner.set(name, p.id);
  }
  const ownerOf = (name: string, self: string) => {
    const of = owner.get(name);
    if (of === self) return 'own';
    if (of) return of;
    return kernelServices.has(name) ? 'kernel' : 'not loaded';
  };
  // Names grouped by who offers them, in the manifest's order: "db, clock (kernel); dataObjects (data)".
  const list = (names: readonly string[], self: string) => {
    const groups = new Map<string, string[]>();
    for (const name of names) {
      const of = ownerOf(name, self);
      groups.set(of, [...(groups.get(of) ?? []), name]);
    }
    return [...groups].map(([of, group]) => `${group.join(', ')} (${of})`).join('; ') || '-';
  };
  const width = String(plugins.length).length;
  const lines = [
    `Plugins of ${processName === 'all' ? 'the all-in-one process' : `the ${processName} process`}, in start order`,
    '(migrations and setup run top down, stop bottom up). A name in brackets is the plugin that provides',
    'the service or collects the registry; "kernel" marks a kernel service.',
    '',
  ];
  plugins.forEach((p, i) => {
    const indent = ' '.repeat(width + 4);
    const routes = p.routesIn && p.routesIn.join() !== p.processes.join() ? `; routes in ${p.routesIn.join(', ')}` : '';
    lines.push(`${String(i + 1).padStart(width)}. ${p.id}`);
    const field = (label: string, value: string) => lines.push(`${indent}${label.padEnd(12)}${value}`);
    field('processes', p.processes.join(', ') + routes);
    field('needs', list(p.needs as readonly string[], p.id));
    field('optional', list((p.optional ?? []) as readonly string[], p.id));
    field('provides', Object.keys(p.provides ?? {}).join(', ') || '-');
    field('collects', (p.collects ?? []).join(', ') || '-');
    field('contributes', list(Object.keys(p.contributes ?? {}), p.id));
  });
  lines.push(
    '',
    'Dependencies (a plugin -> the plugin whose service it uses or whose registry it uses or contributes to).',
    'The graph has no circle; registries impose no start order, services do:',
  );
  const pairs = new Map<string, PluginEdge[]>();
  for (const e of edges) {
    const key = `${e.from} -> ${e.to}`;
    pairs.set(key, [...(pairs.get(key) ?? []), e]);
  }
  const pad = Math.max(0, ...[...pairs.keys()].map((k) => k.length));
  for (const [key, why] of pairs)
    lines.push(`  ${key.padEnd(pad)}  ${why.map((e) => `${e.kind} ${e.name}`).join('; ')}`);
  if (!pairs.size) lines.push('  (none)');
  return lines.join('\n');
}
