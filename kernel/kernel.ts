import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { AuditWriter } from './audit.ts';
import { SystemClock, type Clock } from './clock.ts';
import type { TObject } from '@sinclair/typebox';
import { loadKernelConfig, parseEnvSlice, SERVICE_PORTS, type Config, type ServiceName } from './config.ts';
import { migrateDatabase, openDatabaseUrl, type DatabaseHandle, type DatabaseOpener } from './database.ts';
import { applyHeapGrowingPercent } from './heap.ts';
import { createHttpApp } from './http.ts';
import { ExtensionFolders } from './extensions.ts';
import {
  discoverPlugins,
  KERNEL_MIGRATIONS_DIR,
  mountsRoutes,
  orderPlugins,
  PROJECT_ROOT,
  selectPlugins,
} from './loader.ts';
import { LogFiles, logSourceOf } from './log-files.ts';
import { createLogger, type Logger } from './logger.ts';
import { MailPort } from './mail.ts';
import { Metrics } from './metrics.ts';
import { pendingMigrations, type MigrationSet } from './migrations.ts';
import { KERNEL_PERMISSIONS, PermissionRegistry } from './permissions.ts';
import type { AnyPluginManifest, App, KernelServices, PluginContext, ServiceKey, ServiceMap } from './plugin.ts';
import { PluginScopes } from './plugin-scopes.ts';
import { RecordHooks } from './record-hooks.ts';
import { CacheNotices } from './cache-notices.ts';
import { ReadReplica } from './read-database.ts';
import { MemoryRateLimitStore, SharedRateLimitStore } from './rate-limit.ts';
import { createSharedState } from './shared-state.ts';
import { Scheduler } from './scheduler.ts';
import { DatabaseNotifications } from './database-notifications.ts';
import { JobEngine, scheduleQueueName } from './job-engine.ts';
import { SecretBox } from './secret-box.ts';
import { SessionService } from './sessions.ts';
import { UserDirectory } from './users.ts';
import { MountedRoutes } from './mounted-routes.ts';
import { RoleDirectory } from './roles.ts';
import { OutboundGuard, applySandboxConfig } from './sandbox.ts';
import { requireAnswerSchemas } from './answer-schemas.ts';

// Run from source the project root holds package.json; run from a build (dist/) it is one level up.
const packageFile = [PROJECT_ROOT, path.join(PROJECT_ROOT, '..')]
  .map((d) => path.join(d, 'package.json'))
  .find(existsSync)!;
export const VERSION: string = JSON.parse(readFileSync(packageFile, 'utf8')).version;

export interface KernelOptions {
  service: ServiceName | 'all';
  env?: Record<string, string | undefined>;
  /** An explicit plugin set (tests); by default the plugin folders are scanned. */
  plugins?: AnyPluginManifest[];
  /** Plugins added to the discovered or given set (test plugins). */
  extraPlugins?: AnyPluginManifest[];
  /** An open database the caller keeps and closes (tests, benchmarks). */
  database?: DatabaseHandle;
  /**
   * Opens the database when `database` is not given; the kernel closes what it returns. Default:
   * DATABASE_URL only. The runtime passes its own, which starts the embedded cluster without it.
   */
  openDatabase?: DatabaseOpener;
  /**
   * Runs when this start applied migrations, before any plugin is set up, with the kernel's services
   * (the runtime creates the first administrator here).
   */
  afterMigrations?: (services: KernelServices) => Promise<void>;
  clock?: Clock;
  logger?: Logger;
  /** The log files `logger` writes (runtime/start.ts opens both with `openProcessLog`); none by default. */
  logFiles?: LogFiles;
  /** Apply migrations at start; default: core-api and all-in-one do, the others do not. */
  migrate?: boolean;
  /** Skip scheduling background jobs (tests run them by hand). */
  jobs?: boolean;
}

export interface Kernel {
  app: App;
  config: Config;
  service: ServiceName | 'all';
  plugins: AnyPluginManifest[];
  /** Migrations applied by this start, as `owner/name`. */
  appliedMigrations: string[];
  resolve<K extends ServiceKey>(name: K): ServiceMap[K];
  /** The context a plugin's routes, jobs and hooks receive (tests use it to call a plugin's services). */
  pluginDeps(id: string): PluginContext<ServiceKey, never, TObject, unknown>;
  /** Runs one of a plugin's jobs now, with the context the scheduler would give it (tests). */
  runJob(pluginId: string, jobName: string): Promise<void>;
  listen(port?: number): Promise<string>;
  close(): Promise<void>;
}

export function migrationSets(plugins: AnyPluginManifest[]): MigrationSet[] {
  return [
    { owner: 'kernel', directory: KERNEL_MIGRATIONS_DIR, queues: [SESSIONS_PURGE_QUEUE, SHARED_STATE_PURGE_QUEUE] },
    ...plugins
      .map((p) => ({ owner: p.id, directory: p.migrations ?? '', queues: queuesOf(p) }))
      .filter((set) => set.directory || set.queues.length > 0),
  ];
}

/** The job queues a plugin's manifest names: those it works, those it enqueues into, its schedules'. */
function queuesOf(plugin: AnyPluginManifest): string[] {
  return [
    ...(plugin.queues ?? []).map((q) => q.name),
    ...(plugin.enqueues ?? []),
    ...(plugin.schedules ?? []).map((s) => scheduleQueueName(plugin.id, s.name)),
  ];
}

const SESSIONS_PURGE = 'sessions-purge';
const SESSIONS_PURGE_QUEUE = scheduleQueueName('kernel', SESSIONS_PURGE);
const SHARED_STATE_PURGE = 'shared-state-purge';
const SHARED_STATE_PURGE_QUEUE = scheduleQueueName('kernel', SHARED_STATE_PURGE);

/** Resolves and orders the plugin set of a service, failing on a bad manifest or dependency. */
export async function resolvePluginSet(
  opts: Pick<KernelOptions, 'service' | 'plugins' | 'extraPlugins'>,
  config: Config,
): Promise<AnyPluginManifest[]> {
  const extensions = new ExtensionFolders(PROJECT_ROOT, config.CMS_PLUGIN_PATH);
  const all = [...(opts.plugins ?? (await discoverPlugins(extensions))), ...(opts.extraPlugins ?? [])];
  const disabled = config.CMS_DISABLED_PLUGINS.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const selected =
    opts.plugins && opts.service === 'all'
      ? all.filter((p) => !disabled.includes(p.id))
      : selectPlugins(all, opts.service, disabled);
  return orderPlugins(selected, new Set(KERNEL_SERVICE_NAMES));
}

/** The names the kernel registers in the container (`KernelServices`). */
export const KERNEL_SERVICE_NAMES: Array<keyof KernelServices> = [
  'config',
  'logger',
  'db',
  'readDb',
  'readReplica',
  'clock',
  'secretBox',
  'sessions',
  'users',
  'roles',
  'permissions',
  'audit',
  'recordHooks',
  'scheduler',
  'jobs',
  'notifications',
  'sharedState',
  'rateLimitStore',
  'cacheNotices',
  'metrics',
  'mail',
  'extensions',
  'mountedRoutes',
  'outboundGuard',
  'logFiles',
];

/**
 * Builds one process: config, container, database, migrations, plugins (setup, provides, contributions,
 * onStart), HTTP app and jobs. Nothing listens until `listen()`; `close()` runs the stop phase.
 */
export async function createKernel(opts: KernelOptions): Promise<Kernel> {
  const env = opts.env ?? process.env;
  const config = loadKernelConfig(env);
  applyHeapGrowingPercent(config.HEAP_GROWING_PERCENT);
  const logger = opts.logger ?? createLogger(config.LOG_LEVEL);
  const plugins = await resolvePluginSet(opts, config);
  for (const p of plugins) {
    if (!p.config) continue;
    const slice = parseEnvSlice(p.config, env);
    config.plugins[p.id] = config.SANDBOX ? applySandboxConfig(slice, p.sandbox) : slice;
  }

  const database = opts.database ?? (await (opts.openDatabase ?? openDatabaseUrl)(config, logger));
  const metrics = new Metrics({ defaultMetrics: !opts.database });
  metrics.observeDatabasePool(database.db, config.DATABASE_POOL_MAX);
  const clock = opts.clock ?? new SystemClock();
  const db = database.db;
  const readReplica = new ReadReplica(db, config, logger);
  const notifications = new DatabaseNotifications({ db, log: logger.child({ component: 'notifications' }) });
  const jobs = new JobEngine({
    db,
    clock,
    logger: logger.child({ component: 'jobs' }),
    metrics,
    notifications,
    pollMs: config.JOBS_POLL_MS,
    superviseSeconds: config.JOBS_SUPERVISE_SECONDS,
    timers: opts.jobs !== false,
  });
  const sharedState = await createSharedState({
    db,
    clock,
    log: logger.child({ component: 'shared-state' }),
    redisUrl: config.REDIS_URL || undefined,
    prefix: config.REDIS_KEY_PREFIX,
  });
  const rateLimitStore =
    config.RATE_LIMIT_STORE === 'memory'
      ? new MemoryRateLimitStore(clock)
      : new SharedRateLimitStore({ shared: sharedState, clock, log: logger.child({ component: 'rate-limits' }) });
  const kernelServices: KernelServices = {
    config,
    logger,
    db,
    readDb: readReplica.db,
    readReplica,
    clock,
    metrics,
    secretBox: new SecretBox(env, { production: config.production, dataDir: config.CMS_DATA_DIR, logger }),
    sessions: new SessionService({ db, clock, ttlHours: config.SESSION_TTL_HOURS }),
    users: new UserDirectory({ db }),
    roles: new RoleDirectory({ db }),
    permissions: new PermissionRegistry(),
    audit: new AuditWriter({ db, logger: logger.child({ component: 'audit' }), metrics }),
    recordHooks: new RecordHooks(),
    scheduler: new Scheduler(logger.child({ component: 'scheduler' })),
    jobs,
    notifications,
    sharedState,
    rateLimitStore,
    cacheNotices: new CacheNotices({ db, notifications }),
    mail: new MailPort({ logger, clock, throttles: rateLimitStore }),
    extensions: new ExtensionFolders(PROJECT_ROOT, config.CMS_PLUGIN_PATH),
    mountedRoutes: new MountedRoutes(),
    outboundGuard: new OutboundGuard(config.SANDBOX),
    logFiles: opts.logFiles ?? new LogFiles(logSourceOf(opts.service), undefined),
  };
  kernelServices.permissions.register('kernel', KERNEL_PERMISSIONS);
  const scopes = new PluginScopes(kernelServices, config, logger);

  try {
    for (const plugin of plugins) kernelServices.permissions.register(plugin.id, plugin.permissions ?? []);

    const migrate = opts.migrate ?? (opts.service === 'core-api' || opts.service === 'all');
    const sets = migrationSets(plugins);
    let appliedMigrations: string[] = [];
    if (migrate) {
      // core-api is the process that migrates a split deployment, so it applies the tables of the
      // plugins that run only elsewhere too (e.g. a gateway-only plugin), as `cms migrate` does.
      const every =
        opts.service === 'core-api' ? migrationSets(await resolvePluginSet({ ...opts, service: 'all' }, config)) : sets;
      appliedMigrations = await migrateDatabase(database, every, config.AUDIT_RETENTION_DAYS, logger);
      if (appliedMigrations.length) logger.info({ applied: appliedMigrations }, 'migrations applied');
      await opts.afterMigrations?.(kernelServices);
    } else {
      const pending = await pendingMigrations(db, sets);
      if (pending.length) logger.warn({ pending }, 'migrations pending: start core-api or run `cms migrate`');
    }

    await sharedState.ready();
    await scopes.setUp(plugins);
    await scopes.start();

    const app = await createHttpApp({ ...kernelServices, version: VERSION });
    const mounted = plugins.filter((p) => mountsRoutes(p, opts.service));
    for (const plugin of mounted) {
      if (plugin.routes) {
        const ctx = scopes.contextOf(plugin.id);
        const mountRoutes = async (scope: App) => {
          requireAnswerSchemas(scope, plugin.id);
          await plugin.routes!(scope, ctx as never);
        };
        // Named, fastify does not search every loaded module for an anonymous function (a few ms
        // per plugin, on every start) and its errors say which plugin.
        Object.assign(mountRoutes, { [Symbol.for('fastify.display-name')]: `plugin ${plugin.id}` });
        await app.register(mountRoutes);
      }
    }
    await app.ready();

    const purgeSessions = async () => void (await kernelServices.sessions.purge());
    const purgeSharedState = async () => void (await sharedState.purge());
    const kernelLog = logger.child({ component: 'jobs' });
    jobs.addSchedule('kernel', { name: SESSIONS_PURGE, cron: '17 3 * * *', run: () => purgeSessions() }, {}, kernelLog);
    jobs.addSchedule(
      'kernel',
      { name: SHARED_STATE_PURGE, cron: '*/10 * * * *', run: () => purgeSharedState() },
      {},
      kernelLog,
    );
    for (const plugin of mounted) {
      const ctx = scopes.contextOf(plugin.id);
      const log = logger.child({ plugin: plugin.id });
      // The context a plugin's manifest types its queues with is the one `contextOf` built for it.
      for (const queue of plugin.queues ?? []) jobs.addQueue(queue, ctx as never, log);
      for (const schedule of plugin.schedules ?? []) jobs.addSchedule(plugin.id, schedule, ctx, log);
    }
    await notifications.start();
    await jobs.start();

    if (opts.jobs !== false) {
      for (const plugin of mounted) {
        for (const job of plugin.jobs ?? []) {
          const ctx = scopes.contextOf(plugin.id);
          kernelServices.scheduler.schedule({
            ...job,
            name: `${plugin.id}.${job.name}`,
            run: () => job.run(ctx as never),
          });
        }
      }
    }

    let closed = false;
    return {
      app,
      config,
      service: opts.service,
      plugins,
      appliedMigrations,
      resolve: (name) => scopes.resolve(name),
      pluginDeps: (id) => scopes.contextOf(id) as PluginContext<ServiceKey, never, TObject, unknown>,
      async runJob(pluginId, jobName) {
        if (pluginId === 'kernel' && jobName === SESSIONS_PURGE) return purgeSessions();
        if (pluginId === 'kernel' && jobName === SHARED_STATE_PURGE) return purgeSharedState();
        const plugin = plugins.find((p) => p.id === pluginId);
        const schedule = plugin?.schedules?.find((s) => s.name === jobName);
        if (schedule) return schedule.run(scopes.contextOf(pluginId) as never, new AbortController().signal);
        const job = plugin?.jobs?.find((j) => j.name === jobName);
        if (!job) throw new Error(`plugin "${pluginId}" has no schedule or job "${jobName}"`);
        await job.run(scopes.contextOf(pluginId) as never);
      },
      async listen(port?: number) {
        return app.listen({ port: port ?? config.PORT ?? SERVICE_PORTS[opts.service], host: config.HOST });
      },
      async close() {
        if (closed) return;
        closed = true;
        await kernelServices.scheduler.stop();
        await jobs.stop(config.JOBS_STOP_GRACE_MS);
        await app.close(); // finishes in-flight requests
        await scopes.stop();
        await notifications.stop();
        await sharedState.close();
        await readReplica.close();
        if (!opts.database) await database.close();
        await kernelServices.logFiles.flush();
      },
    };
  } catch (err) {
    await kernelServices.scheduler.stop();
    await jobs.stop(0).catch(() => undefined);
    await scopes.stop();
    await notifications.stop();
    await sharedState.close();
    await readReplica.close().catch(() => undefined);
    if (!opts.database) await database.close().catch(() => undefined);
    throw err;
  }
}
