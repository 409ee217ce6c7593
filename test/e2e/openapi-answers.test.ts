import { expect } from 'chai';
import { pino } from 'pino';
import { PLUGINS_AWAITING_ANSWER_SCHEMAS } from '../../kernel/answer-schemas.ts';
import { createKernel, type Kernel } from '../../kernel/kernel.ts';
import { discoverPlugins } from '../../kernel/loader.ts';
import type { AnyPluginManifest } from '../../kernel/plugin.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { testEnv } from '../kernel/boot.ts';

interface Operation {
  responses?: Record<string, { description?: string; content?: Record<string, { schema?: unknown }> }>;
}

/** `GET /t/{id}` for the route `GET /t/:id`, as /openapi.json names it. */
const openApiPath = (url: string) => url.replace(/:([A-Za-z0-9_]+)/g, '{$1}').replace(/\*$/, '{*}');

/** True when the answer is declared: a body schema, or an answer without one that says what it means. */
const declared = (answer: { description?: string; content?: Record<string, { schema?: unknown }> }) =>
  answer.content !== undefined
    ? Object.values(answer.content).every((c) => c.schema !== undefined)
    : answer.description !== undefined && answer.description !== 'Default Response';

describe('/openapi.json: every operation declares its answers', () => {
  let kernel: Kernel;
  let close: () => Promise<void>;
  /** Operations of the plugins whose schemas have not landed yet (`PLUGINS_AWAITING_ANSWER_SCHEMAS`). */
  const awaiting = new Set<string>();

  before(async () => {
    // Every plugin, the awaiting ones with a hook that notes their routes so the check can skip exactly those.
    const plugins = (await discoverPlugins()).map((plugin): AnyPluginManifest => {
      const routes = plugin.routes;
      if (!PLUGINS_AWAITING_ANSWER_SCHEMAS.has(plugin.id) || !routes) return plugin;
      return {
        ...plugin,
        routes: (app, ctx) => {
          app.addHook('onRoute', (route) => {
            for (const method of [route.method].flat()) awaiting.add(`${method} ${openApiPath(route.url)}`);
          });
          return routes(app, ctx);
        },
      };
    });
    const database = await createTestDatabase();
    kernel = await createKernel({
      service: 'all',
      plugins,
      env: testEnv(),
      jobs: false,
      database,
      logger: pino({ level: 'silent' }),
    });
    close = async () => {
      await kernel.close();
      await database.close();
    };
  });
  after(() => close?.());

  it('has a 2xx or 3xx answer schema and the error body on every operation', async () => {
    const res = await kernel.app.inject({ method: 'GET', url: '/openapi.json' });
    const doc = res.json() as { paths: Record<string, Record<string, Operation>> };
    const missing: string[] = [];
    let checked = 0;
    for (const [path, operations] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(operations)) {
        const label = `${method.toUpperCase()} ${path}`;
        if (awaiting.has(label)) continue;
        checked++;
        const responses = op.responses ?? {};
        const success = Object.entries(responses).filter(([code]) => /^[23]/.test(code));
        if (success.length === 0 || !success.every(([, answer]) => declared(answer)))
          missing.push(`${label}: no answer schema`);
        for (const range of ['4XX', '5XX'])
          if (!responses[range]?.content?.['application/json']?.schema)
            missing.push(`${label}: no ${range} error body`);
      }
    }
    expect(checked, 'operations checked').to.be.greaterThan(150);
    expect(missing).to.deep.equal([]);
  });
});
