import { readdirSync, existsSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Knex } from 'knex';
import type { Db } from './database.ts';
import { ensureJobQueues } from './job-store.ts';

/** One owner's migrations: the kernel's, or one plugin's, each in its own knex migrations table. */
export interface MigrationSet {
  owner: string;
  /** Its migrations folder; empty for an owner that only has job queues. */
  directory: string;
  /** Job queues it owns (kernel/jobs.ts), created after its migrations: a queue is a table of its own. */
  queues?: readonly string[];
}

export const tableNameFor = (owner: string) =>
  owner === 'kernel' ? 'knex_migrations' : `knex_migrations_${owner.replace(/[^a-z0-9]/gi, '_')}`;

const MIGRATION_FILE = /^[^.].*\.(ts|js|mjs)$/;

/**
 * Lists migration files by name and records them without their extension, so `0001_x.ts` run from
 * source and `0001_x.js` run from a build are the same migration.
 */
class FolderMigrationSource implements Knex.MigrationSource<string> {
  constructor(private readonly directory: string) {}
  async getMigrations(): Promise<string[]> {
    if (!existsSync(this.directory)) return [];
    const names = readdirSync(this.directory).filter((f) => MIGRATION_FILE.test(f) && !f.endsWith('.d.ts'));
    return [...new Set(names)].sort();
  }
  getMigrationName(file: string): string {
    return file.replace(/\.(ts|js|mjs)$/, '');
  }
  async getMigration(file: string): Promise<Knex.Migration> {
    return import(pathToFileURL(path.join(this.directory, file)).href);
  }
}

function configFor(set: MigrationSet): Knex.MigratorConfig {
  return { migrationSource: new FolderMigrationSource(set.directory), tableName: tableNameFor(set.owner) };
}

/** Advisory lock key shared by every process migrating this database ("cmsmigr" in ASCII). */
// The advisory lock key, as a bigint in text: the value processes of every earlier version used ('cmsmigr' read
// as a double, rounded).
const MIGRATION_LOCK_KEY = '27986365218645870';

/**
 * Applies every pending migration, set by set, in the order given. Returns `owner/name` of each applied.
 * A session advisory lock serialises processes that migrate at once (a server and `cms migrate` started
 * together on a new database would otherwise both create knex's tables and one would fail).
 */
export async function migrateAll(db: Db, sets: MigrationSet[]): Promise<string[]> {
  const lock = await db.client.acquireConnection();
  try {
    // Polled, never waited on: a session blocked in pg_advisory_lock holds a snapshot, and the other
    // process's CREATE INDEX CONCURRENTLY would wait for it forever.
    while (!(await lock.query('SELECT pg_try_advisory_lock($1) AS ok', [MIGRATION_LOCK_KEY])).rows[0].ok) {
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const applied: string[] = [];
    for (const set of sets) {
      if (set.directory) {
        const [, names] = (await db.migrate.latest(configFor(set))) as [number, string[]];
        for (const name of names) applied.push(`${set.owner}/${name}`);
      }
      // The kernel's set installs the engine first, so every later set finds it.
      if (set.queues?.length) await ensureJobQueues(db, set.queues);
    }
    return applied;
  } finally {
    await lock.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(() => undefined);
    await db.client.releaseConnection(lock);
  }
}

/** Names of migrations not yet applied, per set (used by services that do not migrate themselves). */
export async function pendingMigrations(db: Db, sets: MigrationSet[]): Promise<string[]> {
  const pending: string[] = [];
  for (const set of sets.filter((s) => s.directory)) {
    const [, list] = (await db.migrate.list(configFor(set))) as [unknown[], Array<{ file: string } | string>];
    const source = new FolderMigrationSource(set.directory);
    for (const item of list)
      pending.push(`${set.owner}/${source.getMigrationName(typeof item === 'string' ? item : item.file)}`);
  }
  return pending;
}
