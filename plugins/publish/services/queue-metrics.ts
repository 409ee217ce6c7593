import { Gauge } from 'prom-client';
import type { Metrics } from '../../../kernel/index.ts';
import type { JobStore } from '../store/jobs.ts';

/**
 * `publish_jobs_queued`: publish jobs waiting for a runner, counted at each scrape (the spec's "queue
 * depth of publish jobs"). Reported by core-api, the process that holds the queue.
 */
export function registerQueueMetrics(metrics: Metrics, store: JobStore): void {
  new Gauge({
    name: 'publish_jobs_queued',
    help: 'Publish jobs waiting for a runner',
    registers: [metrics.registry],
    async collect() {
      this.set(await store.queuedCount());
    },
  });
}
