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
}

export interface AssetPlanItem {
  id: string;
  path: string;
  size: number | null;
  action: 'upload' | 'reuse' | 'conflict';
  targetPath: string;
  reason?: string;
  /** false: over the asset limit, reported as not stored (the import goes on without it). */
  stored?: false;
}

const changeActorOf = (actor: Actor) =>
  actor.type === 'user' ? { type: 'user' as const, id: actor.id } : { type: 'system' as const, id: null };

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

async function planAssets(
  manifest: BundleManifest,
  files: WebsiteBundleFiles | undefined,
  assetMap: AssetMap,
  hasFiles: boolean,
  warnings: string[],
): Promise<AssetPlanItem[]> {
  const assets = (manifest.assets as BundleAsset[] | undefined) ?? [];
  if (!assets.length) return [];
  if (!files) {
    warnings.push('The asset plugin is not loaded here: files are not imported and references keep their old values');
    return [];
  }
  const plan: AssetPlanItem[] = [];
  for (const a of assets) {
    const size = typeof a.size === 'number' ? a.size : null;
    const base = { id: a.id, path: a.path, size };
    const mapped = assetMap.get(a.id);
    if (mapped) {
      const there = await files.byPath(mapped.pimcorePath);
      plan.push(
        there && there.id === mapped.id
          ? { ...base, action: 'reuse', targetPath: there.path, reason: 'assetMap' }
          : {
              ...base,
              action: 'conflict',
              targetPath: mapped.pimcorePath,
              reason: `assetMap names ${mapped.id} at ${mapped.pimcorePath}, which is not in the library`,
            },
      );
      continue;
    }
    const there = await files.byPath(a.path);
    if (hasFiles && a.file) {
      if (!there) {
        const tooLarge = size !== null && size > files.maxFileBytes;
        plan.push(
          tooLarge
            ? { ...base, action: 'upload', targetPath: a.path, stored: false }
            : { ...base, action: 'upload', targetPath: a.path },
        );
        if (tooLarge) warnings.push(`${a.path} is larger than ${files.maxFileBytes} bytes and will not be stored`);
      } else if (there.size === size)
        plan.push({
          ...base,
          action: 'reuse',
          targetPath: there.path,
          reason: 'a library file of the same path and size',
        });
      else
        plan.push({
          ...base,
          action: 'conflict',
          targetPath: a.path,
          reason: 'another file is stored at this path; map it with assetMap',
        });
    } else if (there)
      plan.push({ ...base, action: 'reuse', targetPath: there.path, reason: 'same path in the library' });
    else
      plan.push({
        ...base,
        action: 'conflict',
        targetPath: a.path,
        reason: 'the bundle carries no file for it and the library has none at this path; map it with assetMap',
      });
  }
  return plan;
}

/**
 * Website import: reads the bundle (zip or plain manifest), plans every part and answers the report
 * (dry run), or stores the new files and applies every part in one transaction. Files are stored
 * first, each on its own (they stay when the apply later fails, as the spec says); the records,
 * their events and the `website.import` audit row commit together or not at all.
 */
export async function importBundle(deps: ImportDeps, req: ImportRequest) {
  const zip = 'zipFile' in req.source ? await BundleZip.open(req.source.zipFile, deps.limits) : undefined;
  try {
    const manifest = zip
      ? parseManifest(await zip.text(MANIFEST_NAME, MAX_MANIFEST_BYTES))
      : checkManifest((req.source as { manifest: unknown }).manifest);
    if (zip) checkEntries(zip, manifest);
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
    const assetPlan = await planAssets(
      manifest,
      files,
      req.assetMap,
      zip !== undefined && manifest.version >= 2,
      warnings,
    );
    const plans: BundlePlan[] = [];
    for (const part of parts)
      plans.push(await part.plan(manifest, { actor: req.actor, rootPath, mayPublish: req.mayPublish }));
    const counts: Record<string, number> = {};
    for (const p of plans) Object.assign(counts, p.counts);
    counts.assets = ((manifest.assets as unknown[] | undefined) ?? []).length;
    warnings.push(...plans.flatMap((p) => p.warnings));
    const sourceFolder = typeof site.settings?.sourceFolder === 'string' ? site.settings.sourceFolder : null;
    const docs = site.kind === 'documentation' ? { sourceFolder, targetFolder: sourceFolder } : undefined;
    const report = {
      version: manifest.version,
      website: { name: site.name, rootPath },
      counts,
      classActions: plans.flatMap((p) => p.actions.filter((a) => a.kind === 'class' || a.kind === 'component')),
      actions: plans.flatMap((p) => p.actions.filter((a) => a.kind !== 'class' && a.kind !== 'component')),
      assetPlan,
      warnings,
      ...(docs ? { docs } : {}),
    };
    if (req.dryRun) return { state: 'dry run' as const, ...report };

    const blocking = [...plans.flatMap((p) => p.blocking), ...assetPlan.filter((a) => a.action === 'conflict')];
    if (blocking.length) {
      const first = blocking[0];
      const what = 'kind' in first ? `${first.kind} ${first.name}` : `asset ${first.path}`;
      throw conflict(
        `Nothing imported: ${blocking.length} conflict(s), the first at ${what}: ${first.reason}. Run ?dryRun=1 for the report`,
        'IMPORT_CONFLICT',
      );
    }
    const ids = new Map<string, string>();
    const notStored: Array<{ path: string; reason: string }> = [];
    let uploaded = 0;
    let reused = 0;
    const byId = new Map(((manifest.assets as BundleAsset[] | undefined) ?? []).map((a) => [a.id, a]));
    for (const item of assetPlan) {
      const a = byId.get(item.id) as BundleAsset & { uuid?: string; url?: string };
      let target: { id: string; path: string } | undefined;
      if (item.action === 'reuse') {
        target = req.assetMap.get(a.id)
          ? { id: (req.assetMap.get(a.id) as { id: string }).id, path: item.targetPath }
          : await files?.byPath(item.targetPath);
        reused++;
      } else if (item.stored === false) {
        notStored.push({ path: a.path, reason: `larger than ${files?.maxFileBytes} bytes` });
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
    const ctx: BundleImportContext = {
      actor: req.actor,
      changeActor: changeActorOf(req.actor),
      audit: req.audit,
      trx: undefined as never,
      ids,
      mayPublish: req.mayPublish,
      rootPath,
      created: {},
      current: null,
      remap: (value) => remapStrings(value, ids),
    };
    let currentPart = '';
    try {
      await inTransaction(deps.db, undefined, async (trx) => {
        ctx.trx = trx;
        for (const part of parts) {
          currentPart = part.id;
          await part.apply(manifest, ctx);
        }
        ctx.current = null;
        const websiteId = site.id ? ids.get(site.id) : undefined;
        await deps.audit.record(
          req.audit,
          {
            action: 'website.import',
            targetType: 'website',
            targetId: websiteId ?? null,
            targetLabel: site.name,
            after: {
              rootPath,
              manifestVersion: manifest.version,
              created: ctx.created,
              filesUploaded: uploaded,
              filesNotStored: notStored.length,
            },
          },
          trx,
        );
      });
    } catch (err) {
      const at = ctx.current ? `${ctx.current.kind} "${ctx.current.name}"` : `the ${currentPart} part`;
      const refused = refusedByDatabase(err);
      const inner = isHttpError(err) ? err.message : (refused?.message ?? 'an internal error');
      if (!isHttpError(err) && !refused) deps.log.error({ err, at }, 'website import rolled back');
      throw new HttpError(
        isHttpError(err) && err.statusCode < 500 ? err.statusCode : (refused?.status ?? 500),
        'IMPORT_ROLLED_BACK',
        `Import rolled back at ${at}: ${inner}. Nothing was kept but the files already stored`,
        ctx.current?.kind,
      );
    }
    return {
      state: 'applied' as const,
      websiteId: site.id ? ids.get(site.id) : undefined,
      rootPath,
      created: ctx.created,
      assets: { uploaded, reused, notStored },
      warnings,
      ...(docs ? { docsFolder: docs.targetFolder } : {}),
    };
  } finally {
    zip?.close();
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
