import { createHash } from 'node:crypto';
import type { Actor } from './actor.ts';
import type { Db, Tx } from './database.ts';
import type { Logger } from './logger.ts';
import type { Metrics } from './metrics.ts';

/** Who did it and from where: taken from the request by `requestContext()`. */
export interface AuditContext {
  actor: Actor;
  ip?: string | null;
  requestId?: string | null;
}

/** One audit entry as a plugin describes it; `at` is server time. */
export interface AuditEntry {
  action: string;
  targetType?: string | null;
  targetId?: string | null;
  targetLabel?: string | null;
  before?: Record<string, unknown> | null;
  after?: Record<string, unknown> | null;
}

/** How `diffForAudit` treats fields: which to keep, which are secrets, which are long texts. */
export interface AuditFieldRules {
  allow: readonly string[];
  secrets?: readonly string[];
  longTexts?: readonly string[];
}

const fingerprint = (value: unknown) =>
  'sha:' +
  createHash('sha256')
    .update(typeof value === 'string' ? value : JSON.stringify(value))
    .digest('hex')
    .slice(0, 12);

function present(field: string, value: unknown, rules: AuditFieldRules): unknown {
  if (rules.secrets?.includes(field)) return 'changed';
  if (rules.longTexts?.includes(field) && value != null) return fingerprint(value);
  return value ?? null;
}

/**
 * Reduces a before/after pair to the changed allow-listed fields. A create passes `before = null`
 * (only `after`), a delete `after = null` (only `before`). Secrets show as `changed`, long texts as a
 * `sha:` fingerprint. Returns null when nothing allow-listed changed.
 */
export function diffForAudit(
  before: Record<string, unknown> | null,
  after: Record<string, unknown> | null,
  rules: AuditFieldRules,
): { before: Record<string, unknown> | null; after: Record<string, unknown> | null } | null {
  const b: Record<string, unknown> = {};
  const a: Record<string, unknown> = {};
  for (const field of rules.allow) {
    const inBefore = before !== null && field in before;
    const inAfter = after !== null && field in after;
    if (before && after) {
      if (!inAfter) continue;
      if (JSON.stringify(before[field] ?? null) === JSON.stringify(after[field] ?? null)) continue;
      b[field] = present(field, before[field], rules);
      a[field] = present(field, after[field], rules);
    } else if (after && inAfter) {
      a[field] = present(field, after[field], rules);
    } else if (before && inBefore) {
      b[field] = present(field, before[field], rules);
    }
  }
  const changed = Object.keys(a).length + Object.keys(b).length > 0;
  if (!changed && before && after) return null;
  return { before: before ? b : null, after: after ? a : null };
}

/**
 * Appends audit rows. Call after the change succeeded; pass the write's transaction to make the row
 * commit with it. The insert runs in a savepoint, so a failing audit write never fails the request:
 * it is logged, counted (`audit_rows_lost_total`) and shown as `audit: degraded` by /health.
 */
export class AuditWriter {
  private lost = 0;

  constructor(private readonly deps: { db: Db; logger: Logger; metrics: Metrics }) {}

  get lostRows(): number {
    return this.lost;
  }

  async record(ctx: AuditContext, entry: AuditEntry, trx?: Tx): Promise<void> {
    try {
      // Building the row is inside the try too: an entry that cannot be serialised is a lost row, not a failed request.
      const row = toRow(ctx, entry);
      if (trx) await trx.transaction((savepoint) => savepoint('audit_log').insert(row));
      else await this.deps.db('audit_log').insert(row);
    } catch (err) {
      this.lost += 1;
      this.deps.metrics.auditRowsLost.inc();
      this.deps.logger.error({ err, action: entry.action }, 'audit row lost');
    }
  }
}

function toRow(ctx: AuditContext, entry: AuditEntry) {
  const actor = ctx.actor;
  return {
    actor_type: actor.type === 'user' ? 'user' : 'system',
    actor_id: actor.type === 'user' ? actor.id : actor.type === 'system' ? actor.id : null,
    actor_label: actor.type === 'user' ? actor.email : actor.type === 'system' ? actor.label : null,
    ip: ctx.ip ?? null,
    action: entry.action,
    target_type: entry.targetType ?? null,
    target_id: entry.targetId ?? null,
    target_label: entry.targetLabel ?? null,
    before: entry.before ? JSON.stringify(entry.before) : null,
    after: entry.after ? JSON.stringify(entry.after) : null,
    request_id: ctx.requestId ?? null,
  };
}
