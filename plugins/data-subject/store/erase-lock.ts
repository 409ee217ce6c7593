import { conflict, type Db, InFlightLimit, tooManyRequests } from '../../../kernel/index.ts';

interface PgConnection {
  query(sql: string, values?: unknown[]): Promise<{ rows: Array<{ ok?: boolean }> }>;
}

/** The first key of the advisory locks of real erases ("ds" in ASCII); the second is the subject's. */
const ERASE_LOCK_SPACE = 0x6473;
/**
 * Real erases running at once in this process. Each holds a pooled connection for its lock while its
 * work takes others; a bound well below the pool keeps many erases at once from holding every
 * connection and waiting for one more.
 */
const ERASES_AT_ONCE = 2;
/** Seconds a refused erase is told to wait (an erase of a few hundred records takes seconds). */
const BUSY_RETRY_AFTER_SECONDS = 10;

/**
 * One real erase per data subject at a time, across every core-api process: a session advisory lock
 * keyed by the subject's fingerprint (so `Anna@…` and `anna@…` are one subject), taken without
 * waiting. A second erase of the same person while one runs answers 409 `ERASE_IN_PROGRESS` instead of
 * racing it (two runs deleting the same files and rows would each report them, and announce the same
 * deletes twice). The lock lives on a connection of its own for the erase's length and ends with it,
 * also when the process dies (PostgreSQL drops a session's locks with the session). At most
 * `ERASES_AT_ONCE` real erases run in one process; another answers 429 `ERASES_BUSY` with Retry-After.
 */
export class EraseLock {
  private readonly running = new InFlightLimit();

  constructor(private readonly db: Db) {}

  async run<T>(subjectKey: string, work: () => Promise<T>): Promise<T> {
    const release = this.running.acquire('erase', ERASES_AT_ONCE);
    if (!release)
      throw tooManyRequests(
        `${ERASES_AT_ONCE} erases are running; try again shortly`,
        BUSY_RETRY_AFTER_SECONDS,
        'ERASES_BUSY',
      );
    try {
      return await this.locked(subjectKey, work);
    } finally {
      release();
    }
  }

  private async locked<T>(subjectKey: string, work: () => Promise<T>): Promise<T> {
    const client = this.db.client as {
      acquireConnection(): Promise<PgConnection>;
      releaseConnection(c: PgConnection): Promise<void>;
    };
    const conn = await client.acquireConnection();
    try {
      const args = [ERASE_LOCK_SPACE, subjectKey];
      const { rows } = await conn.query('SELECT pg_try_advisory_lock($1, hashtext($2)) AS ok', args);
      if (!rows[0]?.ok)
        throw conflict(
          'An erase of this data subject is already running; run it again when that one has finished',
          'ERASE_IN_PROGRESS',
        );
      try {
        return await work();
      } finally {
        await conn.query('SELECT pg_advisory_unlock($1, hashtext($2))', args);
      }
    } finally {
      await client.releaseConnection(conn);
    }
  }
}
