import type { Tx } from '../../../kernel/index.ts';

/**
 * `updated_at` of a write to a page, snippet, template, kit or layout template: the time of the
 * write, and never less than a millisecond after the row's last one. The row's entity tag (`If-Match`) is `updatedAt` in
 * milliseconds, so two writes in one millisecond (or one transaction, where `now()` stands still)
 * would otherwise share a tag, and a save based on the first would pass over the second.
 */
export const nextUpdatedAt = (trx: Tx, table?: string) =>
  trx.raw(`greatest(clock_timestamp(), ${table ? `${table}.` : ''}updated_at + interval '1 millisecond')`);
