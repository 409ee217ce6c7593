import { randomUUID } from 'node:crypto';
import {
  type Actor,
  type AuditContext,
  type AuditWriter,
  conflict,
  type Db,
  HttpError,
  inTransaction,
  isHttpError,
  type Logger,
} from '../../../kernel/index.ts';
import type {
  BundleAsset,
  BundleImportContext,
  BundleManifest,
  BundlePlan,
  WebsiteBundleFiles,
  WebsiteBundlePart,
} from '../ports.ts';
import { type AssetPlan, planAssets } from './asset-plan.ts';
import { ASSET_FILE, type AssetMap, checkManifest, MANIFEST_NAME, parseManifest } from './manifest.ts';
import { remapStrings } from './strings.ts';
import { BundleZip, type ZipLimits } from './zip-reader.ts';

/** The largest `bundle.json` read (the spec's JSON body limit). */
export const MAX_MANIFEST_BYTES = 25 * 1024 * 1024;

export interface ImportDeps {
  db: Db;
  audit: AuditWriter;
  log: Logger;
  parts: () => readonly WebsiteBundlePart[];
  files: () => WebsiteBundleFiles | undefined;
  limits: ZipLimits;
}

export interface ImportRequest {
  /** A zip on local disk, or a parsed plain `.json` manifest. */
  source: { zipFile: string } | { manifest: unknown };
  dryRun: boolean;
  assetMap: AssetMap;
  rootPath?: string;
  actor: Actor;
  audit: AuditContext;
  mayPublish: boolean;
  /** Throws once the import's time budget is spent (import-slots.ts). */
  checkBudget: () => void;
}

const changeActorOf = (actor: Actor) =>
  actor.type === 'user' ? { type: 'user' as const, id: actor.id } : { type: 'system' as const, id: null };

/** Thrown inside a dry run's transaction once every part has applied, so the database rolls it all back. */
class DryRunDone extends Error {}

/** Entries must be the manifest or the asset files it names; every file it names must be there. */
function checkEntries(zip: BundleZip, manifest: BundleManifest): void {
  const named = new Set<string>();
  for (const a of (manifest.assets as BundleAsset[] | undefined) ?? []) {
    if (!a.file) continue;
    if (!zip.entries.has(a.file))
      throw new HttpError(
        400,
        'BUNDLE_FILE_MISSING',
        `The manifest names ${a.file} (asset ${a.path}), which the bundle lacks`,
        'assets',
      );
    if (named.has(a.file)) throw new HttpError(400, 'INVALID_MANIFEST', `Two assets name the file ${a.file}`, 'assets');
    named.add(a.file);
  }
  for (const name of zip.entries.keys())
    if (name !== MANIFEST_NAME && !(ASSET_FILE.test(name) && named.has(name)))
      throw new HttpError(
        400,
        'BUNDLE_UNKNOWN_ENTRY',
        `The bundle holds ${name}, which the manifest does not name`,
        'bundle',
      );
}

/** The manifest of a zip, checked against the entries before any of them is read. */
async function readBundle(zip: BundleZip): Promise<BundleManifest> {
  // Without a manifest the first problem is that one; a name that no manifest could name is refused
  // before the manifest is read.
  if (!zip.entries.has(MANIFEST_NAME))
    throw new HttpError(400, 'BUNDLE_NO_MANIFEST', `The bundle has no ${MANIFEST_NAME}`, 'bundle');
  for (const name of zip.entries.keys())
    if (name !== MANIFEST_NAME && !ASSET_FILE.test(name))
      throw new HttpError(
        400,
        'BUNDLE_UNKNOWN_ENTRY',
        `The bundle holds ${name}, which the manifest does not name`,
        'bundle',
      );
  const manifest = parseManifest(await zip.text(MANIFEST_NAME, MAX_MANIFEST_BYTES));
  checkEntries(zip, manifest);
  return manifest;
}

/**
 * Website import: reads the bundle (zip or plain manifest), plans every part, then applies every part
 * in one transaction. A dry run goes the same way up to the end and rolls the transaction back, so it
 * runs exactly the checks of the apply (each part's, each service's, the database's): a dry run that
 * passes is an apply that passes. Only the files are not stored by a dry run (their new ids are
 * stand-ins). The apply stores files first, each on its own (they stay when the apply later fails,
 * as the spec says); the records, their events and the `website.import` audit row commit together
 * or not at all.
 */
export async function importBundle(deps: ImportDeps, req: ImportRequest) {
  const zip = 'zipFile' in req.source ? await BundleZip.open(req.source.zipFile, deps.limits) : undefined;
  try {
    const manifest = zip ? await readBundle(zip) : checkManifest((req.source as { manifest: unknown }).manifest);
    req.checkBudget();
    const site = manifest.website as {
      id?: string;
      name: string;
      rootPath: string;
      kind?: string;
      settings?: Record<string, unknown>;
    };
    const rootPath = req.rootPath ?? site.rootPath;
    const parts = [...deps.parts()].sort((a, b) => a.order - b.order);
    const files = deps.files();
    const warnings: string[] = [];
    // The parts plan first: a documentation site's part says where its folder goes, and the asset
    // plan stores the folder's files there.
    const plans: BundlePlan[] = [];
    for (const part of parts) {
      req.checkBudget();
      plans.push(await part.plan(manifest, { actor: req.actor, rootPath, mayPublish: req.mayPublish }));
    }
    const docs = plans.find((p) => p.docs)?.docs ?? docsInPlace(site, warnings);
    const folders = new Map<string, string>();
    if (docs && docs.sourceFolder !== docs.targetFolder) folders.set(docs.sourceFolder, docs.targetFolder);
    const assetPlan = await planAssets(
      manifest,
      files,
      req.assetMap,
      zip !== undefined && manifest.version >= 2,
      warnings,
      (path) => relocate(path, folders),
    );
    const counts: Record<string, number> = {};
    for (const p of plans) Object.assign(counts, p.counts);
    counts.assets = ((manifest.assets as unknown[] | undefined) ?? []).length;
    warnings.push(...plans.flatMap((p) => p.warnings));
    const report = {
      version: manifest.version,
      website: { name: site.name, rootPath },
      counts,
      classActions: plans.flatMap((p) => p.actions.filter((a) => a.kind === 'class' || a.kind === 'component')),
      actions: plans.flatMap((p) => p.actions.filter((a) => a.kind !== 'class' && a.kind !== 'component')),
      assetPlan: assetPlan.items,
      warnings,
      ...(docs ? { docs } : {}),
    };

    const blocking = [...plans.flatMap((p) => p.blocking), ...assetPlan.items.filter((a) => a.action === 'conflict')];
    // A conflict is the dry run's finding (the report names each); the apply refuses with the first.
    if (blocking.length && req.dryRun) return { state: 'dry run' as const, ...report };
    if (blocking.length) {
      const first = blocking[0];
      const what = 'kind' in first ? `${first.kind} ${first.name}` : `asset ${first.path}`;
      throw conflict(
        `Nothing imported: ${blocking.length} conflict(s), the first at ${what}: ${first.reason}. Run ?dryRun=1 for the report`,
        'IMPORT_CONFLICT',
      );
    }
    const stored = await storeFiles(manifest, assetPlan, zip, files, req);
    const ctx = importContext(req, rootPath, stored.ids, folders);
    await applyParts(deps, req, parts, manifest, ctx, {
      site,
      rootPath,
      uploaded: stored.uploaded,
      notStored: stored.notStored.length,
    });
    if (req.dryRun) return { state: 'dry run' as const, ...report };
    return {
      state: 'applied' as const,
      websiteId: site.id ? stored.ids.get(site.id) : undefined,
      rootPath,
      created: ctx.created,
      assets: { uploaded: stored.uploaded, reused: stored.reused, notStored: stored.notStored },
      warnings,
      ...(docs ? { docsFolder: docs.targetFolder } : {}),
    };
  } finally {
    zip?.close();
  }
}

/**
 * Stores the files to upload (apply), or stands in for them (dry run: a new id, the planned path),
 * and maps every old asset id, path and URL to the file here.
 */
async function storeFiles(
  manifest: BundleManifest,
  assetPlan: AssetPlan,
  zip: BundleZip | undefined,
  files: WebsiteBundleFiles | undefined,
  req: ImportRequest,
) {
  const ids = new Map<string, string>();
  const notStored: Array<{ path: string; reason: string }> = [];
  let uploaded = 0;
  let reused = 0;
  const byId = new Map(((manifest.assets as BundleAsset[] | undefined) ?? []).map((a) => [a.id, a]));
  for (const item of assetPlan.items) {
    req.checkBudget();
    const a = byId.get(item.id) as BundleAsset;
    let target: { id: string; path: string } | undefined;
    if (item.action === 'reuse') {
      target = assetPlan.reuse.get(a.id);
      reused++;
    } else if (item.stored === false) {
      notStored.push({ path: a.path, reason: `larger than ${files?.maxFileBytes} bytes` });
    } else if (zip && files && a.file && req.dryRun) {
      target = { id: randomUUID(), path: item.targetPath };
      uploaded++;
    } else if (zip && files && a.file) {
      try {
        target = await files.store({
          body: await zip.open(a.file),
          path: item.targetPath,
          visibility: a.visibility === 'private' ? 'private' : 'public',
          actor: changeActorOf(req.actor),
        });
        uploaded++;
      } catch (err) {
        // A file the library refuses (too large, a refused type) is reported and the import goes on.
        if (!isHttpError(err) || err.statusCode >= 500 || err.code?.startsWith('BUNDLE_')) throw err;
        notStored.push({ path: a.path, reason: err.message });
      }
    }
    if (!target) continue;
    ids.set(a.id, target.id);
    ids.set(a.path, target.path);
    if (a.url) ids.set(a.url, `/dam-asset/${target.path}`);
  }
  return { ids, uploaded, reused, notStored };
}

/**
 * A documentation website's folder when no part planned it (the docs plugin is not loaded here): its
 * files, if the bundle carries them, are stored where they were, and the settings are kept.
 */
function docsInPlace(
  site: { kind?: string; settings?: Record<string, unknown> },
  warnings: string[],
): { sourceFolder: string; targetFolder: string } | undefined {
  if (site.kind !== 'documentation') return undefined;
  const folder = (site.settings?.docs as { sourceFolder?: unknown } | undefined)?.sourceFolder;
  if (typeof folder !== 'string') return undefined;
  const clean = folder.replace(/^\/+|\/+$/g, '');
  warnings.push(`The documentation plugin is not loaded here: the folder ${clean || '/'} is kept where it is`);
  return { sourceFolder: clean, targetFolder: clean };
}

/** A library path moved to its relocated folder (the longest folder that holds it), else itself. */
function relocate(path: string, folders: ReadonlyMap<string, string>): string {
  let best: [string, string] | undefined;
  for (const [from, to] of folders)
    if ((from === '' || path.startsWith(`${from}/`)) && (!best || from.length > best[0].length)) best = [from, to];
  if (!best) return path;
  const rest = best[0] === '' ? path : path.slice(best[0].length + 1);
  return best[1] ? `${best[1]}/${rest}` : rest;
}

function importContext(
  req: ImportRequest,
  rootPath: string,
  ids: Map<string, string>,
  folders: ReadonlyMap<string, string>,
): BundleImportContext {
  let current: BundleImportContext['current'] = null;
  return {
    actor: req.actor,
    changeActor: changeActorOf(req.actor),
    audit: req.audit,
    trx: undefined as never,
    ids,
    mayPublish: req.mayPublish,
    rootPath,
    created: {},
    // Each part names the record it writes next: that is where the time budget is checked.
    get current() {
      return current;
    },
    set current(next) {
      if (next) req.checkBudget();
      current = next;
    },
    remap: (value) => remapStrings(value, ids),
    folders,
  };
}

/** Every part's apply and the audit row in one transaction; a dry run rolls it back at the end. */
async function applyParts(
  deps: ImportDeps,
  req: ImportRequest,
  parts: readonly WebsiteBundlePart[],
  manifest: BundleManifest,
  ctx: BundleImportContext,
  summary: { site: { id?: string; name: string }; rootPath: string; uploaded: number; notStored: number },
): Promise<void> {
  let currentPart = '';
  try {
    await inTransaction(deps.db, undefined, async (trx) => {
      ctx.trx = trx;
      for (const part of parts) {
        currentPart = part.id;
        req.checkBudget();
        await part.apply(manifest, ctx);
      }
      ctx.current = null;
      req.checkBudget();
      const websiteId = summary.site.id ? ctx.ids.get(summary.site.id) : undefined;
      await deps.audit.record(
        req.audit,
        {
          action: 'website.import',
          targetType: 'website',
          targetId: websiteId ?? null,
          targetLabel: summary.site.name,
          after: {
            rootPath: summary.rootPath,
            manifestVersion: manifest.version,
            created: ctx.created,
            filesUploaded: summary.uploaded,
            filesNotStored: summary.notStored,
          },
        },
        trx,
      );
      if (req.dryRun) throw new DryRunDone();
    });
  } catch (err) {
    if (err instanceof DryRunDone) return;
    if (isHttpError(err) && err.code === 'IMPORT_TIME_BUDGET') throw err;
    const at = ctx.current ? `${ctx.current.kind} "${ctx.current.name}"` : `the ${currentPart} part`;
    const refused = refusedByDatabase(err);
    const inner = isHttpError(err) ? err.message : (refused?.message ?? 'an internal error');
    if (!isHttpError(err) && !refused) deps.log.error({ err, at }, 'website import rolled back');
    throw new HttpError(
      isHttpError(err) && err.statusCode < 500 ? err.statusCode : (refused?.status ?? 500),
      'IMPORT_ROLLED_BACK',
      req.dryRun
        ? `Dry run: the apply would roll back at ${at}: ${inner}. Nothing was written`
        : `Import rolled back at ${at}: ${inner}. Nothing was kept but the files already stored`,
      // The field the part named (pages.3.title), else the kind of record.
      (isHttpError(err) && err.field) || ctx.current?.kind,
    );
  }
}

/**
 * A record of the bundle the database refused: a value of the wrong type or out of range (class 22)
 * or a broken rule (class 23: a missing value, a repeated unique value, a reference to nothing).
 * The bundle is the caller's input, so these answer 4xx naming the record, never 500.
 */
function refusedByDatabase(err: unknown): { status: number; message: string } | undefined {
  const e = err as { code?: unknown; column?: unknown; message?: unknown };
  if (typeof e?.code !== 'string' || !/^2[23][0-9A-Z]{3}$/.test(e.code)) return undefined;
  const column = typeof e.column === 'string' ? e.column : undefined;
  switch (e.code) {
    case '23505':
      return { status: 409, message: 'it repeats a value that must be unique (in the bundle or on this installation)' };
    case '23502':
      return { status: 400, message: `${column ?? 'a required value'} is missing` };
    case '23503':
      return { status: 400, message: 'it refers to a record that is neither in the bundle nor on this installation' };
    case '22021':
    case '22P05':
      return { status: 400, message: 'it holds characters that cannot be stored (NUL or a lone surrogate)' };
  }
  if (e.code.startsWith('22')) {
    const detail = typeof e.message === 'string' ? e.message.split(' - ').pop()!.slice(0, 200) : '';
    return { status: 400, message: `a value is not valid for its field${detail ? ` (${detail})` : ''}` };
  }
  return { status: 400, message: 'a value breaks a rule of its field' };
}
