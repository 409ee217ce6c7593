import type { Actor, Tx } from '../../kernel/index.ts';

/**
 * What the data-subject plugin collects (no plugin imports this one; the augmentation below makes the
 * registry types visible to contributors): the registry `dataSubjectSources`, one item per kind of
 * record a plugin holds about a person (objects, files, mails, accounts), and `assetReferences`, one
 * item per plugin whose records can hold a reference to a library file.
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
   * Erase (and its dry run): answer `ids`, every found record's id, so the collector can ask the
   * registry `assetReferences` whether a file is used by anything besides them.
   */
  everyId?: boolean;
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
  /** Files: every reference the file is known by (id, uuid, path), for the "used elsewhere" question. */
  refs?: string[];
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
  /** With `everyId`: the id of every found record (not only the listed ones). */
  ids?: string[];
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
  /** Records found but never erased by rule (a staff account's uploads), each with why: a re-run leaves them too. */
  reported?: Array<{ id: string; label: string; reason: string }>;
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

/** A record that holds a reference to a library file (a page, a theme, an object). */
export interface AssetReferenceHolding {
  /** The reference it holds, as it was asked for. */
  ref: string;
  /** What holds it, for the answer: `page /shop/home (en)`, `theme Dark`, `object 3f2…`. */
  holder: string;
}

/**
 * An item of the registry `assetReferences`: a plugin whose records can hold references to library
 * files (ids, uuids, paths, inside text such as `/dam-asset/<path>` too). Before an erase removes a
 * file that is the person's own, every item is asked whether anything else still uses it; a file one
 * item names stays. Matching may err on the side of "used" (a path inside a longer one), never the
 * other way.
 */
export interface AssetReferenceFinder {
  /** The contributing plugin's id. */
  plugin: string;
  /**
   * Which of `refs` a record of this plugin holds, leaving out `except` (records erased with the
   * file, by the kind of the data-subject source that found them: `objects` → ids). One holding per
   * ref is enough.
   */
  holdings(refs: readonly string[], except: ReadonlyMap<string, readonly string[]>): Promise<AssetReferenceHolding[]>;
}

declare module '../../kernel/index.ts' {
  interface PluginContributions {
    dataSubjectSources: DataSubjectSource;
    assetReferences: AssetReferenceFinder;
  }
}
