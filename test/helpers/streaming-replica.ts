import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { chmod, chown, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './ports.ts';

const run = promisify(execFile);
/** Debian's server programs of the newest installed PostgreSQL (`/usr/lib/postgresql/<major>/bin`). */
function debianBin(): string {
  const majors = existsSync('/usr/lib/postgresql')
    ? readdirSync('/usr/lib/postgresql')
        .filter((v) => /^\d+$/.test(v))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  return `/usr/lib/postgresql/${majors[0] ?? '15'}/bin`;
}
const BIN = process.env.PG_BIN_DIR ?? debianBin();

/** A primary and its streaming standby (hot standby, made with `pg_basebackup -R`), in a folder of their own. */
export interface StreamingPair {
  primaryUrl: string;
  standbyUrl: string;
  /** Pauses or resumes the standby's WAL replay (`pg_wal_replay_pause()`): a replica that lags on demand. */
  replay(on: boolean): Promise<void>;
  /** Stops both clusters (immediate) and removes the folder; safe to call twice. */
  stop(): Promise<void>;
}

/** Why the pair cannot be made on this machine, or null when the PostgreSQL programs are there. */
export function streamingPairMissing(): string | null {
  for (const program of ['initdb', 'pg_ctl', 'pg_basebackup', 'postgres'])
    if (!existsSync(path.join(BIN, program))) return `${path.join(BIN, program)} is not installed (set PG_BIN_DIR)`;
  return null;
}

/**
 * A throwaway primary (initdb, trust on loopback, fsync off) and a standby cloned from it with
 * `pg_basebackup -R`, each on a free port. Run as root, both run as the `postgres` user (PostgreSQL
 * refuses root). Whatever was started is stopped and removed when a step fails.
 */
export async function startStreamingPair(): Promise<StreamingPair> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'cms-replica-'));
  const asRoot = os.userInfo().uid === 0;
  const ids = asRoot ? await postgresIds() : undefined;
  if (ids) {
    await chmod(dir, 0o755);
    await chown(dir, ids.uid, ids.gid);
  }
  const pg = (program: string, args: string[]) =>
    run(path.join(BIN, program), args, { ...ids, cwd: dir, timeout: 30_000, env: { ...process.env, LC_ALL: 'C' } });
  const [primaryPort, standbyPort] = [await freePort(), await freePort()];
  const options = (port: number) =>
    `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories= -c fsync=off -c max_connections=60`;
  const started: string[] = [];
  const stop = async () => {
    for (const data of started.splice(0).reverse())
      await pg('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']).catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  };
  try {
    const primary = path.join(dir, 'primary');
    const standby = path.join(dir, 'standby');
    await pg('initdb', ['-D', primary, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8', '--locale=C']);
    await pg('pg_ctl', ['-D', primary, '-o', options(primaryPort), '-l', `${primary}.log`, '-w', 'start']);
    started.push(primary);
    // -R writes standby.signal and primary_conninfo; -c fast: no wait for a checkpoint.
    await pg('pg_basebackup', [
      ...['-h', '127.0.0.1', '-p', String(primaryPort), '-U', 'postgres'],
      ...['-D', standby, '-R', '-X', 'stream', '-c', 'fast'],
    ]);
    await pg('pg_ctl', ['-D', standby, '-o', options(standbyPort), '-l', `${standby}.log`, '-w', 'start']);
    started.push(standby);
  } catch (err) {
    await stop();
    throw err;
  }
  const standbyUrl = `postgres://postgres@127.0.0.1:${standbyPort}/postgres`;
  return {
    primaryUrl: `postgres://postgres@127.0.0.1:${primaryPort}/postgres`,
    standbyUrl,
    async replay(on) {
      const { default: pgClient } = await import('pg');
      const client = new pgClient.Client({ connectionString: standbyUrl });
      await client.connect();
      try {
        await client.query(on ? 'SELECT pg_wal_replay_resume()' : 'SELECT pg_wal_replay_pause()');
      } finally {
        await client.end();
      }
    },
    stop,
  };
}

async function postgresIds(): Promise<{ uid: number; gid: number }> {
  const { stdout } = await run('id', ['postgres']);
  const uid = /uid=(\d+)/.exec(stdout)?.[1];
  const gid = /gid=(\d+)/.exec(stdout)?.[1];
  if (!uid || !gid) throw new Error('running as root, but there is no `postgres` user to run PostgreSQL as');
  return { uid: Number(uid), gid: Number(gid) };
}
