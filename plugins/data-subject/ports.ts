import type { Actor, Tx } from '../../kernel/index.ts';

/**
 * What the data-subject plugin collects (no plugin imports this one; the augmentation below makes the
 * registry type visible to contributors): the registry `dataSubjectSources`, one item per kind of
 * record a plugin holds about a person (objects, files, mails, accounts).
 */

/** The search options a source may honour (names as the request body has them). */
export interface DataSubjectOptions {
  /** Objects only of these classes (data source); absent: every class. */
  classes?: readonly string[];
  /** Mail log: also a whole word in subject or text, not only the recipients (mail source). */
  lookInsideText?: boolean;
  /** Items listed per kind (the counts are always complete). */
  limit?: number;
  /** Files (asset ids, uuids or paths) that records of `records` sources refer to (the files source). */
  linkedFiles?: readonly string[];
  /**
   * Erase (and its dry run): leave out of `linkedFiles` the files that records outside the person's
   * also refer to (a shared placeholder), naming them in `sharedFiles` instead. Search and export list
   * every attached file and skip this check (it costs a lookup per file).
   */
  excludeShared?: boolean;
}

/** One record a source found. */
export interface DataSubjectItem {
  id: string;
  /** ISO date of the record (created or updated). */
  at: string;
  /** Short human label: `Customer/anna` for objects, the library path for files, the subject for mails. */
  label: string;
  /** Which fields held the identifier (`email`, `contact.address`, `metadata.author`, `recipients`). */
  matched: string[];
  /** Files this record refers to (asset ids, uuids or paths), erased with it (files first). */
  files?: string[];
  /** Objects: the class, key and language of the record. */
  class?: string;
  key?: string | null;
  locale?: string;
}

/** One person's records that a data-subject source found (counts and a short list). */
export interface DataSubjectFindings {
  /** What the records are (`mails`), as the search answer names the list. */
  kind: string;
  count: number;
  /** At most `limit` items: id, date and which fields matched. */
  items: DataSubjectItem[];
  /** Files every found record refers to (not only the listed ones): the files source finds them too. */
  linkedFiles?: string[];
  /** With `excludeShared`: attached files that other records use too (kept, never erased). */
  sharedFiles?: string[];
}

/** What an erase of one source did (or, in a dry run, would do). */
export interface DataSubjectErasure {
  kind: string;
  /** Records erased (a dry run: that would be erased). */
  erased: number;
  /**
   * Records kept, each with why (`file <path> could not be deleted: ...`); a files-stage source names
   * in `refs` every reference of a kept file (id, uuid, path), so records pointing at it stay too.
   */
  kept: Array<{ id: string; label: string; reason: string; refs?: string[] }>;
}

/** What the collector hands each eraser: the dry-run flag and what earlier stages left behind. */
export interface DataSubjectEraseInput {
  dryRun: boolean;
  /** Who erases: record-change events (`object.deleted`) name this actor. */
  actor: Actor;
  /** Files that could not be deleted, with why (records stage: a record referring to one stays). */
  failedFiles: ReadonlyMap<string, string>;
}

/**
 * An item of the registry `dataSubjectSources`: records of one person, found by an identifier (an
 * e-mail address or any other whole value: case-insensitive). `find` is required; `records` feeds the
 * export (whole records); `erase` is absent for kinds that are reported only (staff accounts).
 * `stage: 'files'` erases before every `records` source, so a record whose file stays is kept.
 */
export interface DataSubjectSource {
  kind: string;
  /** The contributing plugin's id, as the answer names it. */
  plugin?: string;
  stage?: 'files' | 'records';
  find(identifier: string, options: DataSubjectOptions, trx?: Tx): Promise<DataSubjectFindings>;
  /** Whole records for the export (bounded by the source; each a plain JSON value). */
  records?(identifier: string, options: DataSubjectOptions): AsyncIterable<unknown>;
  erase?(identifier: string, options: DataSubjectOptions, input: DataSubjectEraseInput): Promise<DataSubjectErasure>;
}

declare module '../../kernel/index.ts' {
  interface PluginContributions {
    dataSubjectSources: DataSubjectSource;
  }
}
