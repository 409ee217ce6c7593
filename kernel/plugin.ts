import type { Static, TObject } from '@sinclair/typebox';
import type {
  FastifyInstance,
  FastifyBaseLogger,
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
} from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AuditWriter } from './audit.ts';
import type { CacheNotices } from './cache-notices.ts';
import type { Clock } from './clock.ts';
import type { Config, ServiceName } from './config.ts';
import type { DatabaseNotifications } from './database-notifications.ts';
import type { Db } from './database.ts';
import type { ReadReplica } from './read-database.ts';
import type { ExtensionFolders } from './extensions.ts';
import type { Jobs, QueueDefinition, ScheduleDefinition } from './jobs.ts';
import type { LogFiles } from './log-files.ts';
import type { Logger } from './logger.ts';
import type { MailPort } from './mail.ts';
import type { MountedRoutes } from './mounted-routes.ts';
import type { Metrics } from './metrics.ts';
import type { PermissionDefinition, PermissionRegistry } from './permissions.ts';
import type { RateLimitStore, RateLimitStoreState } from './rate-limit.ts';
import type { RecordHooks } from './record-hooks.ts';
import type { OutboundGuard, PluginSandboxRules } from './sandbox.ts';
import type { Scheduler } from './scheduler.ts';
import type { SecretBox } from './secret-box.ts';
import type { RoleDirectory } from './roles.ts';
import type { SessionService } from './sessions.ts';
import type { SharedState } from './shared-state.ts';
import type { UserDirectory } from './users.ts';

/** The services the kernel registers in the container. */
export interface KernelServices {
  config: Config;
  logger: Logger;
  db: Db;
  /**
   * The public read routes' database: the streaming replica of DATABASE_READ_URL, else `db` itself.
   * Only for anonymous public reads; staff routes, writes, staff previews and caches use `db`.
   */
  readDb: Db;
  /** The replica behind `readDb`: `caughtUp()` before a cache refills from it after a change notice. */
  readReplica: ReadReplica;
  clock: Clock;
  secretBox: SecretBox;
  sessions: SessionService;
  users: UserDirectory;
  roles: RoleDirectory;
  permissions: PermissionRegistry;
  audit: AuditWriter;
  recordHooks: RecordHooks;
  scheduler: Scheduler;
  /** The durable job engine: enqueue inside a write, progress, depth (kernel/jobs.ts). */
  jobs: Jobs;
  /** This process's one LISTEN connection: `on(channel, listener)` for notices other processes send. */
  notifications: DatabaseNotifications;
  /** State every replica shares, with expiry (PostgreSQL, or Redis with REDIS_URL): kernel/shared-state.ts. */
  sharedState: SharedState;
  /** Where route rate limits count (the default `store` of `config.rateLimit`), and its `state()`. */
  rateLimitStore: RateLimitStore & { state(): RateLimitStoreState };
  /** Cross-process invalidation of in-memory caches: `changed(cache, key, trx)`, `on(cache, drop)`. */
  cacheNotices: CacheNotices;
  metrics: Metrics;
  mail: MailPort;
  extensions: ExtensionFolders;
  mountedRoutes: MountedRoutes;
  /** Asked before every outbound connection; refuses all of them under the sandbox profile. */
  outboundGuard: OutboundGuard;
  /** This process's log files (none without LOG_DIR): the system logs read them. */
  logFiles: LogFiles;
}

/**
 * Services that plugins provide to each other (manifest `provides`). The providing plugin augments this
 * interface with `declare module` in its `index.ts`, so consumers get types without importing its files.
 */
// biome-ignore lint/suspicious/noEmptyInterface: plugins augment it with `declare module`
export interface PluginServices {}

/**
 * Registries that gather one item from each plugin that contributes (manifest `contributes`), e.g. the
 * sources a data-subject search asks. The collecting plugin augments this interface (name → item type)
 * and declares the name in `collects`; consumers receive `readonly Item[]`.
 */
// biome-ignore lint/suspicious/noEmptyInterface: plugins augment it with `declare module`
export interface PluginContributions {}

/** Everything a plugin can name in `needs` or `optional`. */
export type ServiceMap = KernelServices &
  PluginServices & { [K in keyof PluginContributions]: readonly PluginContributions[K][] };
export type ServiceKey = keyof ServiceMap;
export type ContributionKey = keyof PluginContributions;

/**
 * What `setup` receives: exactly the services a plugin declared (`optional` ones may be undefined), plus
 * its own logger and typed environment slice. Reading anything else throws (strict awilix scope).
 */
export type PluginDeps<N extends ServiceKey = never, O extends ServiceKey = never, C extends TObject = TObject> = Pick<
  ServiceMap,
  N
> &
  Partial<Pick<ServiceMap, O>> & {
    /** This plugin's logger (carries its id). */
    log: Logger;
    /** This plugin's environment slice (manifest `config`), validated and converted at start. */
    pluginConfig: Static<C>;
    pluginId: string;
  };

/** What routes, jobs, `provides`, `contributes`, `onStart` and `onStop` receive: the deps plus the one result of `setup`. */
export type PluginContext<
  N extends ServiceKey = never,
  O extends ServiceKey = never,
  C extends TObject = TObject,
  S = undefined,
> = PluginDeps<N, O, C> & {
  /** What `setup` returned: the plugin's one set of services, shared by all its entry points. */
  services: S;
};

/** The Fastify instance a plugin's routes are registered on (typebox type provider). */
export type App = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

/**
 * Work of this process alone on a timer (shipping its own log lines): first after `firstRunAfterMs`,
 * then every `intervalMs`. Work that must run once across every process is a `schedule`; durable work
 * is a `queue` (kernel/jobs.ts).
 */
export interface PluginJob<Ctx> {
  name: string;
  firstRunAfterMs: number;
  intervalMs: number;
  run(ctx: Ctx): Promise<void>;
}

/**
 * A plugin's manifest: the whole contract between a feature area and the kernel. Default-export it from
 * `plugins/<id>/index.ts` (or a folder on CMS_PLUGIN_PATH) through `definePlugin`.
 *
 * Life cycle in one process: migrations of every loaded plugin → `setup` of each plugin in dependency
 * order (its `provides` and `contributes` are registered right after) → `onStart` of each → routes
 * mounted → queues, schedules and timers started → listening. On shutdown: timers stop, queue runners
 * finish or hand back their running jobs, in-flight requests finish, then `onStop` of each plugin in
 * reverse order, then the database closes.
 */
// The defaults erase the parameters: `PluginManifest` alone is a manifest of any shape, as the loader handles it.
export interface PluginManifest<
  // biome-ignore lint/suspicious/noExplicitAny: the loader handles manifests of any shape
  N extends ServiceKey = any,
  // biome-ignore lint/suspicious/noExplicitAny: the loader handles manifests of any shape
  O extends ServiceKey = any,
  // biome-ignore lint/suspicious/noExplicitAny: the loader handles manifests of any shape
  C extends TObject = any,
  // biome-ignore lint/suspicious/noExplicitAny: the loader handles manifests of any shape
  S = any,
> {
  /** kebab-case id, equal to the folder name. */
  id: string;
  /** The processes that build its services (setup, provides, contributions). All-in-one loads every plugin. */
  processes: readonly ServiceName[];
  /** The processes that also mount its routes and run its jobs; default: all of `processes`. */
  routesIn?: readonly ServiceName[];
  /** Kernel services, other plugins' services and registries it uses; anything else is out of reach. */
  needs: readonly N[];
  /**
   * Services it uses when their provider is loaded (then set up before it); `undefined` otherwise. Like
   * `needs` and `contributes`, each is an arrow to the plugin offering it: the loader refuses a circle.
   */
  optional?: readonly O[];
  /** Permission keys it contributes (listed by GET /auth/permissions). */
  permissions?: readonly PermissionDefinition[];
  /** Environment variables it reads, validated and converted at start like the kernel's. */
  config?: C;
  /** What its config slice becomes under the sandbox profile (`SANDBOX=1`); kernel/sandbox.ts. */
  sandbox?: PluginSandboxRules;
  /** Absolute path of its migrations folder (own knex migrations table). */
  migrations?: string;
  /** Builds its services once, after migrations; the result is `ctx.services` everywhere else (and the only place `S` is inferred from). */
  setup?(deps: PluginDeps<N, O, C>): Promise<S> | S;
  /** Services it offers other plugins, by container name. */
  provides?: { [K in keyof PluginServices]?: (ctx: PluginContext<N, O, C, NoInfer<S>>) => PluginServices[K] };
  /** Registries it owns: every loaded plugin's contribution to each is gathered into one array. */
  collects?: readonly ContributionKey[];
  /** Items it adds to other plugins' registries (ignored when no loaded plugin collects the name). */
  contributes?: {
    [K in ContributionKey]?: (
      ctx: PluginContext<N, O, C, NoInfer<S>>,
    ) => PluginContributions[K] | readonly PluginContributions[K][];
  };
  /** Its routes, registered in an encapsulated Fastify context. */
  routes?(app: App, ctx: PluginContext<N, O, C, NoInfer<S>>): Promise<void> | void;
  /** Timers of this process alone, run where its routes are mounted, stopped on shutdown. */
  jobs?: readonly PluginJob<PluginContext<N, O, C, NoInfer<S>>>[];
  /**
   * Durable queues it works (kernel/jobs.ts), run where its routes are mounted. Each is created with
   * the plugin's migrations; any process may enqueue into it through the `jobs` port.
   */
  queues?: readonly QueueDefinition<PluginContext<N, O, C, NoInfer<S>>>[];
  /**
   * Queues it enqueues into but does not work: another plugin's, or one whose jobs a worker outside the
   * kernel carries out (`jobs.claim`). Created with this plugin's migrations too.
   */
  enqueues?: readonly string[];
  /** Timed work run once per cron tick across every process (`<id>.<name>`), where its routes are mounted. */
  schedules?: readonly ScheduleDefinition<PluginContext<N, O, C, NoInfer<S>>>[];
  /**
   * `cms <name>` commands it adds: processes of their own beside the servers (a runner, a one-off
   * task). Nothing of the plugin is set up for them; `run` imports what it uses when it runs.
   */
  commands?: readonly PluginCommand[];
  /** Runs once every plugin is set up, before the server listens (subscribing to hooks, seeding). */
  onStart?(ctx: PluginContext<N, O, C, NoInfer<S>>): Promise<void> | void;
  /** Runs on shutdown after in-flight requests finished, in reverse start order (drain, close clients). */
  onStop?(ctx: PluginContext<N, O, C, NoInfer<S>>): Promise<void> | void;
}

/** A `cms <name>` command of a plugin (`PluginManifest.commands`). */
export interface PluginCommand {
  /** kebab-case; must not be one of the kernel's own commands. */
  name: string;
  /** Its arguments as the usage text shows them, e.g. `[--once]`. */
  args: string;
  /** What it does, for the usage text (may hold line breaks). */
  summary: string;
  /** The environment it reads (its own: the plugin's `config` is not loaded for it), for the README's table. */
  config?: TObject;
  /** Runs it with the arguments after its name; a thrown ConfigError is printed as `cms: <message>`. */
  run(args: string[]): Promise<void>;
}

/** A manifest of any shape, as the loader handles it (it gives each plugin the context its own manifest describes). */
export type AnyPluginManifest = PluginManifest;

/** Identity function that gives a manifest its types (declare `setup` before the members that use `ctx.services`). */
export function definePlugin<
  N extends ServiceKey,
  O extends ServiceKey = never,
  C extends TObject = TObject,
  S = undefined,
>(manifest: PluginManifest<N, O, C, S>): PluginManifest<N, O, C, S> {
  return manifest;
}

/** Route-level access declaration, read by the kernel's onRoute hook. */
export interface RouteAccess {
  /** Permission key the caller must hold. */
  permission?: string;
  /** No authentication at all. */
  public?: boolean;
  /** Any signed-in user, no particular key (e.g. /auth/me, /auth/logout). */
  session?: boolean;
}

declare module 'fastify' {
  interface FastifyContextConfig extends RouteAccess {
    /** A limit on the route's requests per address, user or caller; the kernel enforces it (kernel/rate-limit.ts). */
    rateLimit?: import('./rate-limit.ts').RouteRateLimit;
    /** What the route does under the sandbox profile (`'block'`: 403 SANDBOX_BLOCKED); kernel/sandbox.ts. */
    sandbox?: import('./sandbox.ts').RouteSandboxRule;
    /** The Content-Security-Policy of the route's HTML answers (kernel/document-policy.ts); strict when unset. */
    documentPolicy?: import('./document-policy.ts').DocumentPolicy;
  }
  interface FastifyRequest {
    actor: import('./actor.ts').Actor;
  }
}
