import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Type } from '@sinclair/typebox';
import { definePlugin } from '../../kernel/plugin.ts';
import { retentionJob } from './jobs/retention.ts';
import { DATA_PERMISSIONS } from './permissions.ts';
import { classRoutes } from './routes/classes.ts';
import { componentRoutes } from './routes/components.ts';
import { objectBatchRoutes } from './routes/object-batches.ts';
import { objectRoutes } from './routes/objects.ts';
import { previewLinkRoutes } from './routes/preview-links.ts';
import { publicObjectRoutes } from './routes/public-objects.ts';
import { transitionRoutes } from './routes/transitions.ts';
import { workflowRoutes } from './routes/workflows.ts';
import { createDataServices } from './services/index.ts';

const here = path.dirname(fileURLToPath(import.meta.url));

/**
 * Structured data: classes, components, objects (one row per language), workflows, preview links and
 * the public read API. Every write announces itself through the kernel's record-change hooks in its
 * transaction (record type `object`).
 */
export default definePlugin({
  id: 'data',
  services: ['core-api'],
  needs: ['db', 'audit', 'recordHooks', 'permissions', 'clock', 'config'],
  migrations: path.join(here, 'migrations'),
  permissions: DATA_PERMISSIONS,
  config: Type.Object({
    ENFORCE_PUBLISH_PERMISSION: Type.Union([Type.Literal('0'), Type.Literal('1'), Type.Literal('true'), Type.Literal('false')], {
      default: '1',
      description: '1: publishing objects needs objects:publish; objects created without it are drafts',
    }),
    PUBLIC_DATA_RATE_LIMIT_PER_MINUTE: Type.Integer({
      minimum: 1,
      maximum: 1_000_000,
      default: 600,
      description: 'requests per client address and minute on /public/data-objects* (429 with Retry-After beyond)',
    }),
  }),
  async routes(app, deps) {
    const data = createDataServices(deps);
    await classRoutes(app, data);
    await componentRoutes(app, data);
    await objectRoutes(app, data);
    await objectBatchRoutes(app, data);
    await publicObjectRoutes(app, data);
    await workflowRoutes(app, deps);
    await transitionRoutes(app, deps);
    await previewLinkRoutes(app, deps);
  },
  jobs: [retentionJob],
});
