import { Counter } from 'prom-client';
import { notFound, nowMsOf, type PluginDeps, type RecordChange, type Tx } from '../../../kernel/index.ts';
import type { DocsConfig } from '../config.ts';
import type { DocsWebsite, DocsWebsiteSource } from '../ports.ts';
import { DOCS_ASSETS_CHANGED, noticeAssetChange } from '../store/notices.ts';
import { type BuiltSite, buildSite, fingerprintOf } from './site.ts';

export type DocsNeeds = 'assetLibrary' | 'docsWebsites' | 'recordHooks' | 'notifications' | 'clock' | 'metrics';
export type DocsDeps = PluginDeps<DocsNeeds, never, typeof DocsConfig>;

interface Entry {
  site: BuiltSite;
  /** When the folder was last listed for it (kernel clock, ms). */
  checkedAt: number;
  /** An asset changed since: list the folder again before serving it. */
  stale: boolean;
}

/**
 * Documentation sites, built from their folders and kept in memory. There is no build step: a
 * site is built on its first read, and a change of a library file (record type `asset`: a new
 * version, a rename, a move, a delete) marks every site to be checked again, in this process at once
 * and in the others through a database notice. A check lists the folder (one query, or one call to
 * the asset service) and rebuilds only when its files changed; renders are kept by content hash, so
 * a rebuild renders only changed documents. Without any notice a site is checked every
 * DOCS_REVALIDATE_SECONDS.
 */
export function createDocsServices(deps: DocsDeps) {
  const cfg = deps.pluginConfig;
  const entries = new Map<string, Entry>();
  const building = new Map<string, Promise<Entry>>();
  const rendered = new Counter({
    name: 'docs_renders_total',
    help: 'Markdown documents rendered (a render kept by content hash is not counted again)',
    registers: [deps.metrics.registry],
  });
  const renders = new Map<string, never>() as Parameters<typeof buildSite>[0]['renders'];
  const keep = renders.set.bind(renders);
  // Every render is kept here: counting what is kept counts the renders.
  renders.set = (key, value) => {
    rendered.inc();
    return keep(key, value);
  };
  let generation = 0;
  const now = () => nowMsOf(deps.clock);
  // The contributed sources, read once (every request reads them; they are all known by the first).
  let sources: readonly DocsWebsiteSource[] | undefined;
  const sourcesOf = () => (sources ??= [...deps.docsWebsites]);

  const markStale = () => {
    generation++;
    for (const e of entries.values()) e.stale = true;
  };

  const siteNotFound = () => notFound('Documentation site not found', 'DOCS_SITE_NOT_FOUND');

  /**
   * The documentation website of this id, at once when every source answers at once (a public read:
   * no promise), else a promise; throws (or rejects) the 404 for an unknown one.
   */
  function website(websiteId: string): DocsWebsite | Promise<DocsWebsite> {
    for (const source of sourcesOf()) {
      const site = source.byId(websiteId);
      if (site instanceof Promise) return websiteAwaited(websiteId);
      if (site) return site;
    }
    throw siteNotFound();
  }

  async function websiteAwaited(websiteId: string): Promise<DocsWebsite> {
    for (const source of sourcesOf()) {
      const site = await source.byId(websiteId);
      if (site) return site;
    }
    throw siteNotFound();
  }

  async function load(site: DocsWebsite, previous: Entry | undefined): Promise<Entry> {
    const settings = site.docs;
    if (!settings) throw notFound('This website has no documentation folder (settings.docs)', 'DOCS_SITE_NOT_FOUND');
    const started = generation;
    const { files, truncated } = await deps.assetLibrary.folderFiles(settings.sourceFolder, cfg.DOCS_MAX_FILES);
    const info = { id: site.id, name: site.name, rootPath: site.rootPath };
    const unchanged =
      previous &&
      previous.site.fingerprint === fingerprintOf(settings, files) &&
      previous.site.info.title === site.name &&
      previous.site.info.rootPath === site.rootPath;
    const built = unchanged
      ? previous.site
      : await buildSite({
          website: info,
          settings,
          files,
          truncated,
          read: (file) => deps.assetLibrary.readFile(file.id, cfg.DOCS_MAX_FILE_BYTES),
          maxFileBytes: cfg.DOCS_MAX_FILE_BYTES,
          renders,
        });
    // A change announced while building: serve this to the callers waiting, check again next time.
    return { site: built, checkedAt: now(), stale: started !== generation };
  }

  /**
   * The built site of a documentation website (404 for another website or one without `settings.docs`):
   * at once when it is built and fresh, a promise when it must be looked up, checked or built.
   */
  function site(websiteId: string): BuiltSite | Promise<BuiltSite> {
    const web = website(websiteId);
    return web instanceof Promise ? web.then((w) => siteOf(websiteId, w)) : siteOf(websiteId, web);
  }

  function siteOf(websiteId: string, web: DocsWebsite): BuiltSite | Promise<BuiltSite> {
    const hit = entries.get(websiteId);
    const fresh = hit && !hit.stale && now() - hit.checkedAt < cfg.DOCS_REVALIDATE_SECONDS * 1000;
    if (fresh && hit.site.info.title === web.name && hit.site.info.rootPath === web.rootPath) return hit.site;
    return rebuilt(websiteId, web, hit);
  }

  async function rebuilt(websiteId: string, web: DocsWebsite, hit: Entry | undefined): Promise<BuiltSite> {
    let pending = building.get(websiteId);
    if (!pending) {
      pending = load(web, hit).finally(() => building.delete(websiteId));
      building.set(websiteId, pending);
    }
    const entry = await pending;
    entries.set(websiteId, entry);
    return entry.site;
  }

  /** Subscribes to asset changes here and to other processes' notices (onStart). */
  function start(): () => void {
    const offNotice = deps.notifications.on(DOCS_ASSETS_CHANGED, markStale);
    const offHook = deps.recordHooks.subscribe('asset', async (_change: RecordChange, trx: Tx) => {
      await noticeAssetChange(trx, '');
      markStale();
      trx.executionPromise?.then(markStale, markStale);
    });
    return () => {
      offNotice();
      offHook();
    };
  }

  return { site, website, start, markStale, sources: () => deps.docsWebsites, config: cfg };
}

export type DocsServices = ReturnType<typeof createDocsServices>;
