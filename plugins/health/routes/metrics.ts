import {
  databaseAnswers,
  nonJsonAnswer,
  unauthorized,
  safeEqual,
  type App,
  type PluginDeps,
} from '../../../kernel/index.ts';

/**
 * GET /metrics, absent (404) unless METRICS_TOKEN is set, then presented as `Authorization: Bearer`
 * and compared in constant time.
 * The route is public to the session layer because the token is its credential.
 */
export async function metricsRoutes(app: App, deps: PluginDeps<'db' | 'metrics' | 'config'>): Promise<void> {
  // `publish_jobs_queued` comes from the publish plugin (core-api), where the queue is.
  const token = deps.config.METRICS_TOKEN;
  // Without a token the route does not exist at all (the router's own 404).
  if (!token) return;
  const exposition = nonJsonAnswer('text/plain', 'The Prometheus text exposition format');
  const schema = { hide: true, response: { 200: exposition } };
  app.get('/metrics', { config: { public: true }, schema }, async (request, reply) => {
    const presented = /^Bearer (.+)$/i.exec(request.headers.authorization ?? '')?.[1] ?? '';
    if (!safeEqual(presented, token)) throw unauthorized('Metrics need the METRICS_TOKEN bearer token');
    deps.metrics.databaseUp.set((await databaseAnswers(deps.db, 2000)) ? 1 : 0);
    return reply.type(deps.metrics.registry.contentType).send(await deps.metrics.registry.metrics());
  });
}
