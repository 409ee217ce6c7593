import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { definePlugin, type JobRun } from '../../kernel/index.ts';
import { MigrationConfig } from './config.ts';
import { MIGRATION_PERMISSIONS } from './permissions.ts';
import './ports.ts';
import { documentRoutes } from './routes/documents.ts';
import { importRoutes } from './routes/imports.ts';
import { sourceRoutes } from './routes/sources.ts';
import { IMPORT_QUEUE } from './services/import-jobs.ts';
import { createMigrationServices } from './services/index.ts';
import { KEY_NAME } from './services/sources.ts';

const here = path.dirname(fileURLToPath(import.meta.url));

/**
 * Migration sources: a Pimcore 11 installation (its MariaDB/MySQL database and its `var/classes`
 * folder) to move in. Sources are kept with their password sealed (INTEGRATION_SECRETS_ENCRYPTION_KEY)
 * and never returned; the database host goes through the outbound address policy. Class definition
 * files are parsed, never run, and mapped to data classes, which are created through the data
 * plugin's `dataObjects` port, and so are objects (batched, as background jobs with checkpoints).
 * Documents become pages, staged pages and snippets through the content plugin's contribution to
 * `documentImportTargets`.
 * The sandbox profile blocks every route that reads a source.
 */
export default definePlugin({
  id: 'migration',
  processes: ['core-api'],
  // `outboundGuard`: asked right before a source database connection; `secretBox`: the password;
  // `permissions`: importing classes needs `data_classes:manage` as well.
  // `jobs`: background object imports (queue `migration.object-imports`).
  needs: ['db', 'clock', 'config', 'audit', 'secretBox', 'outboundGuard', 'permissions', 'jobs'],
  // `outboundFetch` (gateway plugin): its address policy is asked for the database host;
  // `dataObjects` (data plugin): classes and objects are written through it;
  // `assetLibrary` (assets plugin): Pimcore's asset files are copied into the library through it.
  // `documentImportTargets` (registry, content contributes): documents become pages and snippets.
  optional: ['outboundFetch', 'dataObjects', 'assetLibrary', 'documentImportTargets'],
  collects: ['documentImportTargets'],
  permissions: MIGRATION_PERMISSIONS,
  config: MigrationConfig,
  migrations: path.join(here, 'migrations'),
  setup: (deps) => createMigrationServices(deps),
  onStart({ config, secretBox, log }) {
    if (config.production && !secretBox.hasKey(KEY_NAME))
      log.warn(`${KEY_NAME} is not set: migration sources cannot keep a database password`);
  },
  async routes(app, { services }) {
    await sourceRoutes(app, services);
    await importRoutes(app, services);
    await documentRoutes(app, services);
  },
  queues: [
    {
      name: IMPORT_QUEUE,
      concurrency: 1,
      timeoutMs: ({ pluginConfig }) => pluginConfig.MIGRATION_IMPORT_TRY_SECONDS * 1000,
      worksHere: ({ pluginConfig }) => pluginConfig.MIGRATION_IMPORT_WORKER_ENABLED,
      // A try that throws for another reason than the source (which fails the job at once) is tried again.
      retryWaitsMs: [5_000, 60_000, 300_000],
      run: (job, { services }) => services.imports.runQueued(job as JobRun<{ importId: string }>),
      onFailure: (job, failure, trx, { services }) =>
        services.imports.failed(
          job as JobRun<{ importId: string }>,
          failure.problem,
          failure.nextRunAt === undefined,
          trx,
        ),
    },
  ],
});
