import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { accessSync, constants, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import mysql from 'mysql2/promise';
import { PROJECT_ROOT } from '../../kernel/loader.ts';
import { acceptsConnections, freePort } from './ports.ts';

const run = promisify(execFile);

/** Where the Pimcore fixtures live: the schema, the class tables and a `var/classes` folder. */
export const PIMCORE_FIXTURES = path.join(PROJECT_ROOT, 'test', 'fixtures', 'pimcore');

/**
 * Debian's MariaDB binaries (`mariadb-server`): MARIADB_BIN_DIR, else /usr/sbin and /usr/bin. Missing
 * MariaDB is an error, not a reason to skip: the migration tests read a real server.
 */
function findBinaries(): { server: string; install: string } {
  const dirs = process.env.MARIADB_BIN_DIR ? [process.env.MARIADB_BIN_DIR] : ['/usr/sbin', '/usr/bin'];
  const find = (name: string) => {
    for (const dir of dirs) {
      const file = path.join(dir, name);
      try {
        accessSync(file, constants.X_OK);
        return file;
      } catch {
        // try the next folder
      }
    }
    throw new Error(
      `${name} is not installed, and the migration tests run a real MariaDB. Install it ` +
        '(`apt-get install mariadb-server`; .ci/run does this) or name its folder with MARIADB_BIN_DIR.',
    );
  };
  return { server: find('mariadbd'), install: find('mariadb-install-db') };
}

export interface RunningMariaDb {
  host: '127.0.0.1';
  port: number;
  /** A user with a password and every right on `database`, as a migration source would name it. */
  user: string;
  password: string;
  database: string;
  /** Runs SQL as the server's root over the socket (several statements at once allowed). */
  sql(text: string): Promise<void>;
  /** Loads the fixture schema (Pimcore 11's tables, the class tables and a few objects) into `database`. */
  loadPimcoreFixture(): Promise<void>;
  /** Stops the server and removes its folder. */
  stop(): Promise<void>;
}

// A throwaway server: no binary log, no doublewrite, no flush per commit (a test run loses nothing).
const FAST = ['--innodb-flush-log-at-trx-commit=0', '--innodb-doublewrite=0', '--skip-log-bin'];

/**
 * Starts Debian's mariadbd on a free loopback port with its data, socket and logs in a temporary
 * folder (as the embedded PostgreSQL is): `mariadb-install-db` creates the system tables, then the
 * server runs as the current user until `stop()`. A database and a password user are created.
 */
export async function startMariaDb(): Promise<RunningMariaDb> {
  const bins = findBinaries();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'cms-mariadb-'));
  const datadir = path.join(dir, 'data');
  const socketPath = path.join(dir, 'mariadb.sock');
  const user = os.userInfo().username;
  await run(bins.install, [
    '--no-defaults',
    `--datadir=${datadir}`,
    `--user=${user}`,
    '--auth-root-authentication-method=normal',
    '--skip-test-db',
    ...FAST,
  ]);
  const port = await freePort();
  const child: ChildProcess = spawn(
    bins.server,
    [
      '--no-defaults',
      `--datadir=${datadir}`,
      `--socket=${socketPath}`,
      `--port=${port}`,
      '--bind-address=127.0.0.1',
      `--user=${user}`,
      '--skip-name-resolve',
      '--innodb-buffer-pool-size=64M',
      `--pid-file=${path.join(dir, 'mariadb.pid')}`,
      `--log-error=${path.join(dir, 'error.log')}`,
      ...FAST,
    ],
    { stdio: 'ignore' },
  );
  let exited = false;
  child.once('exit', () => {
    exited = true;
  });
  const errorLog = () => {
    try {
      return readFileSync(path.join(dir, 'error.log'), 'utf8').slice(-2000);
    } catch {
      return '';
    }
  };
  for (let i = 0; !(await acceptsConnections(port)); i++) {
    if (exited || i > 300) {
      child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`mariadbd did not start:\n${errorLog()}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  // The TCP port can accept before the socket file does (seen on a loaded machine): try the socket
  // for a while too.
  const root = await connectRoot(socketPath, () => exited);
  const database = 'pimcore';
  const password = 'pimcore-test-password';
  const dbUser = 'pimcore';
  await root.query(
    `CREATE DATABASE ${database} CHARACTER SET utf8mb4; CREATE USER '${dbUser}'@'%' IDENTIFIED BY '${password}'; GRANT ALL ON ${database}.* TO '${dbUser}'@'%';`,
  );
  const sql = async (text: string) => void (await root.query(text));
  return {
    host: '127.0.0.1',
    port,
    user: dbUser,
    password,
    database,
    sql,
    async loadPimcoreFixture() {
      await root.query(`USE ${database}`);
      await sql(readFileSync(path.join(PIMCORE_FIXTURES, 'install.sql'), 'utf8'));
      await sql(readFileSync(path.join(PIMCORE_FIXTURES, 'classes.sql'), 'utf8'));
    },
    async stop() {
      await root.end().catch(() => undefined);
      if (!exited) {
        const gone = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await Promise.race([gone, new Promise((r) => setTimeout(r, 10_000))]);
        if (!exited) child.kill('SIGKILL');
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Root over the server's socket, retried while it is not there yet (ENOENT) or not listening. */
async function connectRoot(socketPath: string, exited: () => boolean) {
  for (let i = 0; ; i++) {
    try {
      return await mysql.createConnection({ socketPath, user: 'root', multipleStatements: true });
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (exited() || i > 300 || (code !== 'ECONNREFUSED' && code !== 'ENOENT')) throw err;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}
