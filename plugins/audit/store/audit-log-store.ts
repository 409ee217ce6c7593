import type { Knex } from 'knex';
import type { Db, Tx } from '../../../kernel/index.ts';

/** What GET /audit-log can narrow by; every field is optional and they combine with AND. */
export interface AuditLogFilter {
  /** `exact` compares the whole action, `prefix` matches actions starting with it (e.g. `user.`). */
  action?: { exact: string } | { prefix: string };
  /** The actor id, or the actor's e-mail label compared case-insensitively. */
  actor?: string;
  targetType?: string;
  targetId?: string;
  /** Inclusive lower bound. */
  from?: Date;
  /** Exclusive upper bound (the route turns an inclusive `to` into the next instant). */
  before?: Date;
}

/** One row as stored; `at` is server time. */
export interface AuditLogRow {
  id: number;
  at: Date;
  actor_type: string;
  actor_id: string | null;
  actor_label: string | null;
  ip: string | null;
  action: string;
  target_type: string | null;
  target_id: string | null;
  target_label: string | null;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  request_id: string | null;
}

/** The stored columns, in order: what every read selects and what the CSV export writes. */
export const AUDIT_LOG_COLUMNS = [
  'id',
  'at',
  'actor_type',
  'actor_id',
  'actor_label',
  'ip',
  'action',
  'target_type',
  'target_id',
  'target_label',
  'before',
  'after',
  'request_id',
] as const satisfies ReadonlyArray<keyof AuditLogRow>;

// Any transaction-scoped advisory lock key will do as long as it is this job's alone: with several
// core-api instances only one purges at a time and only one `audit.purge` row is written.
const PURGE_LOCK_KEY = 'cms.audit_log.purge';

const escapeLike = (value: string) => value.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * The audit plugin's only SQL. Reads are shaped so that each filter is served by one of the indexes
 * of the kernel's `audit_log` migration (see the plugin README); the only write is the retention
 * delete, done by the database function `audit_purge()` (see migrations/0003_audit_purge_function.ts).
 */
export class AuditLogStore {
  constructor(private readonly deps: { db: Db }) {}

  /**
   * Newest first (`at` desc, `id` desc), one page. With an actor, each side of the id-or-label OR
   * takes its first `offset + limit` rows from its own (column, at) index and the two short lists are
   * merged: an OR left to the planner walked the whole time index for a rare actor.
   */
  async list(filter: AuditLogFilter, page: { limit: number; offset: number }): Promise<AuditLogRow[]> {
    const db = this.deps.db;
    const newestFirst = [
      { column: 'at', order: 'desc' as const },
      { column: 'id', order: 'desc' as const },
    ];
    const branch = (actorMatch: ActorMatch) => {
      const query = db('audit_log').select(AUDIT_LOG_COLUMNS);
      applyFilter(query, filter, actorMatch);
      return query.orderBy(newestFirst);
    };
    if (filter.actor === undefined) return branch('either').limit(page.limit).offset(page.offset);
    const head = page.offset + page.limit;
    return db
      .select(AUDIT_LOG_COLUMNS)
      .from(db.raw('((?) UNION ALL (?)) AS matches', [branch('id').limit(head), branch('label-only').limit(head)]))
      .orderBy(newestFirst)
      .limit(page.limit)
      .offset(page.offset);
  }

  /**
   * Exact number of rows matching the filter. With an actor the OR of the page query becomes a sum
   * of two disjoint counts, each answerable by an index-only scan (actor_id, and the covering
   * lower(actor_label) index of this plugin's migration); a bitmap OR would visit every row.
   */
  async count(filter: AuditLogFilter): Promise<number> {
    const db = this.deps.db;
    const counted = (actorMatch: ActorMatch) => {
      const query = db('audit_log').count('*');
      applyFilter(query, filter, actorMatch);
      return query;
    };
    const query =
      filter.actor === undefined
        ? counted('either')
        : db.select(db.raw('(?) + (?) AS count', [counted('id'), counted('label-only')]));
    const [row] = (await query) as Array<{ count: number | string }>;
    return Number(row.count);
  }

  /**
   * Takes the purge lock for the rest of `trx`. False when another process holds it (its purge
   * covers the same rows).
   */
  async tryLockPurge(trx: Tx): Promise<boolean> {
    const { rows } = await trx.raw<{ rows: Array<{ locked: boolean }> }>(
      'SELECT pg_try_advisory_xact_lock(hashtext(?)) AS locked',
      [PURGE_LOCK_KEY],
    );
    return rows[0]?.locked === true;
  }

  /**
   * Deletes rows older than `cutoff` inside `trx` through the kernel's `audit_purge()`: the application's
   * database role has no DELETE on the table, and the function never deletes rows younger than the
   * retention the owner role stored, whatever cutoff it is given.
   */
  async deleteOlderThan(trx: Tx, cutoff: Date): Promise<number> {
    const { rows } = await trx.raw<{ rows: Array<{ deleted: number }> }>('SELECT audit_purge(?) AS deleted', [cutoff]);
    return Number(rows[0].deleted);
  }
}

/**
 * How the actor filter matches: `either` (id or e-mail label), or one side of that OR made disjoint
 * from the other so two counts can be added.
 */
type ActorMatch = 'either' | 'id' | 'label-only';

function applyFilter(query: Knex.QueryBuilder, filter: AuditLogFilter, actorMatch: ActorMatch = 'either'): void {
  const { action, actor } = filter;
  if (action && 'exact' in action) query.where('action', action.exact);
  // A LIKE with a constant prefix is turned by the planner into a range on audit_log_action
  // (text_pattern_ops); `_` in action names must be escaped or it would match any character.
  if (action && 'prefix' in action) query.whereRaw('action LIKE ?', [`${escapeLike(action.prefix)}%`]);
  if (actor !== undefined) {
    if (actorMatch === 'id') query.where('actor_id', actor);
    else if (actorMatch === 'label-only')
      query.whereRaw('lower(actor_label) = lower(?) AND actor_id IS DISTINCT FROM ?', [actor, actor]);
    else query.where((q) => q.where('actor_id', actor).orWhereRaw('lower(actor_label) = lower(?)', [actor]));
  }
  if (filter.targetType !== undefined) query.where('target_type', filter.targetType);
  if (filter.targetId !== undefined) query.where('target_id', filter.targetId);
  if (filter.from) query.where('at', '>=', filter.from);
  if (filter.before) query.where('at', '<', filter.before);
}
