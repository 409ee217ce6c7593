import { expect } from 'chai';
import { SESSION_COOKIE } from '../../kernel/sessions.ts';
import { startTestKernel, type TestKernel } from '../helpers/kernel.ts';
import { documentedRoutes, minimalValue, type DocumentedRoute } from '../helpers/openapi-routes.ts';
import { urlFor } from './bad-input-classes.ts';

const FOREIGN = 'https://attacker.example';
const SERVICE_TOKEN = 'walk-service-token-0123456789';

/**
 * Every state-changing route of the all-in-one process, as its OpenAPI document lists it (a route added
 * later is walked too), sent by a signed-in administrator's browser from a foreign site: the session
 * cookie never authenticates it. A route that needs a session refuses it (403 CSRF_ORIGIN_REFUSED);
 * a public route answers exactly as it answers the same request without the cookie, including routes
 * that read the session or a service token themselves (image processing, form-upload attach, 2FA
 * enrolment).
 */
describe('cross-site writes: the session cookie never authenticates a write from a foreign origin', () => {
  let t: TestKernel;
  let adminId: string;
  let routes: DocumentedRoute[];

  before(async () => {
    t = await startTestKernel({
      service: 'all',
      env: { PUBLIC_DATA_RATE_LIMIT_PER_MINUTE: '1000000', DAM_SERVICE_TOKEN: SERVICE_TOKEN },
    });
    adminId = (await t.admin()).id;
    routes = documentedRoutes((await t.inject({ method: 'GET', url: '/openapi.json' })).json()).filter(
      (r) => !['GET', 'HEAD', 'OPTIONS'].includes(r.method),
    );
  });
  after(() => t.close());

  async function send(route: DocumentedRoute, withCookie: boolean, headers: Record<string, string>) {
    // A session of its own per request: a logout among the routes ends nothing else.
    const cookie = withCookie
      ? { cookie: `theme=dark; ${SESSION_COOKIE}=${(await t.kernel.resolve('sessions').create(adminId, {})).token}` }
      : {};
    const res = await t.inject({
      method: route.method as 'POST',
      url: urlFor(route),
      headers: { ...cookie, ...headers, ...(route.body ? { 'content-type': 'application/json' } : {}) },
      payload: route.body ? JSON.stringify(minimalValue(route.body)) : undefined,
    });
    let code: string | undefined;
    try {
      code = res.json().code;
    } catch {
      // Not JSON: no code.
    }
    return { status: res.statusCode, code, body: res.body.slice(0, 160) };
  }

  for (const via of <Array<Record<string, string>>>[{ origin: FOREIGN }, { referer: `${FOREIGN}/page.html` }]) {
    const what = Object.keys(via)[0];
    it(`refuses or ignores the cookie on every non-GET route (foreign ${what})`, async function () {
      this.timeout(120_000);
      expect(routes.length).to.be.greaterThan(40);
      const failures: string[] = [];
      let refused = 0;
      for (const route of routes) {
        const signedIn = await send(route, true, via);
        if (signedIn.status === 403 && signedIn.code === 'CSRF_ORIGIN_REFUSED') {
          refused++;
          continue;
        }
        const anonymous = await send(route, false, via);
        if (signedIn.status !== anonymous.status || signedIn.code !== anonymous.code)
          failures.push(
            `${route.label}: ${signedIn.status} ${signedIn.code ?? ''} with the cookie, ${anonymous.status} ${anonymous.code ?? ''} without; ${signedIn.body}`,
          );
      }
      expect(failures, failures.join('\n')).to.deep.equal([]);
      expect(refused, 'routes refused with CSRF_ORIGIN_REFUSED').to.be.greaterThan(40);
    });
  }

  it('routes that read the session themselves name the refusal; the service token still works cross-site', async () => {
    const { cookie } = await t.admin();
    for (const url of ['/api/v1/process?width=10', '/api/v1/metadata', '/api/v1/dam/form-uploads/attach']) {
      const res = await t.inject({
        method: 'POST',
        url,
        headers: { cookie, origin: FOREIGN, 'content-type': 'application/json' },
        payload: '{}',
      });
      expect(res.statusCode, url).to.equal(403);
      expect(res.json().code, url).to.equal('CSRF_ORIGIN_REFUSED');
    }
    // The same writes from the workspace's own origin are authenticated by the cookie (400: no image).
    const own = await t.inject({
      method: 'POST',
      url: '/api/v1/metadata',
      headers: { cookie, origin: t.kernel.config.PUBLIC_BASE_URL, 'content-type': 'application/json' },
      payload: '{}',
    });
    expect(own.statusCode, own.body).to.equal(400);
    // A service caller's bearer token is no cookie: a cross-site Origin does not matter to it.
    const service = await t.inject({
      method: 'POST',
      url: '/api/v1/metadata',
      headers: { authorization: `Bearer ${SERVICE_TOKEN}`, origin: FOREIGN, 'content-type': 'application/json' },
      payload: '{}',
    });
    expect(service.statusCode, service.body).to.equal(400);
  });

  it('a public route is still answered cross-site, as to an anonymous visitor', async () => {
    const { cookie } = await t.admin();
    const login = await t.inject({
      method: 'POST',
      url: '/auth/login',
      headers: { cookie, origin: FOREIGN, 'content-type': 'application/json' },
      payload: JSON.stringify({ email: 'nobody@example.test', password: 'wrong-password' }),
    });
    expect(login.statusCode).to.equal(401);
    expect(login.json().code).to.not.equal('CSRF_ORIGIN_REFUSED');
  });
});
