import type { Actor, AuditContext, ChangeActor, Tx } from '../../kernel/index.ts';

/**
 * What the bundles plugin collects (registry `websiteBundleParts`): each plugin that holds part of a
 * website contributes one part that exports its sections of the manifest and plans and applies them on
 * import. The bundles plugin imports no plugin; it only reads this registry.
 */

/** The manifest as parsed JSON: section name → value (arrays of records, or the website object). */
export type BundleManifest = Record<string, unknown> & { version: number };

/** One asset of the manifest (`assets` section). */
export interface BundleAsset {
  id: string;
  /** Stable public reference of the asset where it was exported. */
  uuid?: string;
  path: string;
  /** Its delivery URL there (`/dam-asset/<path>`), remapped with the path. */
  url?: string;
  filename: string;
  mimeType: string;
  size: number;
  visibility: 'public' | 'private';
  /** `assets/0001-<name>` inside the zip; absent in version 1 and in a plain `.json` manifest. */
  file?: string;
}

/** What the export asks a part for. */
export interface BundleExportInput {
  websiteId: string;
  /** `referenced`: only objects whose id the content references (not those a binding would list). */
  dataObjects: 'all' | 'referenced';
  /** `?drafts=1`: each record with a working copy carries it as `workingCopy` (its fields, manifest names). */
  drafts?: boolean;
  /** Sections written by parts that ran before (content runs first). */
  sections: Readonly<Record<string, unknown>>;
  /** Every string value of those sections: ids, class names and asset paths are found among them. */
  strings: ReadonlySet<string>;
}

/** One line of the dry-run report about a record. */
export interface BundlePlanAction {
  kind: string;
  name: string;
  action: 'create' | 'reuse' | 'conflict';
  reason?: string;
  targetPath?: string;
}

export interface BundlePlan {
  counts: Record<string, number>;
  actions: BundlePlanAction[];
  warnings: string[];
  /** Conflicts that make the apply impossible (the apply answers 409 naming the first). */
  blocking: BundlePlanAction[];
  /**
   * A documentation site's folder and where the import puts it (the dry run's `docs`, the apply's
   * `docsFolder`): the bundle's files under `sourceFolder/` are stored under `targetFolder/`, and
   * the website's `settings.docs.sourceFolder` is rewritten (`BundleImportContext.folders`).
   */
  docs?: { sourceFolder: string; targetFolder: string };
}

export interface BundleImportContext {
  actor: Actor;
  changeActor: ChangeActor;
  audit: AuditContext;
  /** The import's one transaction (apply only). */
  trx: Tx;
  /** Old id (or old asset path) → new id (or new path), filled by each part as it creates records. */
  ids: Map<string, string>;
  /** Whether the caller holds `objects:publish`. */
  mayPublish: boolean;
  /** Where the imported website is rooted (the manifest's unless the caller gave `rootPath`). */
  rootPath: string;
  /** Records created so far, for the answer (`kind` → count). */
  created: Record<string, number>;
  /** The record being written, so a failure can be named (`kind`, `name`). */
  current: { kind: string; name: string } | null;
  /** A copy of a value (node tree, attributes) with every old id and asset path replaced by its new one. */
  remap(value: unknown): unknown;
  /** Library folders the import relocates (old folder → new folder; a documentation site's folder). */
  folders: ReadonlyMap<string, string>;
}

export interface BundlePlanContext {
  actor: Actor;
  rootPath: string;
  mayPublish: boolean;
}

/** A part of a website that one plugin holds (content, data, assets). */
export interface WebsiteBundlePart {
  /** The contributing plugin's id. */
  id: string;
  /** Export and apply order: lower first (data before content, so pages can follow remapped ids). */
  order: number;
  exportSections(input: BundleExportInput): Promise<Record<string, unknown>>;
  plan(manifest: BundleManifest, ctx: BundlePlanContext): Promise<BundlePlan>;
  apply(manifest: BundleManifest, ctx: BundleImportContext): Promise<void>;
}

/** Asset files: the part of the asset plugin (files live in the asset store, not in a transaction). */
export interface WebsiteBundleFiles {
  /** Library assets among these references (ids, uuids, paths, `/dam-asset/...` URLs). */
  describe(references: readonly string[]): Promise<Array<Omit<BundleAsset, 'file'>>>;
  /** The stored bytes of an asset. */
  open(id: string): Promise<import('node:stream').Readable>;
  /** The library assets at these paths (path → asset), looked up in batches, never one query per path. */
  byPaths(paths: readonly string[]): Promise<Map<string, { id: string; path: string; size: number }>>;
  /** Largest file the library stores. */
  maxFileBytes: number;
  /** Stores a file (its own transaction; stays when the import later fails). 413 `ASSET_TOO_LARGE` over the limit. */
  store(input: {
    body: import('node:stream').Readable;
    path: string;
    visibility: 'public' | 'private';
    actor: ChangeActor;
  }): Promise<{ id: string; path: string }>;
}

declare module '../../kernel/index.ts' {
  interface PluginContributions {
    websiteBundleParts: WebsiteBundlePart;
    websiteBundleFiles: WebsiteBundleFiles;
  }
}
