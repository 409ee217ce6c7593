import { Type, type Static } from '@sinclair/typebox';
import { databaseAnswers, type App, type PluginDeps } from '../../../kernel/index.ts';

const started = Date.now();
const HealthBody = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('unavailable')]),
  uptimeSeconds: Type.Integer(),
  database: Type.Optional(Type.Literal('down')),
  audit: Type.Optional(Type.Literal('degraded')),
});

export async function healthRoutes(app: App, deps: PluginDeps<'db' | 'audit' | 'metrics'>): Promise<void> {
  // Readiness: 503 while the database does not answer; recovers by itself (the pool reconnects).
  app.get(
    '/health',
    { config: { public: true }, schema: { tags: ['health'], response: { 200: HealthBody, 503: HealthBody } } },
    async (_request, reply) => {
      const up = await databaseAnswers(deps.db, 2000);
      deps.metrics.databaseUp.set(up ? 1 : 0);
      const body: Static<typeof HealthBody> = {
        status: up ? 'ok' : 'unavailable',
        uptimeSeconds: Math.floor((Date.now() - started) / 1000),
      };
      if (!up) body.database = 'down';
      if (deps.audit.lostRows > 0) body.audit = 'degraded';
      return reply.code(up ? 200 : 503).send(body);
    },
  );

  app.get(
    '/health/live',
    {
      config: { public: true },
      schema: { tags: ['health'], response: { 200: Type.Object({ status: Type.Literal('ok') }) } },
    },
    async () => ({ status: 'ok' as const }),
  );
}
