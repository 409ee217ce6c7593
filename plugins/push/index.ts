import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { definePlugin, type JobRun } from '../../kernel/index.ts';
import { PushConfig } from './config.ts';
import { PUSH_PERMISSIONS } from './permissions.ts';
import { pushRoutes } from './routes.ts';
import { type PushDeps, PushService, SENDS_QUEUE } from './services.ts';

const here = path.dirname(fileURLToPath(import.meta.url));

/**
 * Web Push for websites (`/pwa/subscribe`, `/pwa/send`): visitors' browsers subscribe per website,
 * editors with `push:send` send a notification to every subscriber. VAPID keys are generated once and
 * kept (the private key sealed when INTEGRATION_SECRETS_ENCRYPTION_KEY is set, never returned);
 * subscriptions the push service reports gone (404, 410) are removed.
 */
export default definePlugin({
  id: 'push',
  processes: ['core-api'],
  // `outboundGuard`: a subscription's endpoint is checked against the outbound policy when stored.
  // `jobs`: each /pwa/send runs in the background (queue `push.sends`), within its budget.
  needs: ['db', 'clock', 'config', 'secretBox', 'outboundGuard', 'jobs'],
  // `outboundFetch` (gateway plugin): messages go out under the outbound HTTP policy;
  // `websiteUploadRules` (assets plugin's registry, filled by the content plugin): which websites exist.
  optional: ['outboundFetch', 'websiteUploadRules'],
  permissions: PUSH_PERMISSIONS,
  config: PushConfig,
  migrations: path.join(here, 'migrations'),
  setup: (deps: PushDeps) => new PushService(deps),
  onStart: ({ services }) => services.ensureKeys(),
  routes: pushRoutes,
  queues: [
    {
      name: SENDS_QUEUE,
      concurrency: 2,
      // The budget bounds the send; the margin covers reading subscribers and writing the outcome.
      timeoutMs: ({ pluginConfig }) => (pluginConfig.PUSH_SEND_BUDGET_SECONDS + 60) * 1000,
      // One try: a second would send every message again.
      retryWaitsMs: [],
      run: (job, { services }) => services.runSend(job as JobRun<{ sendId: string }>),
      onFailure: (job, failure, trx, { services }) =>
        services.sendFailed((job.payload as { sendId: string }).sendId, failure.problem, trx),
    },
  ],
});
