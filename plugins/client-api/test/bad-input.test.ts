import { expect } from 'chai';
import { BAD_INPUT_CLASSES, type Answer } from '../../../test/e2e/bad-input-classes.ts';
import { documentedRoutes, type DocumentedRoute } from '../../../test/helpers/openapi-routes.ts';
import { fixtureCatalog } from './fixture-catalog.ts';
import { startClientKernel, type ClientKernel } from './helpers.ts';

/**
 * The project's bad-input classes against every /client/v1 route, sent with a client key whose scopes
 * reach every class, endpoint and route: each answer must be the route's own 4xx (never a 5xx, never
 * the client authentication's 401/403). The project-wide probe (test/e2e/bad-input.test.ts) signs in
 * with a staff session, which this surface ignores by design.
 */
describe('client-api: bad input on /client/v1 reaches every handler', () => {
  let k: ClientKernel;
  let key: string;
  let routes: DocumentedRoute[];

  before(async () => {
    k = await startClientKernel({
      extraPlugins: [fixtureCatalog([]).plugin],
      env: { CLIENT_DEFAULT_REQUESTS_PER_MINUTE: '1000000' },
    });
    key = (
      await k.createClient({ scopes: ['data:read:*', 'data:write:*', 'gateway:call:crm', 'automation:run:crm:*'] })
    ).key;
    routes = documentedRoutes((await k.t.inject({ method: 'GET', url: '/openapi.json' })).json()).filter((r) =>
      r.path.startsWith('/client/v1/'),
    );
  });
  after(() => k?.close());

  it('documents the client routes', () => {
    expect(routes.map((r) => r.label)).to.include.members([
      'GET /client/v1/me',
      'GET /client/v1/data/{class}',
      'GET /client/v1/data/{class}/{id}',
      'POST /client/v1/data/{class}',
      'PATCH /client/v1/data/{class}/{id}',
      'POST /client/v1/automations/{endpoint}/{*}',
      'GET /client/v1/gateway/{endpoint}/{*}',
    ]);
  });

  for (const cls of BAD_INPUT_CLASSES) {
    it(`${cls.name}: each route answers with its own validation`, async function () {
      this.timeout(120_000);
      const failures: string[] = [];
      for (const route of routes) {
        for (const probe of cls.probes(route)) {
          const res = await k.t.inject({
            method: route.method as 'POST',
            url: probe.url,
            headers: {
              'x-cms-key': key,
              ...(probe.payload !== undefined ? { 'content-type': 'application/json' } : {}),
            },
            payload: probe.payload,
          });
          let parsed: { code?: string; field?: string } = {};
          try {
            parsed = res.json();
          } catch {
            // `Not found` is plain text.
          }
          const answer: Answer = {
            status: res.statusCode,
            code: typeof parsed?.code === 'string' ? parsed.code : undefined,
            field: parsed?.field,
            body: res.body,
          };
          const why =
            answer.status >= 500
              ? 'a server error'
              : answer.status === 401 || answer.status === 403
                ? 'refused by client authentication'
                : probe.expect(answer);
          if (why)
            failures.push(
              `${route.label} ${probe.what} -> ${answer.status} ${answer.code ?? ''} ${answer.field ?? ''}: ${why}; ${answer.body.slice(0, 160)}`,
            );
        }
      }
      expect(failures, failures.join('\n')).to.deep.equal([]);
    });
  }
});
