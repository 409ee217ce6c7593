import type { DataSubjectSource } from '../ports.ts';
import type { OutboxStore } from '../store/outbox-store.ts';

/** The mail log as a data-subject source: entries by recipient (to, cc), optionally a word in subject or body. */
export function mailDataSubjectSource(store: OutboxStore): DataSubjectSource {
  return {
    kind: 'mails',
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
  };
}
