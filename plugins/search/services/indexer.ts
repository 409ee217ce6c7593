import type { Db, Logger, RecordChange, RecordHooks, Tx } from '../../../kernel/index.ts';
import type { SearchDocument, SearchSource } from '../ports.ts';
import { deleteSourceIds, groupSourceIds, replaceDocuments, type DocumentRow } from '../store/document-store.ts';
import type { LocaleConfigs } from './locale-configs.ts';
import { withoutMarkers } from './snippets.ts';

export const TITLE_MAX_CHARS = 500;
const URL_MAX_CHARS = 2000;
const META_MAX_CHARS = 4000;
const PRUNE_PAGE = 1000;

export interface IndexerOptions {
  db: Db;
  recordHooks: RecordHooks;
  localeConfigs: LocaleConfigs;
  bodyMaxChars: number;
  log: Logger;
  /** Told about each configuration a document is written with. */
  onConfig(config: string): void;
}

/**
 * Keeps the index current: one record-change subscription per source, run inside the writer's
 * transaction, so a document commits (or rolls back) with its record, and a failure fails the write.
 */
export class Indexer {
  private readonly unsubscribe: Array<() => void> = [];

  constructor(private readonly opts: IndexerOptions) {}

  start(sources: readonly SearchSource[]): void {
    const seen = new Set<string>();
    for (const source of sources) {
      if (seen.has(source.recordType))
        throw new Error(`two search sources answer for record type "${source.recordType}"`);
      seen.add(source.recordType);
      this.unsubscribe.push(
        this.opts.recordHooks.subscribe(source.recordType, (change, trx) => this.apply(source, change, trx)),
      );
    }
  }

  stop(): void {
    for (const u of this.unsubscribe.splice(0)) u();
  }

  /** One DELETE and one multi-row INSERT (plus a prune pass when the source's scope asks for one). */
  async apply(source: SearchSource, change: RecordChange, trx: Tx): Promise<void> {
    const scope = source.scopeOf ? await source.scopeOf(change, trx) : { sourceIds: [change.recordId] };
    const rows = this.rowsOf(source, await source.documentsFor(change, trx));
    const ids = new Set([...scope.sourceIds, ...rows.map((r) => r.source_id)]);
    const wholeGroup = scope.groupAction === 'all' ? scope.groupId : undefined;
    await replaceDocuments(trx, source.recordType, [...ids], wholeGroup, rows);
    if (scope.groupAction === 'prune' && scope.groupId !== undefined) await this.prune(source, scope.groupId, trx);
  }

  /** Drops the group's documents whose record no longer exists (records deleted in bulk). */
  private async prune(source: SearchSource, groupId: string, trx: Tx): Promise<void> {
    if (!source.existingIds)
      throw new Error(`search source "${source.recordType}" asks for a prune but has no existingIds`);
    let after = '';
    for (;;) {
      const ids = await groupSourceIds(trx, source.recordType, groupId, after, PRUNE_PAGE);
      if (ids.length === 0) return;
      const existing = new Set(await source.existingIds(ids, trx));
      await deleteSourceIds(
        trx,
        source.recordType,
        ids.filter((id) => !existing.has(id)),
      );
      if (ids.length < PRUNE_PAGE) return;
      after = ids[ids.length - 1];
    }
  }

  /** Stored rows: lengths capped, markers and NUL removed, one row per natural key (the last wins). */
  rowsOf(source: SearchSource, documents: SearchDocument[]): DocumentRow[] {
    const byKey = new Map<string, DocumentRow>();
    for (const doc of documents) {
      const locale = cap(doc.locale ?? '', 35);
      const config = this.opts.localeConfigs.configFor(locale);
      this.opts.onConfig(config);
      const row: DocumentRow = {
        source_type: source.recordType,
        source_id: cap(String(doc.sourceId), 200),
        website_id: cap(doc.websiteId ?? '', 200),
        locale,
        group_id: doc.groupId ?? null,
        config,
        title: cap(withoutMarkers(doc.title ?? ''), TITLE_MAX_CHARS),
        body: cap(withoutMarkers(doc.body ?? ''), this.opts.bodyMaxChars),
        url: doc.url ? cap(withoutMarkers(doc.url), URL_MAX_CHARS) : null,
        public: doc.public === true,
        meta: metaJson(doc.meta),
        updated_at: doc.updatedAt,
      };
      byKey.set(`${row.source_id}\u0000${row.website_id}\u0000${row.locale}`, row);
    }
    return [...byKey.values()];
  }
}

function cap(text: string, max: number): string {
  if (text.length <= max) return text;
  // Do not cut a surrogate pair in two.
  const cut = text.slice(0, max);
  return /[\uD800-\uDBFF]$/.test(cut) ? cut.slice(0, -1) : cut;
}

/** Meta as JSON text; over the cap it is replaced by a marker rather than failing the write. */
function metaJson(meta: Record<string, unknown> | undefined): string {
  const json = JSON.stringify(meta ?? {}, (_key, value: unknown) =>
    typeof value === 'string' ? withoutMarkers(value) : value,
  );
  return json.length <= META_MAX_CHARS ? json : JSON.stringify({ truncated: true });
}
