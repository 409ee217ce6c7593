import {
  databaseAnswers,
  notFound,
  unauthorized,
  safeEqual,
  type App,
  type PluginDeps,
} from '../../../kernel/index.ts';

/**
 * GET /metrics, off (404) unless METRICS_TOKEN is set, then presented as `Authorization: Bearer`.
 * The route is public to the session layer because the token is its credential.
 */
export async function metricsRoutes(app: App, deps: PluginDeps<'db' | 'metrics' | 'config'>): Promise<void> {
  app.get('/metrics', { config: { public: true }, schema: { hide: true } }, async (request, reply) => {
    const token = deps.config.METRICS_TOKEN;
    if (!token) throw notFound('Metrics are off: set METRICS_TOKEN');
    const presented = /^Bearer (.+)$/i.exec(request.headers.authorization ?? '')?.[1] ?? '';
    if (!safeEqual(presented, token)) throw unauthorized('Metrics need the METRICS_TOKEN bearer token');
    deps.metrics.databaseUp.set((await databaseAnswers(deps.db, 2000)) ? 1 : 0);
    return reply.type(deps.metrics.registry.contentType).send(await deps.metrics.registry.metrics());
  });
}
