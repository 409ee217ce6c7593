import type { PluginContributions } from '../../../kernel/index.ts';
import type { OutboxStore } from '../store/outbox-store.ts';

/** Mail log rows an export carries at most (the counts of a search are always complete). */
const EXPORT_LIMIT = 10_000;

/**
 * The mail log as a data-subject source: entries by recipient (to, cc), optionally a word in subject or
 * body. The item type is the collector's (registry `dataSubjectSources`); nothing of it is imported here.
 */
export function mailDataSubjectSource(store: OutboxStore): PluginContributions['dataSubjectSources'] {
  return {
    kind: 'mails',
    plugin: 'mail',
    async find(identifier, options, trx) {
      const address = identifier.trim();
      const limit = Math.min(Math.max(options.limit ?? 100, 1), 1000);
      const { rows, total } = await store.findForPerson(address, options.lookInsideText ?? false, limit, trx);
      const lower = address.toLowerCase();
      return {
        kind: 'mails',
        count: total,
        items: rows.map((r) => ({
          id: r.id,
          at: r.created_at.toISOString(),
          label: r.subject,
          matched: r.recipients.includes(lower) ? ['recipients'] : ['text'],
        })),
      };
    },
    async *records(identifier, options) {
      yield* await store.recordsForPerson(identifier.trim(), options.lookInsideText ?? false, EXPORT_LIMIT);
    },
    // A mail still queued or retrying is reported, never deleted under the worker: it is erased by a
    // re-run once it was sent or failed.
    async erase(identifier, options, { dryRun }) {
      const { erased, pending } = await store.eraseForPerson(
        identifier.trim(),
        options.lookInsideText ?? false,
        dryRun,
      );
      const kept = pending.map((m) => ({
        id: m.id,
        label: m.subject,
        reason: `the mail is ${m.status} for delivery: a re-run erases it once it was sent or failed`,
      }));
      return { kind: 'mails', erased, kept };
    },
  };
}
