import { randomUUID } from 'node:crypto';
import { badRequest, conflict, isHttpError, type PluginContributions } from '../../../kernel/index.ts';
import { announcePage } from '../events.ts';
import { redactSecrets } from '../routes/public.ts';
import { BUNDLE_COLUMNS, type BundleTable, ContentBundleStore } from '../store/bundle.ts';
import type { ContentServices } from './index.ts';
import { checkBundleShapes } from './bundle-shapes.ts';
import { validateNodeTree } from './node-tree.ts';

type Part = PluginContributions['websiteBundleParts'];
type Plan = Awaited<ReturnType<Part['plan']>>;
type Row = Record<string, unknown>;

/** Manifest section → table, in insert order (pages before the menu entries that point at them). */
const SECTIONS: ReadonlyArray<[string, BundleTable, string]> = [
  ['themes', 'content_themes', 'theme'],
  ['websiteTemplates', 'content_layouts', 'template'],
  ['snippets', 'content_snippets', 'snippet'],
  ['pages', 'content_pages', 'page'],
  ['websitePaths', 'content_website_paths', 'path'],
];

const camel = (s: string) => s.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());
const snake = (s: string) => s.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** Sections whose records may carry a working copy (`?drafts=1`), by the copy's owner type. */
const COPY_SECTIONS: ReadonlyArray<[string, 'layout' | 'snippet' | 'page']> = [
  ['websiteTemplates', 'layout'],
  ['snippets', 'snippet'],
  ['pages', 'page'],
];

/** The manifest with every record's `workingCopy` laid over it: what the copies must pass. */
function copiesAsRecords(m: Row): Row | null {
  let any = false;
  const out: Row = {};
  for (const [section] of COPY_SECTIONS) {
    const rows = list(m, section);
    if (!rows.length) continue;
    out[section] = rows.map((r) => {
      if (r.workingCopy === undefined) return r;
      any = true;
      if (!r.workingCopy || typeof r.workingCopy !== 'object' || Array.isArray(r.workingCopy))
        throw badRequest(`${section}: workingCopy must be an object`, `${section}.workingCopy`, 'INVALID_MANIFEST');
      const { workingCopy, ...record } = r;
      return { ...record, ...(workingCopy as Row), workingCopy: undefined };
    });
  }
  return any ? out : null;
}

const toManifest = (row: Row) => Object.fromEntries(Object.entries(row).map(([k, v]) => [camel(k), v]));

const list = (m: Row, key: string) => (Array.isArray(m[key]) ? (m[key] as Row[]) : []);

/** The settings the website is created with, by the create route's rules; 400 naming `website.settings...`. */
function websiteSettings(s: ContentServices, websiteId: string, settings: unknown): Row {
  try {
    return s.websites.settingsForNew(websiteId, (settings ?? {}) as Row);
  } catch (err) {
    if (!isHttpError(err) || err.statusCode !== 400) throw err;
    const field = `website.${err.field ?? 'settings'}`;
    throw badRequest(`${field}: ${err.message}`, field, 'INVALID_MANIFEST');
  }
}

/**
 * A documentation website's settings with `docs.sourceFolder` where the import put its folder
 * (`folders`, planned by the documentation plugin's part); other settings as they are.
 */
function relocateDocs(site: Row, settings: unknown, folders: ReadonlyMap<string, string>): unknown {
  const docs = (site.settings as Row | undefined)?.docs as Row | undefined;
  if (site.kind !== 'documentation' || typeof docs?.sourceFolder !== 'string' || !settings) return settings;
  const to = folders.get(docs.sourceFolder.replace(/^\/+|\/+$/g, ''));
  if (to === undefined) return settings;
  const out = settings as Row;
  return { ...out, docs: { ...(out.docs as Row), sourceFolder: to } };
}

/** The website and the sections this part writes, each value with old ids and asset paths replaced. */
function remapped(manifest: Row, remap: (value: unknown) => unknown): Row {
  const site = manifest.website as Row;
  const out: Row = { website: { ...site, settings: remap(site.settings ?? {}) } };
  for (const [section] of SECTIONS) if (manifest[section] !== undefined) out[section] = remap(manifest[section]);
  return out;
}
const nameOf = (kind: string, r: Row) => String(r.path ?? r.name ?? r.label ?? r.id ?? kind);

/**
 * The content plugin's part of a website bundle: the website (its settings, without the site key),
 * pages with their current node trees (history is not carried: `versions: "current"`), snippets,
 * layout templates (`websiteTemplates`), menu entries (`websitePaths`) and themes. Import writes new
 * rows with new ids in the caller's transaction; references to old ids inside node trees follow.
 */
export function contentBundlePart(
  s: ContentServices,
  cfg: { ENFORCE_PUBLISH_PERMISSION: boolean; CONTENT_MAX_TREE_BYTES: number },
): Part {
  const enforcePublish = cfg.ENFORCE_PUBLISH_PERMISSION;
  // Node trees pass the same checks as the editor's saves (no script, raw HTML or javascript: links).
  const checkTrees = (m: Row) => {
    checkBundleShapes(m, cfg.CONTENT_MAX_TREE_BYTES);
    for (const section of ['pages', 'snippets'])
      list(m, section).forEach((r, i) => {
        if (r.content !== undefined) validateNodeTree(r.content, `${section}.${i}.content`, cfg.CONTENT_MAX_TREE_BYTES);
      });
    // Working copies pass the same rules as the records (the copy laid over its record).
    const copies = copiesAsRecords(m);
    if (copies) {
      try {
        checkTrees({ ...copies, website: undefined });
      } catch (err) {
        if (isHttpError(err) && err.statusCode === 400 && err.field)
          throw badRequest(`working copy: ${err.message}`, `${err.field} (workingCopy)`, 'INVALID_MANIFEST');
        throw err;
      }
    }
  };
  const copiesOf = { page: s.pages.copies, snippet: s.snippets.copies, layout: s.layouts.copies };
  const store = new ContentBundleStore(s.kernel.db);
  return {
    id: 'content',
    order: 20,
    async exportSections({ websiteId, drafts }) {
      const site = await store.website(websiteId);
      if (!site) return {};
      // Secret-looking settings (token, password, key, ...) stay behind, as on the public read.
      const settings = redactSecrets(site.settings ?? {}) as Row;
      // A public upload folder was confirmed where it was set; the import asks for that confirmation too.
      const uploads = settings.uploads as Row | undefined;
      if (uploads && typeof uploads === 'object' && uploads.visibility === 'public')
        settings.uploads = { ...uploads, allowPublicFolder: true };
      const website = { ...toManifest(site), settings, versions: 'current' };
      const out: Row = { website };
      for (const [section, table] of SECTIONS)
        out[section] = (await store.rows(table, websiteId)).map((r) => toManifest(r));
      if (drafts)
        for (const [section, owner] of COPY_SECTIONS) {
          const rows = out[section] as Row[];
          const found = await s.drafts.findMany(
            owner,
            rows.map((r) => String(r.id)),
          );
          const byId = new Map(found.map((d) => [d.owner_id, d.fields]));
          for (const r of rows) {
            const fields = byId.get(String(r.id));
            if (fields) r.workingCopy = toManifest(copiesOf[owner].fieldsOf(fields));
          }
        }
      return out;
    },
    async plan(manifest, ctx) {
      const plan: Plan = { counts: {}, actions: [], warnings: [], blocking: [] };
      checkTrees(manifest);
      const site = manifest.website as Row | undefined;
      plan.counts.website = site ? 1 : 0;
      for (const [section] of SECTIONS) plan.counts[section] = list(manifest, section).length;
      if (!site) return plan;
      s.websites.checkRoot(ctx.rootPath);
      websiteSettings(s, randomUUID(), site.settings);
      const taken = await store.websiteAt(ctx.rootPath);
      const action = taken
        ? {
            kind: 'website',
            name: ctx.rootPath,
            action: 'conflict' as const,
            reason: `a website already has the root path ${ctx.rootPath}; import with ?rootPath=/other`,
          }
        : { kind: 'website', name: ctx.rootPath, action: 'create' as const };
      plan.actions.push(action);
      if (taken) plan.blocking.push(action);
      // Two pages on one path and language would fail the apply: the report says so first.
      const seen = new Set<string>();
      for (const p of list(manifest, 'pages')) {
        const at = `${String(p.locale)} ${String(p.path)}`;
        if (!seen.has(at)) {
          seen.add(at);
          continue;
        }
        const twice = {
          kind: 'page',
          name: String(p.path),
          action: 'conflict' as const,
          reason: `two pages of the bundle have the path ${String(p.path)} in ${String(p.locale)}`,
        };
        plan.actions.push(twice);
        plan.blocking.push(twice);
      }
      const published = list(manifest, 'pages').filter((p) => p.published).length;
      if (published && enforcePublish && !ctx.mayPublish)
        plan.warnings.push(`${published} published pages are imported as drafts: publishing needs objects:publish`);
      return plan;
    },
    async apply(manifest, ctx) {
      const site = manifest.website as Row | undefined;
      if (!site) return;
      const { trx, ids } = ctx;
      ctx.current = { kind: 'website', name: ctx.rootPath };
      s.websites.checkRoot(ctx.rootPath);
      if (await store.websiteAt(ctx.rootPath, trx))
        throw conflict(`A website already has the root path ${ctx.rootPath}`, 'ROOT_PATH_TAKEN', 'rootPath');
      const websiteId = randomUUID();
      if (typeof site.id === 'string') ids.set(site.id, websiteId);
      // New ids first, so references between pages, snippets and menu entries follow in one pass.
      const groups = new Map<string, string>();
      for (const [section] of SECTIONS)
        for (const r of list(manifest, section)) {
          if (typeof r.id === 'string') ids.set(r.id, randomUUID());
          if (typeof r.translationGroupId === 'string' && !groups.has(r.translationGroupId))
            groups.set(r.translationGroupId, randomUUID());
        }
      // What is written is the remapped copy: it passes the checks again, as an editor's save would
      // (an old id or asset path may have become any text of the bundle's choosing).
      const written = remapped(manifest, ctx.remap);
      checkTrees(written);
      const settings = websiteSettings(
        s,
        websiteId,
        relocateDocs(site, (written.website as Row).settings, ctx.folders),
      );
      await store.insertWebsite(trx, {
        id: websiteId,
        name: site.name,
        root_path: ctx.rootPath,
        locales: site.locales,
        settings,
        theme: site.theme ?? null,
        domains: [],
        kind: site.kind ?? 'website',
      });
      ctx.created.website = 1;
      const publish = !enforcePublish || ctx.mayPublish;
      for (const [section, table, kind] of SECTIONS) {
        const values = list(written, section);
        for (const [i, r] of list(manifest, section).entries()) {
          ctx.current = { kind, name: nameOf(kind, r) };
          const row: Row = { website_id: websiteId };
          for (const column of BUNDLE_COLUMNS[table]) {
            const value = values[i][camel(column)];
            if (value !== undefined) row[column] = value;
          }
          row.id = ids.get(String(r.id)) ?? randomUUID();
          if (table === 'content_pages') {
            row.translation_group_id = groups.get(String(r.translationGroupId)) ?? randomUUID();
            row.published = publish && r.published === true;
            row.published_at = row.published ? new Date() : null;
          }
          await store.insert(trx, table, row);
          const copy = values[i].workingCopy as Row | undefined;
          const owner = COPY_SECTIONS.find(([name]) => name === section)?.[1];
          if (copy && owner) {
            // The copy's fields over the record's, as a save to the working copy stores them.
            const fields: Row = { ...row };
            for (const [key, value] of Object.entries(copy)) fields[snake(key)] = value;
            const copies = copiesOf[owner];
            await s.drafts.save(
              owner,
              String(row.id),
              copies.fieldsOf(fields),
              ctx.actor.type === 'user' ? ctx.actor.id : null,
              trx,
            );
            ctx.created.workingCopies = (ctx.created.workingCopies ?? 0) + 1;
          }
          if (table === 'content_pages') {
            // Announced like an editor's create, in the import's transaction (search, subscribers).
            const page = await s.pages.get(String(row.id), trx);
            await announcePage(s.kernel.recordHooks, trx, 'created', page, ctx.actor);
            if (page.published) await announcePage(s.kernel.recordHooks, trx, 'published', page, ctx.actor);
          }
          ctx.created[section] = (ctx.created[section] ?? 0) + 1;
        }
      }
      ctx.current = null;
      // Public caches drop what they hold once the import commits.
      void trx.executionPromise?.then(
        () => {
          s.publicPages.invalidate();
          s.sitemaps.invalidate();
          s.directory.invalidate();
        },
        () => undefined,
      );
    },
  };
}
