import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { definePlugin } from '../../kernel/index.ts';
import { FigmaConfig } from './config.ts';
import './ports.ts';
import { importRoutes } from './routes/import.ts';
import { settingsRoutes } from './routes/settings.ts';
import { createFigmaServices } from './services/index.ts';
import { KEY_NAME } from './services/settings.ts';
import { FIGMA_PERMISSIONS } from './permissions.ts';

const here = path.dirname(fileURLToPath(import.meta.url));

/**
 * Figma import: a design file or frame becomes an editable page (headings, paragraphs, buttons,
 * images, layout containers), its images stored in the asset library. The access token is sealed
 * (INTEGRATION_SECRETS_ENCRYPTION_KEY) and shown masked; every Figma call goes through the gateway's
 * outbound policy. The sandbox profile blocks the import and the token change.
 */
export default definePlugin({
  id: 'figma',
  processes: ['core-api'],
  permissions: FIGMA_PERMISSIONS,
  // `secretBox`: the token; `permissions`: images need assets:upload too;
  // `outboundFetch` (gateway): every call to Figma; `assetLibrary` (assets): the images;
  // `designImportTargets` (registry, content contributes): checks the tree and makes the draft page.
  needs: ['db', 'clock', 'config', 'audit', 'secretBox', 'permissions', 'assetLibrary', 'designImportTargets'],
  // Without the gateway plugin (a process or an installation that disables it) the plugin still loads
  // and its settings work; an import answers 503 naming the missing policy.
  optional: ['outboundFetch'],
  collects: ['designImportTargets'],
  config: FigmaConfig,
  migrations: path.join(here, 'migrations'),
  setup: (deps) => createFigmaServices(deps),
  onStart({ config, secretBox, log }) {
    if (config.production && !secretBox.hasKey(KEY_NAME))
      log.warn(`${KEY_NAME} is not set: a Figma access token would be stored in clear text`);
  },
  routes(app, { services }) {
    settingsRoutes(app, services.settings);
    importRoutes(app, services.importer);
  },
});
