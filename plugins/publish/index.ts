import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { definePlugin } from '../../kernel/index.ts';
import { PublishConfig } from './config.ts';
import { PUBLISH_PERMISSIONS } from './permissions.ts';
import './ports.ts';
import { jobRoutes } from './routes/jobs.ts';
import { runnerRoutes } from './routes/runner.ts';
import { PublishRunnerConfig } from './runner/settings.ts';
import { PublishJobs, RUNS_QUEUE } from './services/jobs.ts';
import { registerQueueMetrics } from './services/queue-metrics.ts';

const here = path.dirname(fileURLToPath(import.meta.url));

/**
 * Publish jobs: static builds of a website. An editor queues one (`POST /publish/jobs`, audit
 * `website.publish`) and may cancel it (`website.publish_cancel`) or retry it; a runner process
 * (`cms publish-runner`, this plugin's command, runner/; bearer PUBLISH_RUNNER_TOKEN) claims it through the runner routes, renders
 * every published page and copies the public files they use into a folder or a bucket, reporting
 * progress and log lines. Runs are scheduled on the kernel queue `publish.runs` (worked by the runners
 * outside: a claim takes its next job, the engine holds the lease). It imports no plugin: the pages and their HTML come from the registry
 * `sitePublishSources` (content), the files from `sitePublishFiles` (assets), see ports.ts.
 */
export default definePlugin({
  id: 'publish',
  processes: ['core-api'],
  needs: ['db', 'audit', 'clock', 'metrics', 'jobs', 'sitePublishSources', 'sitePublishFiles'],
  collects: ['sitePublishSources', 'sitePublishFiles'],
  permissions: PUBLISH_PERMISSIONS,
  config: PublishConfig,
  migrations: path.join(here, 'migrations'),
  setup: (deps) => new PublishJobs(deps),
  enqueues: [RUNS_QUEUE],
  // The runners take back a silent run at their next claim; this moves its row on even when no runner
  // asks again (a website whose only runner died may be queued again within about a minute).
  schedules: [
    { name: 'silent-runs', cron: '* * * * *', run: async ({ services }) => void (await services.takeBackSilentRuns()) },
  ],
  commands: [
    {
      name: 'publish-runner',
      args: '[--once]',
      config: PublishRunnerConfig,
      summary:
        'carry out publish jobs (static builds of websites)\nfrom core-api (PUBLISH_API_URL, PUBLISH_RUNNER_TOKEN)\ninto PUBLISH_OUTPUT_DIR or PUBLISH_S3_BUCKET; --once:\none job (or none), then exit',
      run: async (args) => (await import('./runner/command.ts')).runPublishRunner(args),
    },
  ],
  async onStart({ services, metrics, jobs }) {
    registerQueueMetrics(metrics, jobs);
    await services.scheduleUnscheduled();
  },
  async routes(app, { services, pluginConfig }) {
    await jobRoutes(app, services);
    await runnerRoutes(app, services, pluginConfig.PUBLISH_RUNNER_TOKEN);
  },
});
