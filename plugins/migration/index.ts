import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { definePlugin } from '../../kernel/index.ts';
import { MigrationConfig } from './config.ts';
import { MIGRATION_PERMISSIONS } from './permissions.ts';
import { sourceRoutes } from './routes/sources.ts';
import { createMigrationServices } from './services/index.ts';
import { KEY_NAME } from './services/sources.ts';

const here = path.dirname(fileURLToPath(import.meta.url));

/**
 * Migration sources: a Pimcore 11 installation (its MariaDB/MySQL database and its `var/classes`
 * folder) to move in. Sources are kept with their password sealed (INTEGRATION_SECRETS_ENCRYPTION_KEY)
 * and never returned; the database host goes through the outbound address policy. Class definition
 * files are parsed, never run, and mapped to data classes, which are created through the data
 * plugin's `dataObjects` port. The sandbox profile blocks every route that reads a source.
 */
export default definePlugin({
  id: 'migration',
  processes: ['core-api'],
  // `outboundGuard`: asked right before a source database connection; `secretBox`: the password;
  // `permissions`: importing classes needs `data_classes:manage` as well.
  needs: ['db', 'clock', 'config', 'audit', 'secretBox', 'outboundGuard', 'permissions'],
  // `outboundFetch` (gateway plugin): its address policy is asked for the database host;
  // `dataObjects` (data plugin): classes are created through it.
  optional: ['outboundFetch', 'dataObjects'],
  permissions: MIGRATION_PERMISSIONS,
  config: MigrationConfig,
  migrations: path.join(here, 'migrations'),
  setup: (deps) => createMigrationServices(deps),
  onStart({ config, secretBox, log }) {
    if (config.production && !secretBox.hasKey(KEY_NAME))
      log.warn(`${KEY_NAME} is not set: migration sources cannot keep a database password`);
  },
  routes: (app, { services }) => sourceRoutes(app, services),
});
