import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { definePlugin } from '../../kernel/index.ts';
import { PublishConfig } from './config.ts';
import { PUBLISH_PERMISSIONS } from './permissions.ts';
import './ports.ts';
import { jobRoutes } from './routes/jobs.ts';
import { runnerRoutes } from './routes/runner.ts';
import { PublishJobs } from './services/jobs.ts';
import { registerQueueMetrics } from './services/queue-metrics.ts';

const here = path.dirname(fileURLToPath(import.meta.url));

/**
 * Publish jobs: static builds of a website. An editor queues one (`POST /publish/jobs`, audit
 * `website.publish`) and may cancel it (`website.publish_cancel`) or retry it; a runner process
 * (`cms publish-runner`, bearer PUBLISH_RUNNER_TOKEN) claims it through the runner routes, renders
 * every published page and copies the public files they use into a folder or a bucket, reporting
 * progress and log lines. It imports no plugin: the pages and their HTML come from the registry
 * `sitePublishSources` (content), the files from `sitePublishFiles` (assets), see ports.ts.
 */
export default definePlugin({
  id: 'publish',
  processes: ['core-api'],
  needs: ['db', 'audit', 'clock', 'metrics', 'sitePublishSources', 'sitePublishFiles'],
  collects: ['sitePublishSources', 'sitePublishFiles'],
  permissions: PUBLISH_PERMISSIONS,
  config: PublishConfig,
  migrations: path.join(here, 'migrations'),
  setup: (deps) => new PublishJobs(deps),
  onStart: ({ services, metrics }) => registerQueueMetrics(metrics, services.store),
  async routes(app, { services, pluginConfig }) {
    await jobRoutes(app, services);
    await runnerRoutes(app, services, pluginConfig.PUBLISH_RUNNER_TOKEN);
  },
  jobs: [
    {
      // Runs whose runner went silent are taken back (also at every claim); the queue depth stays true.
      name: 'publish-jobs.leases',
      firstRunAfterMs: 30_000,
      intervalMs: 30_000,
      run: async ({ services }) => void (await services.expireLeases()),
    },
  ],
});
