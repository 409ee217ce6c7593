import { asValue, createContainer, InjectionMode, type AwilixContainer } from 'awilix';
import type { Config } from './config.ts';
import type { Logger } from './logger.ts';
import type { AnyPluginManifest, KernelServices, ServiceKey, ServiceMap } from './plugin.ts';

type Context = Record<string, unknown>;

/**
 * The container of one process and a scope per plugin. The root container holds the kernel services,
 * what plugins `provide` and the registries plugins `collect`. Each plugin's scope is a container of
 * its own (not a child of the root), holding only what its manifest declared plus its logger, config
 * slice and the result of its `setup`; its cradle is the `ctx` the plugin receives, so reading an
 * undeclared service throws instead of silently reaching into the process.
 */
export class PluginScopes {
  private readonly root: AwilixContainer;
  private readonly contexts = new Map<string, Context>();
  private readonly setUpInOrder: AnyPluginManifest[] = [];
  private readonly registries = new Map<string, unknown[]>();
  private stopped = false;

  constructor(
    kernelServices: KernelServices,
    private readonly config: Config,
    private readonly logger: Logger,
  ) {
    this.root = createContainer({ injectionMode: InjectionMode.PROXY, strict: true });
    for (const [name, value] of Object.entries(kernelServices)) this.root.register(name, asValue(value));
  }

  resolve<K extends ServiceKey>(name: K): ServiceMap[K] {
    return this.root.resolve(name);
  }

  contextOf(pluginId: string): Context {
    const ctx = this.contexts.get(pluginId);
    if (!ctx) throw new Error(`plugin "${pluginId}" is not loaded`);
    return ctx;
  }

  /** Runs `setup` of each plugin in the given (dependency) order and registers what each offers. */
  async setUp(plugins: readonly AnyPluginManifest[]): Promise<void> {
    for (const plugin of plugins) {
      for (const name of plugin.collects ?? []) {
        const items: unknown[] = [];
        this.registries.set(name, items);
        this.root.register(name, asValue(items));
      }
    }
    for (const plugin of plugins) await this.setUpOne(plugin);
  }

  private async setUpOne(plugin: AnyPluginManifest): Promise<void> {
    const log = this.logger.child({ plugin: plugin.id });
    const scope = createContainer({ injectionMode: InjectionMode.PROXY, strict: true });
    scope.register({
      log: asValue(log),
      pluginConfig: asValue(this.config.plugins[plugin.id] ?? {}),
      pluginId: asValue(plugin.id),
    });
    for (const need of plugin.needs as readonly string[]) {
      if (!this.root.hasRegistration(need)) {
        throw new Error(`plugin "${plugin.id}" needs "${need}", which neither the kernel nor a loaded plugin provides`);
      }
      scope.register(need, asValue(this.root.resolve(need)));
    }
    // The loader orders every loaded provider before its users and refuses circles, so an optional
    // service that is not registered yet is one no loaded plugin provides.
    for (const name of (plugin.optional ?? []) as readonly string[])
      scope.register(name, asValue(this.root.hasRegistration(name) ? this.root.resolve(name) : undefined));

    const services = plugin.setup ? await plugin.setup(scope.cradle) : undefined;
    scope.register('services', asValue(services));
    const ctx = scope.cradle as Context;
    this.contexts.set(plugin.id, ctx);
    this.setUpInOrder.push(plugin);

    for (const [name, factory] of Object.entries(plugin.provides ?? {})) {
      this.root.register(name, asValue((factory as (c: Context) => unknown)(ctx)));
    }
    for (const [name, factory] of Object.entries(plugin.contributes ?? {})) {
      const registry = this.registries.get(name);
      if (!registry) {
        log.debug({ registry: name }, 'contribution unused: no loaded plugin collects this registry');
        continue;
      }
      const made = (factory as (c: Context) => unknown)(ctx);
      registry.push(...(Array.isArray(made) ? made : [made]));
    }
  }

  /** `onStart` of every plugin, in order. */
  async start(): Promise<void> {
    for (const plugin of this.setUpInOrder) await plugin.onStart?.(this.contextOf(plugin.id) as never);
  }

  /** `onStop` of every plugin that was set up, in reverse order; one failing does not skip the others. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    for (const plugin of [...this.setUpInOrder].reverse()) {
      try {
        await plugin.onStop?.(this.contextOf(plugin.id) as never);
      } catch (err) {
        this.logger.error({ err, plugin: plugin.id }, 'plugin stop failed');
      }
    }
  }
}
