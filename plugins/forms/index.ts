import { definePlugin } from '../../kernel/index.ts';
import { FormsConfig } from './config.ts';
import { submitRoutes } from './routes/submit.ts';
import { FormSubmissions, SubmitRateLimit } from './services/form-submit.ts';

/**
 * Public form submits: `POST /public/forms/:classId/submit` creates an unpublished object through
 * `dataObjects`, attaching staged uploads through `assetLibrary` in the same transaction. A plugin of
 * its own because it needs both, while the data plugin uses the asset library for `resolve-assets`.
 */
export default definePlugin({
  id: 'forms',
  processes: ['core-api'],
  // `websiteUploadRules` (asset plugin's registry): the website's maxFilesPerSubmit, from the content plugin.
  needs: ['db', 'clock', 'assetLibrary', 'dataObjects', 'websiteUploadRules'],
  config: FormsConfig,
  setup: ({ db, clock, assetLibrary, dataObjects, websiteUploadRules, pluginConfig }) =>
    new FormSubmissions({
      db,
      assets: assetLibrary,
      objects: dataObjects,
      sites: websiteUploadRules,
      limit: new SubmitRateLimit(
        pluginConfig.FORM_SUBMIT_RATE_LIMIT_PER_WINDOW,
        pluginConfig.FORM_SUBMIT_RATE_LIMIT_WINDOW_SECONDS * 1000,
        () => clock.now().getTime(),
      ),
    }),
  routes: (app, { services }) => submitRoutes(app, services),
});
