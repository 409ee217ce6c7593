import { Gauge } from 'prom-client';
import type { Db, Metrics } from '../../../kernel/index.ts';
import { countQueuedDeliveries } from '../store/delivery-store.ts';

/**
 * `object_event_deliveries_queued{status}`: deliveries waiting to be sent (pending, or retrying after a
 * failed try), counted at each scrape. Every process that loads this plugin reports it; the number is
 * the one queue in the database, whichever process answers.
 */
export function registerQueueMetrics(metrics: Metrics, db: Db): void {
  new Gauge({
    name: 'object_event_deliveries_queued',
    help: 'Event deliveries waiting to be sent, by status (pending, retrying)',
    labelNames: ['status'] as const,
    registers: [metrics.registry],
    async collect() {
      const counts = await countQueuedDeliveries(db);
      for (const status of ['pending', 'retrying']) this.set({ status }, counts.get(status) ?? 0);
    },
  });
}
