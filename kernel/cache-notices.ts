import type { Db, Tx } from './database.ts';
import type { DatabaseNotifications } from './database-notifications.ts';

const CHANNEL_PREFIX = 'cms_cache:';
// PostgreSQL truncates a channel name past 63 bytes; a notice's payload past 8000 bytes is refused.
const MAX_CACHE_NAME = 50;
const MAX_PAYLOAD = 1_000;

/**
 * How every process's in-memory caches learn of a change made by any process (LISTEN/NOTIFY): the
 * writer calls `changed(cache, key, trx)` inside its transaction, PostgreSQL sends the notice at commit
 * (never for a rolled-back write), and each process, the writer's included, runs the listeners it
 * registered with `on(cache, ...)`, usually within milliseconds. Notices are hints: a cache also keeps
 * its own short lifetime, so a lost LISTEN connection costs staleness, never a wrong answer forever.
 * Name a cache `<plugin id>.<what>` (`content.settings`); `key` says which entry changed, '' all.
 */
export class CacheNotices {
  constructor(private readonly deps: { db: Db; notifications: DatabaseNotifications }) {}

  /** Runs `drop(key)` whenever any process announces a change of `cache`. Returns the unsubscribe. */
  on(cache: string, drop: (key: string) => void): () => void {
    return this.deps.notifications.on(channelOf(cache), (payload) => drop(payload ?? ''));
  }

  /** Announces a change of `cache` (one entry `key`, or all): at commit of `trx`, at once without one. */
  async changed(cache: string, key = '', trx?: Tx | Db): Promise<void> {
    if (key.length > MAX_PAYLOAD) key = '';
    await (trx ?? this.deps.db).raw('SELECT pg_notify(?, ?)', [channelOf(cache), key]);
  }
}

function channelOf(cache: string): string {
  if (cache.length === 0 || cache.length > MAX_CACHE_NAME || !/^[a-z0-9.-]+$/.test(cache))
    throw new Error(`cache name "${cache}" must be 1-${MAX_CACHE_NAME} characters of a-z, 0-9, "." and "-"`);
  return CHANNEL_PREFIX + cache;
}
