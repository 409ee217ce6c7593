import { Gauge } from 'prom-client';
import type { Jobs, Metrics } from '../../../kernel/index.ts';
import { RUNS_QUEUE } from './jobs.ts';

/**
 * `publish_jobs_queued`: publish jobs waiting for a runner (queued, or handed back by the engine after
 * a silent run), counted in the kernel queue `publish.runs` at each scrape (the spec's "queue depth of
 * publish jobs"). Reported by core-api, where the publish plugin is.
 */
export function registerQueueMetrics(metrics: Metrics, jobs: Jobs): void {
  new Gauge({
    name: 'publish_jobs_queued',
    help: 'Publish jobs waiting for a runner',
    registers: [metrics.registry],
    async collect() {
      this.set((await jobs.depth()).find((d) => d.queue === RUNS_QUEUE)?.waiting ?? 0);
    },
  });
}
