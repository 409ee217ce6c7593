import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { definePlugin, type PermissionRegistry } from '../../kernel/index.ts';
import { ContentConfig } from './config.ts';
import { CONTENT_PERMISSIONS } from './permissions.ts';
import type { GatewayBindingSource, WebsiteUploadRules } from './ports.ts';
import { canvasRoutes } from './routes/canvas.ts';
import { catalogCanvasRoutes } from './routes/catalog-canvas.ts';
import { documentRoutes } from './routes/documents.ts';
import { layoutRoutes } from './routes/layouts.ts';
import { pageRoutes } from './routes/pages.ts';
import { draftRoutes } from './routes/drafts.ts';
import { publicRoutes } from './routes/public.ts';
import { settingsRoutes } from './routes/settings.ts';
import { siteRootRoute } from './routes/site-root.ts';
import { snippetRoutes } from './routes/snippets.ts';
import { stagedPageRoutes } from './routes/staged-pages.ts';
import { templateRoutes } from './routes/templates.ts';
import { themeRoutes } from './routes/themes.ts';
import { websitePathRoutes } from './routes/website-paths.ts';
import { websiteRoutes } from './routes/websites.ts';
import { createContentServices, type ContentServices } from './services/index.ts';
import { formNotifySource, mailRenderer, publishedFormSource } from './services/mail-contributions.ts';
import { contentHoldingAssets } from './store/asset-references.ts';
import { contentAiTarget } from './services/ai-target.ts';
import { contentBundlePart } from './services/bundle-part.ts';
import { docsWebsiteSource } from './services/docs-websites.ts';
import { contentPublishSource } from './services/publish-source.ts';
import { designImportTarget } from './services/design-import-target.ts';
import { documentImportTarget } from './services/document-import-target.ts';
import { pageSearchSource } from './services/search-source.ts';

const here = path.dirname(fileURLToPath(import.meta.url));

/**
 * The gateway content bindings, as the gateway reads them (registry `gatewayBindingSources`): live
 * while their page is published; a preview may use them when the user may read unpublished pages
 * (`objects:read`, the key of the page routes).
 */
function gatewayBindingSource(s: ContentServices, permissions: PermissionRegistry): GatewayBindingSource {
  return {
    findBinding: (id, trx) => s.bindings.find(id, trx),
    checkSiteKey: (websiteId, presented) => s.websites.checkSiteKey(websiteId, presented),
    mayPreview: (_binding, user) => permissions.allows(user, 'objects:read'),
  };
}

/** Websites' upload rules, as public form uploads and submits read them (registry `websiteUploadRules`). */
function websiteUploadRules(s: ContentServices): WebsiteUploadRules {
  return {
    async findWebsite(by) {
      const site =
        (by.id ? await s.directory.byId(by.id) : undefined) ??
        (by.path ? await s.directory.bySegment(by.path.split('/').filter(Boolean)[0] ?? '') : undefined) ??
        (by.host ? await s.directory.byDomain(by.host) : undefined);
      return site && { id: site.id, name: site.name, rootPath: site.rootPath };
    },
    async uploadSettings(websiteId) {
      return (await s.directory.byId(websiteId)) ? s.websites.uploadSettings(websiteId) : undefined;
    },
  };
}

/**
 * Websites and their pages: node trees, versions, publication, the public read API and `/site-root`.
 * It provides no service (nothing depends on it); it contributes its pages' gateway bindings to the
 * gateway, its websites' upload rules to the asset plugin, its pages to search, its e-mail renderer
 * to the mail plugin, its forms' saved `notify` blocks to the forms plugin and its published pages'
 * HTML to static builds (publish plugin's `sitePublishSources`) (ports.ts). Page
 * changes are announced through the record-change hooks (record type `page`).
 */
export default definePlugin({
  id: 'content',
  processes: ['core-api', 'gateway'],
  routesIn: ['core-api'],
  needs: [
    'db',
    'readDb',
    'readReplica',
    'audit',
    'recordHooks',
    'permissions',
    'clock',
    'config',
    'mountedRoutes',
    'cacheNotices',
  ],
  optional: ['dataObjects', 'gatewayRoutes'],
  permissions: CONTENT_PERMISSIONS,
  config: ContentConfig,
  migrations: path.join(here, 'migrations'),
  setup: (deps) => createContentServices(deps),
  contributes: {
    gatewayBindingSources: ({ services, permissions }) => gatewayBindingSource(services, permissions),
    websiteUploadRules: ({ services }) => websiteUploadRules(services),
    // Library files its pages, snippets, templates, layouts, themes, menus and settings use: a
    // data-subject erase leaves them in place.
    assetReferences: ({ db }) => ({ plugin: 'content', holdings: (refs) => contentHoldingAssets(db, refs) }),
    searchSources: ({ services }) => pageSearchSource({ pages: services.pageStore, directory: services.directory }),
    mailRenderers: ({ services, pluginConfig }) =>
      mailRenderer({ settings: services.settings, maxTreeBytes: pluginConfig.CONTENT_MAX_TREE_BYTES }),
    formNotifySources: ({ services }) => formNotifySource(services.pageStore),
    // The classes a published form names: the only ones `/public/forms/:classId/submit` accepts.
    publishedFormSources: ({ services }) => publishedFormSource(services.pageStore),
    // The website, its pages, snippets, templates, menus and themes in a website bundle (bundles plugin).
    websiteBundleParts: ({ services, pluginConfig }) => contentBundlePart(services, pluginConfig),
    // Websites of kind documentation and their `settings.docs` (docs plugin).
    docsWebsites: ({ services }) => docsWebsiteSource(services),
    // Published pages and their HTML for static builds (publish plugin).
    sitePublishSources: ({ services }) => contentPublishSource(services),
    // Where an imported design (figma plugin) becomes a draft page, checked like a page save.
    designImportTargets: ({ services }) => designImportTarget(services),
    // Where migrated Pimcore documents become pages, staged pages and snippets (migration plugin).
    documentImportTargets: ({ services }) => documentImportTarget(services),
    // Node-tree checks, page translations and websites made from a generated structure (ai plugin).
    aiContentTargets: ({ services, pluginConfig }) => contentAiTarget(services, pluginConfig.CONTENT_MAX_TREE_BYTES),
  },
  async routes(app, { services }) {
    websiteRoutes(app, services);
    stagedPageRoutes(app, services);
    pageRoutes(app, services);
    draftRoutes(app, services);
    canvasRoutes(app, services);
    catalogCanvasRoutes(app, services);
    snippetRoutes(app, services);
    documentRoutes(app, services);
    settingsRoutes(app, services);
    templateRoutes(app, services);
    layoutRoutes(app, services);
    websitePathRoutes(app, services);
    themeRoutes(app, services);
    siteRootRoute(app, services);
    await publicRoutes(app, services);
  },
  schedules: [
    // Scheduled publishing and unpublishing of pages, every minute, once across the processes
    // (due rows are also locked SKIP LOCKED, so overlapping runs never carry one out twice).
    {
      name: 'scheduled-publishing',
      cron: '* * * * *',
      timeoutMs: 5 * 60_000,
      run: async ({ services }, signal) => void (await services.schedules.run(signal)),
    },
  ],
});
