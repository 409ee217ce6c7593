import {
  type Actor,
  type AuditContext,
  type AuditWriter,
  type ChangeActor,
  type Db,
  HttpError,
  type PermissionRegistry,
  type ServiceMap,
  badRequest,
  forbidden,
  isHttpError,
} from '../../../kernel/index.ts';
import type { DocumentImportTarget, ImportedNode } from '../ports.ts';
import type { ImportStore, JobCounts } from '../store/import-store.ts';
import { type PimcoreDocument, type PimcoreEditable, PimcoreReader } from '../store/pimcore-reader.ts';
import { editablesTree, type TreeLookups } from './document-tree.ts';
import { type ObjectImporter, SourceUnavailable } from './object-import.ts';
import { type PhpData, phpUnserialize } from './php-unserialize.ts';
import type { SourceService } from './sources.ts';

const PAGES_EDIT = 'pages:edit';
const SNIPPETS_EDIT = 'snippets:edit';
const OBJECTS_PUBLISH = 'objects:publish';
/** An editable's column is read up to this many characters; a longer one is left out with a warning. */
const EDITABLE_MAX_CHARS = 1_000_000;
const EDITABLE_BATCH = 200;

export interface ImportDocumentsInput {
  websiteId: string;
  locale?: string;
  staging?: boolean;
}

export interface ImportedDocument {
  pimcoreId: number;
  kind: 'page' | 'staged' | 'snippet';
  id: string;
  path: string;
}

/** The staged rows of a source carry `source` = this prefix + `<website id>:<locale>:document:<pimcore id>`. */
export const stagedPrefix = (sourceId: string) => `pimcore:${sourceId}:`;

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err)).slice(0, 1000);

/**
 * Pimcore documents as pages, staged pages and snippets, inline in one transaction (an unknown
 * website or locale, a source that cannot be read: nothing is written). Paths come from the document
 * tree (parent ids, keys): a document whose parents form a cycle, or whose parent is missing, fails
 * with the reason and nothing of it is written. Each document is written in its own savepoint, so
 * one the content rules refuse is listed in `failed` and the others are written. Snippets come first
 * (pages name them), then pages and links in Pimcore id order. A second run updates what the first
 * wrote (matched on the Pimcore id); a staged page still staged is updated in place.
 */
export class DocumentImporter {
  constructor(
    private readonly deps: {
      db: Db;
      audit: AuditWriter;
      permissions: PermissionRegistry;
      sources: SourceService;
      store: ImportStore;
      importer: ObjectImporter;
      targets: readonly DocumentImportTarget[];
      assetLibrary: ServiceMap['assetLibrary'] | undefined;
      maxDocuments: number;
    },
  ) {}

  private target(): DocumentImportTarget {
    const t = this.deps.targets[0];
    if (!t) throw badRequest('Importing documents needs the content plugin', undefined, 'CONTENT_PLUGIN_MISSING');
    return t;
  }

  private user(ctx: AuditContext): Actor & { type: 'user' } {
    const { actor } = ctx;
    if (actor.type !== 'user') throw forbidden('Imports are started by a signed-in user', 'FORBIDDEN');
    return actor as Actor & { type: 'user' };
  }

  async import(ctx: AuditContext, sourceId: string, input: ImportDocumentsInput) {
    const actor = this.user(ctx);
    for (const p of [PAGES_EDIT, SNIPPETS_EDIT])
      if (!this.deps.permissions.allows(actor, p)) throw forbidden(`Importing documents needs ${p} too`, 'FORBIDDEN');
    const target = this.target();
    const source = await this.deps.sources.get(sourceId);
    const site = await target.website(input.websiteId);
    if (!site) throw badRequest('No website has this id', 'websiteId', 'WEBSITE_NOT_FOUND');
    const locale = input.locale ?? site.locales[0];
    if (!site.locales.includes(locale))
      throw badRequest(`Locale ${locale} is not one of the website's locales`, 'locale', 'LOCALE_NOT_IN_WEBSITE');
    const mayPublish = this.deps.permissions.allows(actor, OBJECTS_PUBLISH);

    const conn = await this.deps.importer.connect(sourceId).catch(unavailable);
    let docs: PimcoreDocument[];
    const editables = new Map<number, PimcoreEditable[]>();
    let assetRows: Awaited<ReturnType<PimcoreReader['assets']>>;
    try {
      const reader = new PimcoreReader(conn);
      docs = await reader.documents(this.deps.maxDocuments + 1).catch(unavailable);
      if (docs.length > this.deps.maxDocuments)
        throw badRequest(
          `The source has more than ${this.deps.maxDocuments} documents, more than one import takes`,
          undefined,
          'IMPORT_TOO_LARGE',
        );
      const withContent = docs.filter((d) => d.type === 'page' || d.type === 'snippet').map((d) => d.id);
      for (let i = 0; i < withContent.length; i += EDITABLE_BATCH) {
        const part = await reader
          .editables(withContent.slice(i, i + EDITABLE_BATCH), EDITABLE_MAX_CHARS)
          .catch(unavailable);
        for (const [id, list] of part) editables.set(id, list);
      }
      const assetIds = new Set<number>();
      for (const list of editables.values()) for (const e of list) for (const id of assetIdsOf(e)) assetIds.add(id);
      for (const d of docs)
        if (d.linktype === 'internal' && d.internalType === 'asset' && d.internal) assetIds.add(d.internal);
      const known = await this.deps.store.mapped(this.deps.db, sourceId, 'asset', [...assetIds]);
      assetRows = await reader.assets([...assetIds].filter((id) => !known.has(id))).catch(unavailable);
    } finally {
      await conn.end().catch(() => undefined);
    }

    const { paths, broken } = documentPaths(docs);
    const rootPath = site.rootPath === '/' ? '' : site.rootPath;
    const counts: JobCounts = { created: 0, updated: 0, skipped: 0, failed: 0 };
    const failed: Array<{ sourceId: string; reason: string }> = [];
    const warnings: string[] = [];
    const documents: ImportedDocument[] = [];
    const staging = input.staging === true;
    const changeActor: ChangeActor = { type: 'import', id: actor.id };

    return this.deps.db.transaction(async (trx) => {
      const assetIds = [...new Set(assetRows.map((a) => a.id))];
      const assets = await this.deps.importer.importAssets(
        trx,
        { source_id: sourceId },
        source.assetsPath,
        assetRows,
        await this.deps.store.mapped(trx, sourceId, 'asset', assetIds),
        changeActor,
        warnings,
      );
      const allAssetIds = new Set<number>();
      for (const list of editables.values()) for (const e of list) for (const id of assetIdsOf(e)) allAssetIds.add(id);
      const mappedAssets = new Map([
        ...(await this.deps.store.mapped(trx, sourceId, 'asset', [...allAssetIds])),
        ...assets,
      ]);
      const urls = new Map<number, string>();
      if (this.deps.assetLibrary && mappedAssets.size > 0) {
        const refs = await this.deps.assetLibrary.resolve([...new Set(mappedAssets.values())], trx);
        for (const [pimcoreId, id] of mappedAssets) {
          const ref = refs.get(id);
          if (ref) urls.set(pimcoreId, ref.url);
        }
      }
      const ids = docs.map((d) => d.id);
      // Per website (and locale for pages): one source may be imported into several websites.
      const pageKind = `page:${site.id}:${locale}` as const;
      const snippetKind = `snippet:${site.id}` as const;
      const pageMap = await this.deps.store.mapped(trx, sourceId, pageKind, ids);
      const snippetMap = await this.deps.store.mapped(trx, sourceId, snippetKind, ids);
      const lookups: TreeLookups = {
        documentPath: (id) => {
          const p = paths.get(id);
          return p === undefined ? undefined : `${rootPath}${p === '/' ? (rootPath ? '' : '/') : p}`;
        },
        assetUrl: (id) => urls.get(id),
        snippetId: (id) => snippetMap.get(id),
      };
      const remember: Parameters<ImportStore['remember']>[2][number][] = [];
      const ordered = [...docs.filter((d) => d.type === 'snippet'), ...docs.filter((d) => d.type !== 'snippet')];
      for (const doc of ordered) {
        const why = broken.get(doc.id);
        if (why) {
          counts.failed++;
          failed.push({ sourceId: String(doc.id), reason: why });
          continue;
        }
        if (doc.type === 'folder') {
          counts.skipped++;
          continue;
        }
        if (doc.type !== 'page' && doc.type !== 'snippet' && doc.type !== 'link') {
          counts.skipped++;
          warnings.push(`document ${doc.id}: type ${doc.type} is not imported`);
          continue;
        }
        const path = paths.get(doc.id)!;
        const notes: string[] = [];
        let content: ImportedNode;
        if (doc.type === 'link') {
          const href = linkDocumentHref(doc, lookups);
          if (!href) notes.push(`link target ${doc.internalType ?? ''} ${doc.internal ?? ''} is not known here`);
          content = { type: 'div', children: [{ type: 'a', props: { href: href ?? '' }, text: doc.key || path }] };
        } else content = editablesTree(editables.get(doc.id) ?? [], lookups, notes);
        const cleaned = target.cleanTree(content);
        for (const d of cleaned.dropped) notes.push(`left out by the content rules: ${d}`);
        for (const n of notes) warnings.push(`document ${doc.id}: ${n}`);
        const title = (doc.title ?? '').trim() || doc.key || 'Home';
        const seo = {
          ...(doc.title ? { title: doc.title } : {}),
          ...(doc.description ? { description: doc.description } : {}),
        };
        try {
          const written = await trx.transaction(async (sp) => {
            if (doc.type === 'snippet') {
              const r = await target.saveSnippet(
                actor,
                {
                  snippetId: snippetMap.get(doc.id),
                  websiteId: site.id,
                  name: doc.key || `snippet-${doc.id}`,
                  content: cleaned.tree,
                },
                sp,
              );
              return { ...r, kind: 'snippet' as const };
            }
            if (staging) {
              const r = await target.stagePage(
                {
                  websiteId: site.id,
                  locale,
                  path,
                  title,
                  seo,
                  content: cleaned.tree,
                  source: `${stagedPrefix(sourceId)}${site.id}:${locale}:document:${doc.id}`,
                  publish: mayPublish && doc.published,
                },
                sp,
              );
              return { ...r, kind: 'staged' as const };
            }
            const pageId = pageMap.get(doc.id);
            const r = await target.savePage(
              actor,
              {
                pageId,
                websiteId: site.id,
                locale,
                path,
                title,
                seo,
                content: cleaned.tree,
                published: mayPublish ? doc.published : pageId ? undefined : false,
              },
              sp,
            );
            return { ...r, kind: 'page' as const };
          });
          if (written.created) counts.created++;
          else counts.updated++;
          documents.push({ pimcoreId: doc.id, kind: written.kind, id: written.id, path });
          if (written.kind === 'snippet') {
            snippetMap.set(doc.id, written.id);
            remember.push({ kind: snippetKind, pimcoreId: doc.id, targetId: written.id });
          } else if (written.kind === 'page')
            remember.push({ kind: pageKind, pimcoreId: doc.id, targetId: written.id });
        } catch (err) {
          if (!isHttpError(err)) throw err;
          counts.failed++;
          failed.push({ sourceId: String(doc.id), reason: `${err.field ? `${err.field}: ` : ''}${err.message}` });
        }
      }
      await this.deps.store.remember(trx, sourceId, remember);
      await this.deps.audit.record(
        ctx,
        {
          action: 'migration_source.import_documents',
          targetType: 'migration_source',
          targetId: sourceId,
          targetLabel: source.name,
          after: { websiteId: site.id, locale, staging, counts },
        },
        trx,
      );
      return {
        counts,
        documents,
        failed: failed.slice(0, 1000),
        warnings: warnings.slice(0, 1000),
      };
    });
  }

  /** Staged pages of this source (these ids, or all), promoted all or nothing. */
  async promote(ctx: AuditContext, sourceId: string, input: { ids?: string[]; all?: boolean }) {
    const actor = this.user(ctx);
    if (!this.deps.permissions.allows(actor, PAGES_EDIT))
      throw forbidden(`Promoting documents needs ${PAGES_EDIT} too`, 'FORBIDDEN');
    const target = this.target();
    const source = await this.deps.sources.get(sourceId);
    if ((input.ids === undefined) === (input.all !== true))
      throw badRequest('Send either ids or all: true', input.ids ? 'all' : 'ids');
    return this.deps.db.transaction(async (trx) => {
      const promoted = await target.promoteStaged(
        actor,
        { sourcePrefix: stagedPrefix(sourceId), ...(input.ids ? { ids: input.ids } : {}) },
        trx,
      );
      await this.deps.audit.record(
        ctx,
        {
          action: 'migration_source.promote_documents',
          targetType: 'migration_source',
          targetId: sourceId,
          targetLabel: source.name,
          after: { promoted: promoted.length, pageIds: promoted.slice(0, 100).map((p) => p.pageId) },
        },
        trx,
      );
      return { promoted };
    });
  }
}

const unavailable = (err: unknown): never => {
  if (err instanceof HttpError) throw err;
  if (err instanceof SourceUnavailable) throw new HttpError(502, 'SOURCE_UNAVAILABLE', messageOf(err));
  const e = err as { code?: string; fatal?: boolean };
  if (e.fatal || ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'PROTOCOL_CONNECTION_LOST'].includes(e.code ?? ''))
    throw new HttpError(502, 'SOURCE_UNAVAILABLE', `source database: ${messageOf(err)}`);
  throw err;
};

/**
 * Each document's path here from the tree (parent ids and keys; the root is `/`), and the documents
 * whose path cannot be had: a parent missing, or parents that form a cycle (every document on and
 * below the cycle).
 */
export function documentPaths(docs: readonly PimcoreDocument[]): {
  paths: Map<number, string>;
  broken: Map<number, string>;
} {
  const byId = new Map(docs.map((d) => [d.id, d]));
  const paths = new Map<number, string>();
  const broken = new Map<number, string>();
  for (const start of docs) {
    if (paths.has(start.id) || broken.has(start.id)) continue;
    const chain: PimcoreDocument[] = [];
    const seen = new Set<number>();
    let base: string | null = null;
    let reason: string | null = null;
    let cur: number = start.id;
    for (;;) {
      const known = paths.get(cur);
      if (known !== undefined) {
        base = known;
        break;
      }
      const bad = broken.get(cur);
      if (bad) {
        reason = bad;
        break;
      }
      const d = byId.get(cur);
      if (!d) {
        reason = `parent document ${cur} is missing`;
        break;
      }
      if (seen.has(cur)) {
        const loop = chain.slice(chain.findIndex((c) => c.id === cur)).map((c) => c.id);
        reason = `the document tree has a cycle (${[...loop, cur].join(' → ')})`;
        break;
      }
      seen.add(cur);
      chain.push(d);
      if (d.parentId === null || d.parentId === 0) break;
      cur = d.parentId;
    }
    if (reason) {
      for (const d of chain) broken.set(d.id, reason);
      continue;
    }
    for (let i = chain.length - 1; i >= 0; i--) {
      const d = chain[i];
      const p: string = base === null ? (d.key ? `/${d.key}` : '/') : base === '/' ? `/${d.key}` : `${base}/${d.key}`;
      paths.set(d.id, p);
      base = p;
    }
  }
  return { paths, broken };
}

function linkDocumentHref(doc: PimcoreDocument, lookups: TreeLookups): string | undefined {
  if (doc.linktype === 'internal' && doc.internal) {
    if (doc.internalType === 'document') return lookups.documentPath(doc.internal);
    if (doc.internalType === 'asset') return lookups.assetUrl(doc.internal);
    return undefined;
  }
  return doc.direct ?? undefined;
}

/** Pimcore asset ids an editable names (images, links and relations to assets). */
function assetIdsOf(e: PimcoreEditable): number[] {
  if (!e.data || e.tooLarge || !['image', 'link', 'relation', 'relations'].includes(e.type)) return [];
  let v: PhpData;
  try {
    v = phpUnserialize(e.data);
  } catch {
    return [];
  }
  const rec = (x: PhpData): Record<string, PhpData> => (x && typeof x === 'object' && !Array.isArray(x) ? x : {});
  const id = (x: PhpData | undefined) => {
    const n = Number(x);
    return Number.isInteger(n) && n > 0 ? [n] : [];
  };
  if (e.type === 'image') return id(rec(v).id);
  if (e.type === 'link') {
    const l = rec(v);
    return l.internalType === 'asset' ? id(l.internalId) : [];
  }
  const items = e.type === 'relations' ? (Array.isArray(v) ? v : []) : [v];
  return items.flatMap((x) => (rec(x).type === 'asset' ? id(rec(x).id) : []));
}
