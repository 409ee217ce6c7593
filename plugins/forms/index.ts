import { definePlugin } from '../../kernel/index.ts';
import { FormsConfig } from './config.ts';
import { submitRoutes } from './routes/submit.ts';
import { FormSubmissions } from './services/form-submit.ts';

/**
 * Public form submits: `POST /public/forms/:classId/submit` creates an unpublished object through
 * `dataObjects`, attaching staged uploads through `assetLibrary` in the same transaction. A plugin of
 * its own because it needs both, while the data plugin uses the asset library for `resolve-assets`.
 */
export default definePlugin({
  id: 'forms',
  processes: ['core-api'],
  // `websiteUploadRules` (asset plugin's registry): the website's maxFilesPerSubmit, from the content plugin.
  needs: ['db', 'assetLibrary', 'dataObjects', 'websiteUploadRules'],
  config: FormsConfig,
  setup: ({ db, assetLibrary, dataObjects, websiteUploadRules }) =>
    new FormSubmissions({ db, assets: assetLibrary, objects: dataObjects, sites: websiteUploadRules }),
  routes: (app, { services, pluginConfig }) => submitRoutes(app, services, pluginConfig),
});
