import type { TObject } from '@sinclair/typebox';
import type { FastifyInstance, FastifyBaseLogger, RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AuditWriter } from './audit.ts';
import type { Clock } from './clock.ts';
import type { Config, ServiceName } from './config.ts';
import type { Db } from './database.ts';
import type { Logger } from './logger.ts';
import type { MailPort } from './mail.ts';
import type { Metrics } from './metrics.ts';
import type { PermissionDefinition, PermissionRegistry } from './permissions.ts';
import type { RecordHooks } from './record-hooks.ts';
import type { Scheduler } from './scheduler.ts';
import type { SecretBox } from './secret-box.ts';
import type { SessionService } from './sessions.ts';
import type { UserDirectory } from './users.ts';

/** The services the kernel registers in the container. */
export interface KernelServices {
  config: Config;
  logger: Logger;
  db: Db;
  clock: Clock;
  secretBox: SecretBox;
  sessions: SessionService;
  users: UserDirectory;
  permissions: PermissionRegistry;
  audit: AuditWriter;
  recordHooks: RecordHooks;
  scheduler: Scheduler;
  metrics: Metrics;
  mail: MailPort;
}

/**
 * Services that plugins provide to each other (manifest `provides`). A providing plugin augments this
 * interface with `declare module` so consumers get types without importing its files.
 */
export interface PluginServices {}

export type ServiceMap = KernelServices & PluginServices;
export type ServiceKey = keyof ServiceMap;

/** What a plugin's routes, jobs and providers receive: exactly the services it declared, plus its own. */
export type PluginDeps<N extends ServiceKey> = Pick<ServiceMap, N> & {
  /** This plugin's logger (carries its id). */
  log: Logger;
  /** This plugin's environment slice, validated at start. */
  pluginConfig: Record<string, unknown>;
};

/** The Fastify instance a plugin's routes are registered on (typebox type provider). */
export type App = FastifyInstance<RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression, FastifyBaseLogger, TypeBoxTypeProvider>;

export interface PluginJob<N extends ServiceKey> {
  name: string;
  firstRunAfterMs: number;
  intervalMs: number;
  run(deps: PluginDeps<N>): Promise<void>;
}

/**
 * A plugin's manifest: the whole contract between a feature area and the kernel. Default-export it
 * from `plugins/<id>/index.ts` through `definePlugin`.
 */
export interface PluginManifest<N extends ServiceKey = ServiceKey> {
  /** kebab-case id, equal to the folder name. */
  id: string;
  /** The processes that load it. All-in-one loads every plugin. */
  services: readonly ServiceName[];
  /** Kernel services and other plugins' services it uses; anything else is out of reach. */
  needs: readonly N[];
  /** Permission keys it contributes (listed by GET /auth/permissions). */
  permissions?: readonly PermissionDefinition[];
  /** Environment variables it reads, validated at start like the kernel's. */
  config?: TObject;
  /** Absolute path of its migrations folder (own knex migrations table). */
  migrations?: string;
  /** Services it offers other plugins, by container name. */
  provides?: { [K in ServiceKey]?: (deps: PluginDeps<N>) => ServiceMap[K] };
  /** Its routes, registered in an encapsulated Fastify context. */
  routes?: (app: App, deps: PluginDeps<N>) => Promise<void> | void;
  /** Background jobs, run by the kernel scheduler and stopped on shutdown. */
  jobs?: readonly PluginJob<N>[];
  /** Runs once after migrations, before the server listens (subscribing to hooks, seeding). */
  onStart?: (deps: PluginDeps<N>) => Promise<void> | void;
}

/** Identity function that gives a manifest its types. */
export function definePlugin<N extends ServiceKey>(manifest: PluginManifest<N>): PluginManifest<N> {
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
  interface FastifyContextConfig extends RouteAccess {}
  interface FastifyRequest {
    actor: import('./actor.ts').Actor;
  }
}
