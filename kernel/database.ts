import knexFactory, { type Knex } from 'knex';
import pg from 'pg';
import { ConfigError, type Config } from './config.ts';
import type { Logger } from './logger.ts';
import { prepareApplicationRole, roleOf, storeAuditRetention } from './database-roles.ts';
import { migrateAll, type MigrationSet } from './migrations.ts';

export type Db = Knex;
export type Tx = Knex.Transaction;

// COUNT(*) and BIGINT come back as strings by default; every count here fits a JS number.
pg.types.setTypeParser(20, (v) => Number.parseInt(v, 10));

/** A knex instance; its own warnings (dropped connections and the like) go to `logger` when given. */
export function createKnex(
  url: string,
  poolMax: number,
  logger?: Logger,
  opts: { acquireTimeoutMs?: number; applicationName?: string } = {},
): Db {
  const log = logger?.child({ component: 'database' });
  return knexFactory({
    client: 'pg',
    connection: {
      connectionString: url,
      application_name: opts.applicationName ?? 'cms',
      connectionTimeoutMillis: 5_000,
    },
    pool: { min: 0, max: poolMax, idleTimeoutMillis: 30_000 },
    // How long a request waits for a free connection before it answers 503 (pool exhausted).
    acquireConnectionTimeout: opts.acquireTimeoutMs ?? 10_000,
    log: {
      warn: (message: string) => (log ? log.warn(message) : undefined),
      error: (message: string) => (log ? log.error(message) : undefined),
      deprecate: (message: string) => (log ? log.warn(message) : undefined),
      debug: (message: string) => (log ? log.debug(message) : undefined),
    },
  });
}

/** The database handle of a process, and whatever runs behind it (an embedded cluster) when one was started. */
export interface DatabaseHandle {
  db: Db;
  url: string;
  /** The schema owner's connection string when it differs from `url` (migrations run as the owner). */
  ownerUrl?: string;
  close(): Promise<void>;
}

/** How a process opens its database; the kernel owns (and closes) what it returns. */
export type DatabaseOpener = (config: Config, logger: Logger) => Promise<DatabaseHandle>;

/**
 * A handle on `url` (the application role) with a pool of `poolMax`; `ownerUrl`, when it differs,
 * runs the migrations. `close()` destroys the pool, then runs `afterClose` (e.g. stops a cluster).
 */
export function connectDatabase(
  url: string,
  opts: { ownerUrl?: string; poolMax: number; logger?: Logger; afterClose?: () => Promise<void> },
): DatabaseHandle {
  const db = createKnex(url, opts.poolMax, opts.logger);
  return {
    db,
    url,
    ownerUrl: opts.ownerUrl && opts.ownerUrl !== url ? opts.ownerUrl : undefined,
    async close() {
      await db.destroy();
      await opts.afterClose?.();
    },
  };
}

/**
 * The production guard: outside development and test the database must be named by DATABASE_URL with a
 * password in it (and DATABASE_OWNER_URL and DATABASE_READ_URL too, when set), so a production process never falls back to
 * the embedded cluster or connects without a password. Returns why a process must not start, or null.
 */
export function databasePasswordProblem(
  config: Pick<Config, 'NODE_ENV' | 'DATABASE_URL' | 'DATABASE_OWNER_URL' | 'DATABASE_READ_URL'>,
): string | null {
  if (config.NODE_ENV === 'development' || config.NODE_ENV === 'test') return null;
  const env = `NODE_ENV=${config.NODE_ENV}`;
  if (!config.DATABASE_URL)
    return `DATABASE_URL is required with ${env}: set it to postgresql://<user>:<password>@<host>:5432/<database> (the embedded database is for development and test only)`;
  for (const name of ['DATABASE_URL', 'DATABASE_OWNER_URL', 'DATABASE_READ_URL'] as const) {
    const value = config[name];
    if (value !== undefined && !urlPassword(value))
      return `${name} has no password; a database password is required with ${env} (postgresql://<user>:<password>@<host>/<database>)`;
  }
  return null;
}

function urlPassword(value: string): string {
  try {
    return new URL(value).password;
  } catch {
    return '';
  }
}

/**
 * Opens the database of DATABASE_URL (migrating as DATABASE_OWNER_URL when set). The kernel's default
 * opener: the runtime (`runtime/database.ts`) passes one that falls back to the embedded cluster of
 * CMS_DATA_DIR when DATABASE_URL is unset.
 */
export const openDatabaseUrl: DatabaseOpener = async (config, logger) => {
  const problem = databasePasswordProblem(config);
  if (problem) throw new ConfigError(problem);
  if (!config.DATABASE_URL) throw new ConfigError('DATABASE_URL is not set');
  return connectDatabase(config.DATABASE_URL, {
    ownerUrl: config.DATABASE_OWNER_URL,
    poolMax: config.DATABASE_POOL_MAX,
    logger,
  });
};

/**
 * Applies pending migrations as the schema owner, then (when the processes connect as another role)
 * hands that role what it may use; records the audit retention `audit_purge()` enforces either way.
 */
export async function migrateDatabase(
  handle: DatabaseHandle,
  sets: MigrationSet[],
  auditRetentionDays: number,
  logger?: Logger,
): Promise<string[]> {
  if (!handle.ownerUrl) {
    const applied = await migrateAll(handle.db, sets);
    await storeAuditRetention(handle.db, auditRetentionDays);
    return applied;
  }
  const owner = createKnex(handle.ownerUrl, 3, logger);
  try {
    const applied = await migrateAll(owner, sets);
    await prepareApplicationRole(owner, roleOf(handle.url), auditRetentionDays);
    return applied;
  } finally {
    await owner.destroy();
  }
}

/** True when the database answers a trivial query within the timeout. */
export async function databaseAnswers(db: Db, timeoutMs = 2000): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      db.raw('select 1'),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error('timeout')), timeoutMs);
      }),
    ]);
    return true;
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}

/** What a service's write method takes to join a caller's transaction instead of opening its own. */
export interface WriteOptions {
  /** The caller's transaction: the write commits or rolls back with it. */
  trx?: Tx;
}

/**
 * Runs `work` in the caller's transaction when one is given (inside a savepoint, so a refused write
 * can be caught without poisoning the outer transaction), else in a transaction of its own.
 */
export function inTransaction<T>(db: Db, trx: Tx | undefined, work: (trx: Tx) => Promise<T>): Promise<T> {
  return trx ? trx.transaction(work) : db.transaction(work);
}
