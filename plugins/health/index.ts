import { definePlugin } from '../../kernel/index.ts';
import { healthRoutes } from './routes/health.ts';
import { metricsRoutes } from './routes/metrics.ts';

/**
 * Liveness, readiness and Prometheus metrics. Every service answers these, so the plugin belongs to
 * all three; it stores nothing.
 */
export default definePlugin({
  id: 'health',
  processes: ['core-api', 'asset-processor', 'gateway'],
  needs: ['db', 'audit', 'metrics', 'config'],
  async routes(app, deps) {
    await healthRoutes(app, deps);
    await metricsRoutes(app, deps);
  },
});
