/**
 * The kernel's public surface: everything a plugin may import from the kernel, and nothing else. A
 * plugin (in `plugins/` or on CMS_PLUGIN_PATH) imports only this file, never another kernel file and
 * never another plugin's files; `test/kernel/plugin-boundaries.test.ts` enforces both.
 */

// The plugin contract.
export { definePlugin } from './plugin.ts';
export type {
  AnyPluginManifest,
  App,
  ContributionKey,
  KernelServices,
  PluginContext,
  PluginContributions,
  PluginDeps,
  PluginJob,
  PluginManifest,
  PluginServices,
  RouteAccess,
  ServiceKey,
  ServiceMap,
} from './plugin.ts';
export { ConfigError, EnvFlag, parseEnvSlice, type Config, type ServiceName } from './config.ts';
export type { LogFile, LogFiles, LogSource } from './log-files.ts';
export type { OutboundGuard, PluginSandboxRules, RouteSandboxRule } from './sandbox.ts';

// Errors with a status and a stable code; one handler maps them to the documented body.
export {
  HttpError,
  badRequest,
  conflict,
  forbidden,
  isHttpError,
  isUniqueViolation,
  locked,
  notFound,
  tooManyRequests,
  unauthorized,
  unavailable,
} from './errors.ts';
export { requestContext, type ErrorBody } from './http.ts';
// Every route declares its answers (`schema.response`); the kernel adds the error body and refuses a
// route without a 2xx or 3xx answer schema.
export { ErrorBodySchema, emptyAnswer, nonJsonAnswer } from './answer-schemas.ts';

// The Content-Security-Policy of HTML answers, declared on a route (`config.documentPolicy`).
export { documentHeaders, type DocumentPolicy } from './document-policy.ts';
// Rate limits declared on a route (`config.rateLimit`), enforced by the kernel.
export {
  SharedRateLimitStore,
  type RateCount,
  type RateLimitKey,
  type RateLimitStore,
  type RateLimitStoreState,
  type RouteRateLimit,
} from './rate-limit.ts';
// Calls running at once per key (an upstream call, a streamed answer): 429 beyond, by the caller.
export { InFlightLimit } from './in-flight.ts';

// Input from outside: user-supplied regular expressions run on a linear-time engine.
export {
  MAX_DECODING_ROUNDS,
  pathOf,
  pathProblemMessage,
  requestPathProblem,
  type PathProblem,
} from './request-path.ts';
export { isUuid } from './formats.ts';
export { USER_PATTERN_CACHE_SIZE, UserPatternError, compileUserPattern, type UserPattern } from './patterns.ts';

// Who acts, and what they may do.
export { ANONYMOUS, SYSTEM, type Actor, type AnonymousActor, type SystemActor, type UserActor } from './actor.ts';
export type { PermissionDefinition, PermissionRegistry } from './permissions.ts';
export { SESSION_COOKIE, type SessionService } from './sessions.ts';
export type { MountedRoutes } from './mounted-routes.ts';
export type { Credentials, DirectoryUser, UserDirectory } from './users.ts';
export type { RoleDirectory, RoleRecord } from './roles.ts';
export { hashPassword, hashToken, newToken, safeEqual, verifyPassword } from './passwords.ts';
export {
  DEFAULT_PASSWORD_POLICY,
  PASSWORD_MAX_LENGTH,
  assertPasswordAllowed,
  type PasswordPolicy,
} from './password-policy.ts';

// Data, writes and what they announce.
export { databaseAnswers, inTransaction, type Db, type Tx, type WriteOptions } from './database.ts';
export { unicodeLowerSql } from './text-fold.ts';
export { diffForAudit, type AuditContext, type AuditEntry, type AuditFieldRules, type AuditWriter } from './audit.ts';
export type { ChangeActor, RecordChange, RecordChangeSubscriber, RecordHooks } from './record-hooks.ts';

// Other kernel services' types.
export { ManualClock, nowMsOf, SystemClock, type Clock } from './clock.ts';
export type { ExtensionFolders } from './extensions.ts';
export { createLogger, type Logger } from './logger.ts';
export type { MailMessage, MailOutbox, MailPort, MailSendOptions, MailSendResult } from './mail.ts';
export type { Metrics } from './metrics.ts';
export type { Scheduler } from './scheduler.ts';
export type { SecretBox } from './secret-box.ts';

// Durable work: queues and schedules on PostgreSQL (kernel/jobs.ts).
export {
  JobFailure,
  type EnqueueOptions,
  type JobProgress,
  type JobRun,
  type Jobs,
  type QueueDefinition,
  type QueueDepth,
  type ScheduleDefinition,
} from './jobs.ts';
export { DatabaseNotifications } from './database-notifications.ts';
export type { ReadReplica } from './read-database.ts';
export type { CacheNotices } from './cache-notices.ts';
export type { SharedState, SharedStateInfo } from './shared-state.ts';
