import { type AuditWriter, type Clock, type Logger, SYSTEM, type ServiceMap } from '../../../kernel/index.ts';
import type { OutboxStore } from '../store/outbox-store.ts';

const DAY_MS = 24 * 3600_000;
const BATCH = 1000;
const MAX_BATCHES = 100;

/**
 * Deletes finished log entries older than `mailLogRetentionDays` (security settings; off while unset
 * or without the identity plugin), in batches, and records one `retention.purge` audit row per run
 * that deleted something. Queued and retrying mails are never purged.
 */
export async function purgeMailLog(deps: {
  clock: Clock;
  audit: AuditWriter;
  log: Logger;
  store: OutboxStore;
  securitySettings: ServiceMap['securitySettings'] | undefined;
}): Promise<number> {
  const days = (await deps.securitySettings?.get())?.mailLogRetentionDays;
  if (!days || days <= 0) return 0;
  const cutoff = new Date(deps.clock.now().getTime() - days * DAY_MS);
  let deleted = 0;
  for (let i = 0; i < MAX_BATCHES; i++) {
    const n = await deps.store.purgeBatch(cutoff, BATCH);
    deleted += n;
    if (n < BATCH) break;
  }
  if (deleted > 0) {
    await deps.audit.record(
      { actor: SYSTEM },
      {
        action: 'retention.purge',
        targetType: 'mail_log',
        targetId: null,
        targetLabel: 'mail log',
        after: { deleted, retentionDays: days, before: cutoff.toISOString() },
      },
    );
    deps.log.info({ deleted, days }, 'mail log retention purged entries');
  }
  return deleted;
}
