import { definePlugin } from '../../kernel/index.ts';
import { BundlesConfig } from './config.ts';
import './ports.ts';
import { bundleRoutes } from './routes/bundles.ts';
import { createBundleServices } from './services/index.ts';
import { removeStaleSpoolFiles } from './services/spool.ts';
import { BUNDLES_PERMISSIONS } from './permissions.ts';

/**
 * Website bundles: `GET /cms-one/websites/:id/export` streams a zip (`bundle.json` manifest version 2
 * plus the files under `assets/0001-<name>`), `POST /cms-one/websites/import` reads one (or a plain
 * manifest), with a dry run. It imports no plugin: each plugin that holds part of a website contributes
 * to the registries it collects (ports.ts): `websiteBundleParts` (content: website, pages, snippets,
 * templates, menus, themes; data: classes, components, objects) and `websiteBundleFiles` (assets).
 * The apply is one transaction across those plugins.
 */
export default definePlugin({
  id: 'bundles',
  processes: ['core-api'],
  permissions: BUNDLES_PERMISSIONS,
  needs: ['db', 'audit', 'permissions', 'clock', 'config', 'websiteBundleParts', 'websiteBundleFiles'],
  collects: ['websiteBundleParts', 'websiteBundleFiles'],
  config: BundlesConfig,
  setup: (deps) => createBundleServices(deps),
  async routes(app, { services }) {
    await bundleRoutes(app, services);
  },
  // A crash mid-import leaves its spooled upload behind (up to BUNDLE_MAX_BYTES each).
  async onStart({ services, log }) {
    const removed = await removeStaleSpoolFiles(services.tmpDir, services.budgetMs);
    if (removed) log.info({ removed }, 'removed bundle uploads left by crashed imports');
  },
});
