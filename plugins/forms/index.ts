import { definePlugin } from '../../kernel/index.ts';
import { FormsConfig } from './config.ts';
import type {} from './ports.ts';
import { submitRoutes } from './routes/submit.ts';
import { FormSubmissions } from './services/form-submit.ts';
import { FormNotifications } from './services/notify.ts';

/**
 * Public form submits: `POST /public/forms/:classId/submit` creates an unpublished object through
 * `dataObjects`, attaching staged uploads through `assetLibrary` in the same transaction. A plugin of
 * its own because it needs both, while the data plugin uses the asset library for `resolve-assets`.
 */
export default definePlugin({
  id: 'forms',
  processes: ['core-api'],
  // `websiteUploadRules` (asset plugin's registry): the website's maxFilesPerSubmit, from the content plugin.
  // `formNotifySources` (own registry): the notify blocks authors saved (content plugin); `mail`: the kernel's mail port.
  // `publishedFormSources` (own registry): which classes a published form names (content plugin); none: no submit.
  needs: [
    'db',
    'assetLibrary',
    'dataObjects',
    'websiteUploadRules',
    'mail',
    'formNotifySources',
    'publishedFormSources',
  ],
  collects: ['formNotifySources', 'publishedFormSources'],
  config: FormsConfig,
  setup: ({ db, assetLibrary, dataObjects, websiteUploadRules, mail, formNotifySources, publishedFormSources, log }) =>
    new FormSubmissions({
      db,
      assets: assetLibrary,
      objects: dataObjects,
      sites: websiteUploadRules,
      forms: publishedFormSources,
      notifications: new FormNotifications({ mail, sources: formNotifySources, log }),
    }),
  routes: (app, { services, pluginConfig }) => submitRoutes(app, services, pluginConfig),
});
