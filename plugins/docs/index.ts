import { definePlugin } from '../../kernel/index.ts';
import { DocsConfig } from './config.ts';
import './ports.ts';
import { DOCS_PERMISSIONS } from './permissions.ts';
import { docsRoutes } from './routes/routes.ts';
import { docsBundlePart } from './services/bundle-part.ts';
import { docsDocument } from './services/html.ts';
import { createDocsServices } from './services/index.ts';

/**
 * Documentation sites: a folder of Markdown in the asset library published as a searchable
 * documentation website (a website of kind `documentation` with `settings.docs`). No build step:
 * sites are built on first read and checked again whenever a library file changes (README). It
 * reads websites through the registry `docsWebsites` (contributed by content) and the folder through
 * `assetLibrary` (`folderFiles`, `readFile`; over HTTP from the asset-processor in the split
 * deployment). Built in the asset-processor too, only to send the change notices of files written there.
 */
export default definePlugin({
  id: 'docs',
  processes: ['core-api', 'asset-processor'],
  routesIn: ['core-api'],
  needs: ['assetLibrary', 'docsWebsites', 'recordHooks', 'notifications', 'clock', 'metrics'],
  collects: ['docsWebsites'],
  permissions: DOCS_PERMISSIONS,
  config: DocsConfig,
  setup: (deps) => createDocsServices(deps),
  // A documentation website's bundle carries its folder, and its import relocates it.
  contributes: {
    websiteBundleParts: ({ assetLibrary, pluginConfig }) => docsBundlePart({ assetLibrary, pluginConfig }),
  },
  onStart({ services, docsWebsites }) {
    services.start();
    // The live site at /<rootPath>/...: the website plugin hands browsers' requests here.
    for (const source of docsWebsites)
      source.serveHtml(async (websiteId, path) => {
        const site = await services.site(websiteId);
        const web = await services.website(websiteId);
        return docsDocument(site, path, await web.themeCss());
      });
  },
  routes: (app, { services }) => docsRoutes(app, services),
});
