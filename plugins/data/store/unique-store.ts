import type { Db, Tx } from '../../../kernel/index.ts';

type Q = Db | Tx;

/** One claimed value of a unique field: scope is the locale (localized field) or '' (shared field). */
export interface UniqueEntry {
  field: string;
  scope: string;
  value: string;
}

export interface GroupEntry extends UniqueEntry {
  translation_group_id: string;
}

const keyOf = (e: UniqueEntry) => `${e.field}\u0000${e.scope}\u0000${e.value}`;

/**
 * Makes a translation group's entries in the given scopes equal `desired`: deletes what is no longer
 * claimed and inserts the new claims with ON CONFLICT DO NOTHING. A claim the insert did not return
 * belongs to another group, so the first such field is returned (the caller answers 409); the
 * transaction is then rolled back by the caller, so nothing half-written stays.
 */
export async function claimGroupValues(
  q: Q,
  classId: string,
  groupId: string,
  scopes: readonly string[],
  desired: readonly UniqueEntry[],
): Promise<string | null> {
  const current: UniqueEntry[] = await q('data_unique_values')
    .where({ class_id: classId, translation_group_id: groupId })
    .whereIn('scope', scopes as string[])
    .select('field', 'scope', 'value');
  const want = new Set(desired.map(keyOf));
  const have = new Set(current.map(keyOf));
  const stale = current.filter((e) => !want.has(keyOf(e)));
  if (stale.length > 0) {
    await q('data_unique_values')
      .where({ class_id: classId, translation_group_id: groupId })
      .whereIn(
        ['field', 'scope', 'value'],
        stale.map((e) => [e.field, e.scope, e.value]),
      )
      .delete();
  }
  const fresh = desired.filter((e) => !have.has(keyOf(e)));
  if (fresh.length === 0) return null;
  const won = await insertClaims(
    q,
    classId,
    fresh.map((e) => ({ ...e, translation_group_id: groupId })),
  );
  const lost = fresh.find((e) => !won.has(keyOf(e)));
  return lost ? lost.field : null;
}

/** Inserts many claims in one statement; returns the keys this call won. */
export async function insertClaims(q: Q, classId: string, entries: readonly GroupEntry[]): Promise<Set<string>> {
  if (entries.length === 0) return new Set();
  const rows: UniqueEntry[] = await q('data_unique_values')
    .insert(entries.map((e) => ({ class_id: classId, ...e })))
    .onConflict(['class_id', 'field', 'scope', 'value'])
    .ignore()
    .returning(['field', 'scope', 'value']);
  return new Set(rows.map(keyOf));
}

export const uniqueKeyOf = keyOf;

/** Removes claims (bulk: the claims of rows rejected for another reason). */
export async function releaseClaims(q: Q, classId: string, entries: readonly GroupEntry[]): Promise<void> {
  if (entries.length === 0) return;
  await q('data_unique_values')
    .where({ class_id: classId })
    .whereIn(
      ['field', 'scope', 'value', 'translation_group_id'],
      entries.map((e) => [e.field, e.scope, e.value, e.translation_group_id]),
    )
    .delete();
}
