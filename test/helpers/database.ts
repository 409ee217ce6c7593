import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { pino } from 'pino';
import { createKnex, type DatabaseHandle } from '../../kernel/database.ts';
import { startEmbeddedPostgres, type EmbeddedCluster } from '../../runtime/embedded-postgres.ts';
import { PROJECT_ROOT, discoverPlugins } from '../../kernel/loader.ts';
import { migrateAll, type MigrationSet } from '../../kernel/migrations.ts';
import { migrationSets } from '../../kernel/kernel.ts';
import { freePort } from './ports.ts';

/**
 * One database server for the whole test run: TEST_DATABASE_URL when set, otherwise an embedded
 * cluster on a free port. Each test kernel gets its own database, cloned from a template migrated
 * once per run for its exact set of migrations (so a kernel started with a plugin subset proves that
 * its own migrations suffice), or an empty one when the test is about migrations.
 */
interface Server {
  adminUrl: string;
  urlFor(db: string): string;
  cluster?: EmbeddedCluster;
}

let server: Promise<Server> | undefined;
/** Template database names by migration-set key, each built on first use. */
const templates = new Map<string, Promise<string>>();
/** Test databases of this process not dropped yet (templates are kept until teardown). */
let created: string[] = [];
/**
 * Every database of a run is named `cms_<kind>_<run>_<process>_<random>`: parallel workers share the
 * run tag their main process sets, so its teardown finds what they leave behind.
 */
process.env.CMS_TEST_RUN ??= randomBytes(3).toString('hex');
const RUN_TAG = process.env.CMS_TEST_RUN;
const RUN = `${RUN_TAG}_${process.pid}_${randomBytes(2).toString('hex')}`;

function getServer(): Promise<Server> {
  server ??= (async () => {
    const external = process.env.TEST_DATABASE_URL;
    if (external) {
      const base = new URL(external);
      return {
        adminUrl: external,
        urlFor: (db) => {
          const u = new URL(base);
          u.pathname = `/${db}`;
          return u.toString();
        },
      };
    }
    // A cluster of this run's own: parallel runs never share a data folder, and a killed run
    // leaves nothing that blocks the next one (its folder is swept below).
    sweepStaleClusters();
    const cluster = await startEmbeddedPostgres({
      dir: path.join(CLUSTERS_DIR, `run-${process.pid}`),
      port: await freePort(),
      logger: pino({ level: 'silent' }),
      volatile: true,
    });
    return { adminUrl: cluster.urlFor('postgres'), urlFor: cluster.urlFor, cluster };
  })();
  return server;
}

/**
 * The connection string of this run's server (its `postgres` database), started if needed: a runner
 * passes it to child processes as TEST_DATABASE_URL so they share one cluster.
 */
export async function testServerUrl(): Promise<string> {
  return (await getServer()).adminUrl;
}

async function admin<T>(fn: (c: pg.Client) => Promise<T>, on?: Server): Promise<T> {
  const client = new pg.Client({ connectionString: (on ?? (await getServer())).adminUrl });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** Same owners and folders, whatever the order: a full plugin set always shares one template. */
const templateKey = (sets: MigrationSet[]) =>
  sets
    .map((s) => `${s.owner}=${s.directory}:${[...(s.queues ?? [])].sort().join(',')}`)
    .sort()
    .join('\n');

/** The note on a template database once its migrations are done (a builder may die half way). */
const TEMPLATE_READY = 'cms test template, migrated';

/**
 * The template of a migration set, named by the run and the set rather than the process: the
 * parallel workers of a run share it (each used to migrate its own copy of every set it met: some 70
 * templates in a run of three workers). The first process to ask builds it under an advisory lock; the others wait
 * for the lock and find it ready.
 */
function getTemplate(sets: MigrationSet[]): Promise<string> {
  const key = templateKey(sets);
  let template = templates.get(key);
  if (!template) {
    const digest = createHash('sha256').update(key).digest('hex');
    const name = `cms_tmpl_${RUN_TAG}_${digest.slice(0, 12)}`;
    const lock = BigInt(`0x${digest.slice(0, 15)}`).toString();
    template = admin(async (c) => {
      await c.query('SELECT pg_advisory_lock($1::bigint)', [lock]);
      try {
        const { rows } = await c.query<{ note: string | null }>(
          "SELECT shobj_description(oid, 'pg_database') AS note FROM pg_database WHERE datname = $1",
          [name],
        );
        if (rows[0]?.note === TEMPLATE_READY) return name;
        if (rows.length > 0) await c.query(`DROP DATABASE ${name} WITH (FORCE)`);
        await c.query(`CREATE DATABASE ${name}`);
        const knex = createKnex((await getServer()).urlFor(name), 3);
        try {
          await migrateAll(knex, sets);
        } finally {
          await knex.destroy();
        }
        await c.query(`COMMENT ON DATABASE ${name} IS '${TEMPLATE_READY}'`);
        return name;
      } finally {
        await c.query('SELECT pg_advisory_unlock($1::bigint)', [lock]);
      }
    });
    templates.set(key, template);
  }
  return template;
}

/** The migrations of every plugin in the plugins folder (the default template). */
export async function allPluginMigrations(): Promise<MigrationSet[]> {
  return migrationSets(await discoverPlugins());
}

export interface TestDatabaseOptions {
  /** Start empty (the test is about migrations). */
  fresh?: boolean;
  /** Clone a template migrated with exactly these sets (default: the kernel's and every plugin's). */
  migrations?: MigrationSet[];
  /**
   * Kept until the run's teardown rather than dropped after the file: for something a parallel worker
   * keeps across its files (the shared browser product).
   */
  untilTeardown?: boolean;
}

/** A new database for one test kernel: migrated from its template, or empty with `fresh`. */
export async function createTestDatabase(opts: TestDatabaseOptions = {}): Promise<DatabaseHandle> {
  const name = `cms_t_${RUN}_${randomBytes(4).toString('hex')}`;
  const from = opts.fresh ? 'template0' : await getTemplate(opts.migrations ?? (await allPluginMigrations()));
  await admin((c) => c.query(`CREATE DATABASE ${name} TEMPLATE ${from}`));
  if (!opts.untilTeardown) created.push(name);
  const url = (await getServer()).urlFor(name);
  const db = createKnex(url, 5);
  return { db, url, close: () => db.destroy() };
}

/** The drops `releaseTestDatabases` started, one after the other; teardown waits for them. */
let dropping: Promise<void> = Promise.resolve();

/**
 * Drops the test databases this process made so far, keeping its templates (root hook, after each
 * file under `--parallel`). The drops run behind the next file rather than before it: a drop is a
 * checkpoint on the server, a second or more each on a server that syncs to disk, and nothing waits
 * for the space; the returned promise is for a caller that does want to wait.
 */
export function releaseTestDatabases(): Promise<void> {
  if (!server || created.length === 0) return dropping;
  const names = created.reverse();
  created = [];
  dropping = dropping.then(() =>
    admin(async (c) => {
      for (const name of names) await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    }).catch(() => undefined),
  );
  return dropping;
}

/**
 * Drops every database of this run, the parallel workers' included, and stops the embedded cluster
 * this process started (global teardown, once at the very end).
 */
export async function teardownTestDatabases(): Promise<void> {
  if (!server) return;
  await dropping;
  const s = await server;
  server = undefined;
  templates.clear();
  created = [];
  await admin(async (c) => {
    const { rows } = await c.query<{ datname: string }>(
      String.raw`SELECT datname FROM pg_database WHERE datname LIKE 'cms\_t\_' || $1 || '\_%' OR datname LIKE 'cms\_tmpl\_' || $1 || '\_%' ORDER BY datname LIKE 'cms\_tmpl%'`,
      [RUN_TAG],
    );
    for (const { datname } of rows)
      await c.query(`DROP DATABASE IF EXISTS ${c.escapeIdentifier(datname)} WITH (FORCE)`);
  }, s).catch(() => undefined);
  if (s.cluster) {
    await s.cluster.stop();
    rmSync(path.join(CLUSTERS_DIR, `run-${process.pid}`), { recursive: true, force: true });
  }
}

/**
 * The embedded cluster's data lives in memory where the system offers it (/dev/shm): a test run
 * clones dozens of databases, and on disk each clone costs most of a kernel start. Each checkout has
 * its own folder there, so parallel runs of different checkouts never sweep each other's.
 */
const CLUSTERS_DIR =
  process.env.TEST_CLUSTERS_DIR ??
  (existsSync('/dev/shm')
    ? path.join('/dev/shm', `cms-test-clusters-${createHash('sha256').update(PROJECT_ROOT).digest('hex').slice(0, 12)}`)
    : path.join(PROJECT_ROOT, '.test-data', 'clusters'));

function sweepStaleClusters(): void {
  if (!existsSync(CLUSTERS_DIR)) return;
  for (const name of readdirSync(CLUSTERS_DIR)) {
    const pid = Number(/^run-(\d+)$/.exec(name)?.[1]);
    if (!pid || pid === process.pid) continue;
    try {
      process.kill(pid, 0);
    } catch {
      rmSync(path.join(CLUSTERS_DIR, name), { recursive: true, force: true });
    }
  }
}
