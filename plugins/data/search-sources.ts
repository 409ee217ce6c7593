import type { ChangeActor, PluginContributions, RecordChange, RecordHooks, Tx } from '../../kernel/index.ts';
import type { ClassRow, ObjectRow } from './model.ts';
import { findClassById, listClasses } from './store/class-store.ts';
import { findObjectRow, objectRowsAfter, registeredIds, rowsOfBulkWrite } from './store/search-source-store.ts';

/**
 * This plugin's contributions to the search registry: `object` (published objects are public
 * documents, drafts are for editors) and `class` (class definitions, for editors only: a class is
 * schema, not published content). Both run inside the write's transaction.
 */
// The search plugin's types, reached through the registry it declares (no import of its files).
type SearchSource = PluginContributions['searchSources'];
type SearchDocument = Awaited<ReturnType<SearchSource['documentsFor']>>[number];
type SearchChangeScope = Awaited<ReturnType<NonNullable<SearchSource['scopeOf']>>>;

const TEXT_TYPES = new Set(['text', 'markdown', 'richtext']);
const BATCH = 500;

/** Announced by the class service on create, update and delete (record type `class`). */
export async function announceClassChange(
  hooks: RecordHooks,
  trx: Tx,
  change: { kind: 'created' | 'updated' | 'deleted'; classId: string; name: string; actor: ChangeActor },
) {
  await hooks.announce(trx, {
    recordType: 'class',
    recordId: change.classId,
    kind: change.kind,
    actor: change.actor,
    data: { class: { id: change.classId, name: change.name } },
  });
}

/** Richtext as plain words: tags become spaces, the common entities their characters. */
function plainText(value: string, type: string): string {
  if (type !== 'richtext') return value;
  return value
    .replace(/<[^>]*>/g, ' ')
    .replace(/&nbsp;/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');
}

export function objectDocument(row: ObjectRow, cls: ClassRow): SearchDocument {
  const attributes = row.attributes ?? {};
  const texts = cls.fields
    .filter((f) => TEXT_TYPES.has(f.type) && typeof attributes[f.name] === 'string' && attributes[f.name] !== '')
    .map((f) => ({ type: f.type, value: attributes[f.name] as string }));
  const titleIndex = texts.findIndex((t) => t.type === 'text');
  const title = titleIndex >= 0 ? texts[titleIndex].value : (row.key ?? cls.label ?? cls.name);
  return {
    sourceType: 'object',
    sourceId: row.id,
    locale: row.locale,
    groupId: row.class_id,
    title,
    body: texts
      .filter((_, i) => i !== titleIndex)
      .map((t) => plainText(t.value, t.type))
      .join('\n'),
    url: null,
    public: row.published,
    meta: { class: cls.name, key: row.key },
    updatedAt: new Date(row.updated_at),
  };
}

const classIdOf = (change: RecordChange) => (change.data?.class as { id?: string } | undefined)?.id;
const bulkOf = (change: RecordChange) =>
  (change.data?.bulk as { kind?: string; count?: number; firstIds?: string[] } | undefined) ?? {};

export const objectSearchSource: SearchSource = {
  recordType: 'object',

  /**
   * A single change replaces its object's documents. A bulk event names only its first ids: `empty`
   * drops the whole class, `retention` (deletions) prunes the class's documents whose object is gone,
   * and a bulk write re-reads the class's rows this transaction wrote (`updated_at` is the
   * transaction's `now()` for every row it inserts or updates).
   */
  scopeOf(change: RecordChange): SearchChangeScope {
    const classId = classIdOf(change);
    if (change.kind !== 'bulk' || !classId) return { sourceIds: [change.recordId] };
    const bulk = bulkOf(change);
    if (bulk.kind === 'empty') return { sourceIds: [], groupId: classId, groupAction: 'all' };
    if (bulk.kind === 'retention') return { sourceIds: bulk.firstIds ?? [], groupId: classId, groupAction: 'prune' };
    return { sourceIds: bulk.firstIds ?? [] };
  },

  async documentsFor(change, trx) {
    if (change.kind === 'deleted') return [];
    const classId = classIdOf(change);
    if (!classId) return [];
    const cls = await findClassById(trx, classId);
    if (!cls) return [];
    if (change.kind === 'bulk') {
      const bulk = bulkOf(change);
      if (bulk.kind === 'empty' || bulk.kind === 'retention') return [];
      const rows = await rowsOfBulkWrite(trx, classId, bulk.firstIds ?? [], bulk.count ?? 0);
      return rows.map((r) => objectDocument(r, cls));
    }
    const row = await findObjectRow(trx, classId, change.recordId);
    return row ? [objectDocument(row, cls)] : [];
  },

  async existingIds(ids, trx) {
    return registeredIds(trx, ids);
  },

  /** Class by class (one partition each), 500 rows at a time in id order. */
  async *allDocuments(trx) {
    for (const cls of await listClasses(trx)) {
      let after = '00000000-0000-0000-0000-000000000000';
      for (;;) {
        const rows = await objectRowsAfter(trx, cls.id, after, BATCH);
        if (rows.length === 0) break;
        yield rows.map((r) => objectDocument(r, cls));
        if (rows.length < BATCH) break;
        after = rows[rows.length - 1].id;
      }
    }
  },
};

export function classDocument(cls: ClassRow): SearchDocument {
  return {
    sourceType: 'class',
    sourceId: cls.id,
    title: cls.label || cls.name,
    body: [cls.name, ...(cls.fields ?? []).map((f) => (f.label ? `${f.name} ${f.label}` : f.name))].join('\n'),
    url: null,
    public: false,
    meta: { name: cls.name, fields: (cls.fields ?? []).length },
    updatedAt: new Date(cls.updated_at),
  };
}

export const classSearchSource: SearchSource = {
  recordType: 'class',
  async documentsFor(change, trx) {
    if (change.kind === 'deleted') return [];
    const cls = await findClassById(trx, change.recordId);
    return cls ? [classDocument(cls)] : [];
  },
  async *allDocuments(trx) {
    yield (await listClasses(trx)).map(classDocument);
  },
};
