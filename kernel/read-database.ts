import type { Config } from './config.ts';
import { createKnex, type Db } from './database.ts';
import type { Logger } from './logger.ts';

/** `application_name` of the replica's connections (pg_stat_activity on the standby shows them). */
export const READ_APPLICATION_NAME = 'cms-read';
/** How long one `caughtUp()` waits for the standby to replay the primary's position before it gives up. */
const CATCH_UP_WAIT_MS = 2_000;
const CATCH_UP_POLL_MS = 5;

/**
 * The public reads' database: a PostgreSQL streaming replica (DATABASE_READ_URL), or the primary
 * itself when none is configured. Only public reads use it; writes, staff reads, staff previews,
 * caches that must not go stale and LISTEN stay on the primary (`db`).
 *
 * A replica replays the primary's WAL a little later than the primary commits, and NOTIFY is not
 * replicated: a process that hears of a change on the primary and refills a cache from the replica
 * at once may store the old rows. `caughtUp()` is what a cache waits for before its final refill.
 */
export class ReadReplica {
  /** The knex the public reads use: the replica's pool, or the primary's when there is no replica. */
  readonly db: Db;
  /** True when `db` is a replica of its own (DATABASE_READ_URL set). */
  readonly enabled: boolean;
  private round: Promise<boolean> | undefined;

  constructor(
    private readonly primary: Db,
    config: Pick<Config, 'DATABASE_READ_URL' | 'DATABASE_READ_POOL_MAX'>,
    logger?: Logger,
  ) {
    this.enabled = Boolean(config.DATABASE_READ_URL);
    this.db = config.DATABASE_READ_URL
      ? createKnex(config.DATABASE_READ_URL, config.DATABASE_READ_POOL_MAX, logger, {
          applicationName: READ_APPLICATION_NAME,
        })
      : primary;
  }

  /**
   * Resolves true once the replica has replayed everything the primary had written when this was
   * called (at once without a replica, or when DATABASE_READ_URL names a server that is not a
   * standby); false when it did not within 2 s, or could not be asked. Callers arriving before a
   * round has asked the primary share that round.
   */
  caughtUp(): Promise<boolean> {
    if (!this.enabled) return Promise.resolve(true);
    this.round ??= Promise.resolve().then(() => {
      this.round = undefined;
      return this.waitForReplay().catch(() => false);
    });
    return this.round;
  }

  private async waitForReplay(): Promise<boolean> {
    // The insert position: at or past the commit record of every transaction whose notice was sent.
    const { rows } = await this.primary.raw<{ rows: Array<{ lsn: string }> }>(
      'SELECT pg_current_wal_insert_lsn()::text AS lsn',
    );
    const target = rows[0].lsn;
    const deadline = Date.now() + CATCH_UP_WAIT_MS;
    for (;;) {
      const replay = await this.db.raw<{ rows: Array<{ done: boolean }> }>(
        'SELECT coalesce(pg_last_wal_replay_lsn() >= ?::pg_lsn, true) AS done',
        [target],
      );
      if (replay.rows[0].done) return true;
      if (Date.now() >= deadline) return false;
      await new Promise((resolve) => setTimeout(resolve, CATCH_UP_POLL_MS));
    }
  }

  async close(): Promise<void> {
    if (this.enabled) await this.db.destroy();
  }
}
