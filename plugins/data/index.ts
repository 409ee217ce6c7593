import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { definePlugin } from '../../kernel/index.ts';
import { dataBundlePart } from './bundle-part.ts';
import { DataConfig } from './config.ts';
import { retentionSchedule } from './jobs/retention.ts';
import { scheduledPublishing } from './jobs/scheduled-publishing.ts';
import { DATA_PERMISSIONS } from './permissions.ts';
import { classRoutes } from './routes/classes.ts';
import { componentRoutes } from './routes/components.ts';
import { draftRoutes } from './routes/drafts.ts';
import { objectBatchRoutes } from './routes/object-batches.ts';
import { objectRoutes } from './routes/objects.ts';
import { previewLinkRoutes } from './routes/preview-links.ts';
import { publicObjectRoutes } from './routes/public-objects.ts';
import { transitionRoutes } from './routes/transitions.ts';
import { workflowRoutes } from './routes/workflows.ts';
import { objectAssetReferences, objectDataSubjectSource } from './data-subject-source.ts';
import { classSearchSource, objectSearchSource } from './search-sources.ts';
import { dataObjectsApi, type DataObjectsApi } from './services/data-objects-api.ts';
import { indexBuildsQueue } from './services/index-builds.ts';
import { createDataServices } from './services/index.ts';

const here = path.dirname(fileURLToPath(import.meta.url));

declare module '../../kernel/index.ts' {
  interface PluginServices {
    /** Published reads and transaction-joining object writes (services/data-objects-api.ts). */
    dataObjects: DataObjectsApi;
  }
}

/**
 * Structured data: classes, components, objects (one row per language), workflows, preview links and
 * the public read API. Every write announces itself through the kernel's record-change hooks in its
 * transaction (record type `object`). The gateway process loads its services (to read published
 * objects for /client/v1) without its routes.
 */
export default definePlugin({
  id: 'data',
  processes: ['core-api', 'gateway'],
  routesIn: ['core-api'],
  needs: ['db', 'readDb', 'readReplica', 'audit', 'recordHooks', 'permissions', 'clock', 'config', 'jobs'],
  // Resolves asset fields for the batch action `resolve-assets` (409 ASSETS_UNAVAILABLE without it).
  optional: ['assetLibrary'],
  migrations: path.join(here, 'migrations'),
  permissions: DATA_PERMISSIONS,
  config: DataConfig,
  setup: (deps) => createDataServices(deps),
  provides: {
    dataObjects: ({ services }) => dataObjectsApi(services),
  },
  contributes: {
    searchSources: () => [objectSearchSource, classSearchSource],
    // Its classes, components and objects in a website bundle (the bundles plugin's registry).
    websiteBundleParts: ({ services, db, permissions }) => dataBundlePart(services, db, permissions),
    // Objects holding a person's identifier (collected by the data-subject plugin when it is loaded).
    dataSubjectSources: ({ services, db }) => objectDataSubjectSource(services, db),
    // Objects holding a library file's reference: an erase leaves a file another object still uses.
    assetReferences: ({ db }) => objectAssetReferences(db),
  },
  // Every process that reads (core-api, gateway) drops cached answers when any process changes objects.
  async onStart({ services, recordHooks }) {
    recordHooks.subscribe('object', services.changes.onObjectChange);
    await services.changes.start();
  },
  async onStop({ services }) {
    await services.changes.stop();
  },
  async routes(app, { services }) {
    await classRoutes(app, services);
    await componentRoutes(app, services);
    await objectRoutes(app, services);
    await draftRoutes(app, services);
    await objectBatchRoutes(app, services);
    await publicObjectRoutes(app, services);
    await workflowRoutes(app, services);
    await transitionRoutes(app, services);
    await previewLinkRoutes(app, services);
  },
  // Field index builds after a class change (services/index-builds.ts), worked in core-api only.
  queues: [{ ...indexBuildsQueue, run: (job, ctx) => indexBuildsQueue.run(job, ctx) }],
  schedules: [
    // Wrapped so the schedule's own narrower context type does not decide the manifest's optional services.
    { ...retentionSchedule, run: (ctx, signal) => retentionSchedule.run(ctx, signal) },
    // Scheduled publishing and unpublishing of objects, every minute (jobs/scheduled-publishing.ts).
    { ...scheduledPublishing, run: (ctx, signal) => scheduledPublishing.run(ctx, signal) },
  ],
});
