import type { RecordChange, Tx } from '../../kernel/index.ts';

/**
 * The search plugin's registry `searchSources`: each plugin that owns searchable records contributes
 * one source per record type. The search plugin subscribes to the record-change hooks and, inside the
 * write's transaction, asks the source for the record's document (or null to drop it from the index).
 */
export interface SearchDocument {
  /** Record type of the source, e.g. `page`, `object`, `class`, `asset`. */
  sourceType: string;
  sourceId: string;
  websiteId?: string | null;
  locale?: string | null;
  title: string;
  /** Plain text (no markup); the search plugin caps its length. */
  body: string;
  /** Link or path a result points to, when there is one. */
  url?: string | null;
  /** Published and indexable: shown on `/public/search`; everything is shown to signed-in editors. */
  public: boolean;
  /** Anything the result list shows besides title and snippet (class name, mime type...). */
  meta?: Record<string, unknown>;
  updatedAt: Date;
  /**
   * A group the record belongs to (e.g. an object's class id), so that a change to many records at
   * once can replace or prune the group's documents (see `SearchSource.scopeOf`).
   */
  groupId?: string | null;
}

/**
 * Which documents an announced change replaces. The default (no `scopeOf`) is the documents of
 * `change.recordId`; a change that touched many records at once (a bulk write, emptying a class)
 * names them, or their group.
 */
export interface SearchChangeScope {
  /** Source ids whose documents are deleted (besides those of the documents `documentsFor` returns, always replaced). */
  sourceIds: string[];
  /** The group the change touched (documents carry it as `groupId`). */
  groupId?: string;
  /** `all`: every document of the group is deleted first; `prune`: those whose record is gone (asks `existingIds`). */
  groupAction?: 'all' | 'prune';
}

export interface SearchSource {
  /** The record type (as announced through the record-change hooks) this source answers for. */
  recordType: string;
  /**
   * Documents for one announced change: `[]` removes the record's documents (deleted, unpublished
   * and not wanted in the editor index...). Several documents are allowed (one per locale).
   */
  documentsFor(change: RecordChange, trx: Tx): Promise<SearchDocument[]>;
  /** Every current document, in batches, for `POST /cms-one/search/reindex`. */
  allDocuments(trx: Tx): AsyncIterable<SearchDocument[]>;
  /** Optional: the documents a change replaces (default: those of `change.recordId`). Runs before `documentsFor`. */
  scopeOf?(change: RecordChange, trx: Tx): Promise<SearchChangeScope> | SearchChangeScope;
  /** Needed by scopes with `groupAction: 'prune'`: which of these source ids still have a record. */
  existingIds?(sourceIds: string[], trx: Tx): Promise<string[]>;
}

declare module '../../kernel/index.ts' {
  interface PluginContributions {
    searchSources: SearchSource;
  }
}
