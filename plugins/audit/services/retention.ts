import { SYSTEM, type PluginDeps } from '../../../kernel/index.ts';
import { AuditLogStore } from '../store/audit-log-store.ts';

const DAY_MS = 24 * 3600_000;

export interface PurgeResult {
  /** Rows deleted by this run. */
  deleted: number;
  /** The cutoff (rows with `at` before it were deleted), or null when retention is off (0 days). */
  olderThan: string | null;
}

/**
 * Applies `AUDIT_RETENTION_DAYS`: deletes rows older than that many days in one transaction (the only
 * DELETE the table accepts, after `SET LOCAL cms.audit_purge = 'on'`) and records `audit.purge` in the
 * same transaction when something was deleted. 0 days keeps everything.
 */
export async function purgeExpiredAuditRows(
  deps: PluginDeps<'db' | 'audit' | 'clock' | 'config'>,
): Promise<PurgeResult> {
  const days = deps.config.AUDIT_RETENTION_DAYS;
  if (days === 0) return { deleted: 0, olderThan: null };
  const cutoff = new Date(deps.clock.now().getTime() - days * DAY_MS);
  const olderThan = cutoff.toISOString();
  const store = new AuditLogStore({ db: deps.db });
  return deps.db.transaction(async (trx) => {
    if (!(await store.tryLockPurge(trx))) return { deleted: 0, olderThan };
    const deleted = await store.deleteOlderThan(trx, cutoff);
    if (deleted > 0) {
      await deps.audit.record(
        { actor: SYSTEM },
        { action: 'audit.purge', targetType: 'audit_log', after: { deleted, olderThan } },
        trx,
      );
      deps.log.info({ deleted, olderThan }, 'audit log purged');
    }
    return { deleted, olderThan };
  });
}
