import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SESSION_COOKIE } from '../../kernel/sessions.ts';
import { sandboxFixturePlugin } from '../fixtures/sandbox-plugin.ts';
import { eventually, startTestKernel, type TestKernel } from '../helpers/kernel.ts';
import { documentedRoutes, minimalValue, type DocumentedRoute } from '../helpers/openapi-routes.ts';

/**
 * Routes the profile must block: the spec's three paths (with everything below, declared blocked whole
 * by identity and data-subject), the fixture's own such path, and the routes that declare it.
 */
const SPEC_BLOCKED_PATHS = ['/security-settings', '/oidc-settings', '/data-subject', '/fixture-sandbox/closed'];
const DECLARED_BLOCKED = new Set([
  'POST /api/v1/dam/assets/{id}/mirror-cdn',
  'POST /fixture-sandbox/send-mail',
  // Mail sent now, and bundles brought in from elsewhere.
  'POST /mail-settings/test',
  'POST /mail-log/{id}/resend',
  'POST /cms-one/websites/import',
  // The asset service's side of data-subject requests (bearer token), blocked like /data-subject.
  'POST /api/v1/dam/data-subject/find',
  'POST /api/v1/dam/data-subject/records',
  'POST /api/v1/dam/data-subject/erase',
  // Reading a migration source (its database and class files).
  'POST /migration-sources/{id}/test',
  'POST /migration-sources/{id}/preview-classes',
  'POST /migration-sources/{id}/import-classes',
  'POST /migration-sources/{id}/extract-components',
  // A design read from Figma, and the token it is read with.
  'POST /figma/import',
  'PUT /figma/settings',
  // AI: every route (the provider is outside; from-ai writes what an AI made).
  'GET /ai/settings',
  'PUT /ai/settings',
  'GET /ai/image-settings',
  'PUT /ai/image-settings',
  'GET /ai/translate-settings',
  'PUT /ai/translate-settings',
  'POST /ai/test-connection',
  'POST /ai/generate',
  'GET /ai/generated',
  'POST /ai/generate-website-structure',
  'POST /ai/generate-image',
  'POST /cms-one/pages/{id}/translate',
  'POST /cms-one/websites/from-ai',
  'POST /migration-sources/{id}/import-objects',
  'POST /migration-sources/import-jobs/{jobId}/resume',
  'POST /migration-sources/{id}/import-documents',
  'POST /migration-sources/{id}/promote-documents',
]);
const mustBeBlocked = (route: DocumentedRoute) =>
  DECLARED_BLOCKED.has(route.label) ||
  SPEC_BLOCKED_PATHS.some((p) => route.path === p || route.path.startsWith(`${p}/`));

/** A local server that counts every TCP connection it accepts (and answers 204 to any request). */
async function countingServer(): Promise<{ server: Server; url: string; connections: () => number }> {
  let connections = 0;
  const server = createServer((_req, res) => res.writeHead(204).end());
  server.on('connection', () => connections++);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    server,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    connections: () => connections,
  };
}

/** A gateway endpoint at `baseUrl` with one POST route, created through the admin API. */
async function endpointWithRoute(t: TestKernel, cookie: string, baseUrl: string) {
  const call = (method: 'POST', url: string, payload: object) =>
    t.inject({ method, url, headers: { cookie }, payload });
  const endpoint = await call('POST', '/api/v1/gateway/endpoints', {
    name: `sandbox-${Date.now()}-${Math.floor(Math.random() * 1e6)}`,
    baseUrl,
    auth: { type: 'none' },
  });
  expect(endpoint.statusCode, endpoint.body).to.equal(201);
  const route = await call('POST', `/api/v1/gateway/endpoints/${endpoint.json().id}/routes`, {
    method: 'POST',
    path: '/hook',
  });
  expect(route.statusCode, route.body).to.equal(201);
  return { endpointId: endpoint.json().id as string, routeId: route.json().id as string };
}

describe('sandbox profile (SANDBOX=1)', function () {
  this.timeout(120_000);
  let t: TestKernel;
  let adminId: string;
  let cookie: string;

  before(async () => {
    t = await startTestKernel({
      service: 'all',
      extraPlugins: [sandboxFixturePlugin],
      // PUBLISH_RUNNER_TOKEN: without it the publish runner routes answer the spec's 503 by design.
      env: {
        SANDBOX: '1',
        PUBLIC_DATA_RATE_LIMIT_PER_MINUTE: '1000000',
        PUBLISH_RUNNER_TOKEN: 'sandbox-publish-runner-token',
      },
    });
    const admin = await t.admin();
    adminId = admin.id;
    cookie = admin.cookie;
  });
  after(() => t?.close());

  it('walks every route of /openapi.json: each blocked one answers 403 SANDBOX_BLOCKED, every other still works', async () => {
    const routes = documentedRoutes((await t.inject({ method: 'GET', url: '/openapi.json' })).json());
    const blocked: string[] = [];
    const problems: string[] = [];
    for (const route of routes) {
      let url = route.path;
      for (const p of route.pathParams)
        url = url.replace(`{${p.name}}`, encodeURIComponent(String(minimalValue(p.schema))));
      const query = new URLSearchParams(
        route.query.filter((q) => q.required).map((q): [string, string] => [q.name, String(minimalValue(q.schema))]),
      ).toString();
      // A session of its own per route, so a logout or password change among them ends nothing else.
      const session = await t.kernel.resolve('sessions').create(adminId, {});
      const body = route.body ? minimalValue(route.body) : undefined;
      const res = await t.inject({
        method: route.method as 'POST',
        url: query ? `${url}?${query}` : url,
        headers: {
          cookie: `${SESSION_COOKIE}=${session.token}`,
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        payload: body === undefined ? undefined : JSON.stringify(body),
      });
      let code: string | undefined;
      try {
        code = res.json()?.code;
      } catch {
        // Not JSON (a CSV page, an empty 204): no code to read.
      }
      if (mustBeBlocked(route)) {
        blocked.push(route.label);
        if (res.statusCode !== 403 || code !== 'SANDBOX_BLOCKED')
          problems.push(`${route.label} must be blocked, answered ${res.statusCode} ${code}`);
      } else if (res.statusCode >= 500 || code === 'SANDBOX_BLOCKED') {
        problems.push(`${route.label} must still work, answered ${res.statusCode} ${code}: ${res.body.slice(0, 200)}`);
      }
    }
    expect(problems).to.deep.equal([]);
    // The walk saw the routes it was about: the spec's three paths and the declared ones.
    expect(blocked).to.include.members([
      'GET /security-settings',
      'PUT /security-settings',
      'GET /oidc-settings',
      'PUT /oidc-settings',
      'GET /security-settings/fixture-probe',
      'PUT /oidc-settings/fixture-probe',
      'GET /data-subject/requests',
      ...DECLARED_BLOCKED,
    ]);
    expect(routes.length).to.be.greaterThan(100);
  });

  it('answers an anonymous caller of a blocked route 401 first, as every session route', async () => {
    const res = await t.inject({ method: 'GET', url: '/security-settings/fixture-probe' });
    expect(res.statusCode).to.equal(401);
  });

  it("applies the plugins' declared sandbox config: numbers capped, null unset, values replaced", async () => {
    const res = await t.inject({ method: 'GET', url: '/fixture-sandbox/config', headers: { cookie } });
    expect(res.json()).to.deep.equal({ FIXTURE_SANDBOX_MAX_ITEMS: 20, FIXTURE_SANDBOX_MODE: 'demo' });
    const assets = t.kernel.resolve('config').plugins.assets as Record<string, unknown>;
    expect(assets).to.include({ ASSET_MAX_FILE_BYTES: 5 * 1024 * 1024, ASSET_MAX_COUNT: 200 });
    // The mail outbox queues (the mail log shows it) but its worker, the only sender, does not run.
    const mail = t.kernel.resolve('config').plugins.mail as Record<string, unknown>;
    expect(mail).to.include({ MAIL_WORKER_ENABLED: false });
  });

  it('opens no outbound connection: gateway calls, event deliveries and mail are attempted, a listening socket sees none', async () => {
    const socket = await countingServer();
    try {
      const { endpointId, routeId } = await endpointWithRoute(t, cookie, socket.url);
      const executed = await t.inject({
        method: 'POST',
        url: `/api/v1/gateway/routes/${routeId}/execute`,
        headers: { cookie },
        payload: {},
      });
      expect(executed.statusCode, executed.body).to.equal(403);
      expect(executed.json().code).to.equal('OUTBOUND_REFUSED');

      const sub = await t.inject({
        method: 'POST',
        url: '/object-event-subscriptions',
        headers: { cookie },
        payload: { name: `sandbox-${Date.now()}`, events: ['object.created'], endpointId, routeId },
      });
      expect(sub.statusCode, sub.body).to.equal(201);
      const className = `Sandboxed${Date.now()}`;
      const cls = await t.inject({
        method: 'POST',
        url: '/data-classes',
        headers: { cookie },
        payload: { name: className, fields: [{ name: 'title', type: 'text', required: true }] },
      });
      expect(cls.statusCode, cls.body).to.equal(201);
      const obj = await t.inject({
        method: 'POST',
        url: '/data-objects',
        headers: { cookie },
        payload: { className, key: 'one', published: false, attributes: { title: 'One' } },
      });
      expect(obj.statusCode, obj.body).to.equal(201);
      // The positive sign: the deliveries queue tried (the attempt is counted when a try begins) and recorded why it sent nothing.
      const row = await eventually(
        async () =>
          (
            await t.db('object_event_deliveries').where({ subscription_id: sub.json().id }).whereNotNull('last_problem')
          )[0] ?? false,
        { timeoutMs: 30_000, what: 'a delivery attempt' },
      );
      expect(row.last_problem).to.match(/sandbox/);

      // Mail: SMTP settings naming the listening socket, a mail queued by a password reset. The outbox
      // worker does not run under the profile; sending the row as the worker (or a mail sent at once)
      // would is refused by the outbound guard before any connection.
      const { email } = await t.admin();
      const port = new URL(socket.url).port;
      const settings = await t.inject({
        method: 'PUT',
        url: '/mail-settings',
        headers: { cookie },
        payload: { provider: 'smtp', smtp: { host: '127.0.0.1', port: Number(port), secure: false } },
      });
      expect(settings.statusCode, settings.body).to.equal(200);
      const reset = await t.inject({ method: 'POST', url: '/auth/forgot-password', payload: { email } });
      expect(reset.statusCode, reset.body).to.equal(202);
      const mail = await eventually(
        async () => (await t.db('mail_outbox').whereRaw('? = any(to_addresses)', [email]).first()) ?? false,
        { timeoutMs: 10_000, what: 'the queued reset mail' },
      );
      const outbox = t.services<{ outbox: { sendNow(id: string): Promise<unknown> } }>('mail').outbox;
      await outbox.sendNow(mail.id);
      const sent = await t.db('mail_outbox').where({ id: mail.id }).first();
      expect(sent.status).to.equal('failed');
      expect(sent.last_error).to.match(/sandbox/);
      expect(socket.connections()).to.equal(0);
    } finally {
      socket.server.close();
    }
  });
});

describe('without the sandbox profile the same declarations change nothing', () => {
  let t: TestKernel;
  before(async () => {
    t = await startTestKernel({ service: 'all', plugins: ['gateway'], extraPlugins: [sandboxFixturePlugin] });
  });
  after(() => t?.close());

  it('the routes a sandbox blocks answer, the config is as configured, and a gateway call connects', async () => {
    const { cookie } = await t.admin();
    for (const [method, url, payload] of [
      ['GET', '/security-settings/fixture-probe'],
      ['PUT', '/oidc-settings/fixture-probe', { issuer: 'x' }],
      ['GET', '/data-subject/requests'],
      ['POST', '/fixture-sandbox/send-mail'],
      ['GET', '/fixture-sandbox/closed/probe'],
    ] as const) {
      const res = await t.inject({ method, url, headers: { cookie }, payload });
      expect(res.statusCode, `${method} ${url}`).to.equal(200);
    }
    const config = await t.inject({ method: 'GET', url: '/fixture-sandbox/config', headers: { cookie } });
    expect(config.json()).to.deep.equal({ FIXTURE_SANDBOX_MAX_ITEMS: 500, FIXTURE_SANDBOX_MODE: 'live' });

    const socket = await countingServer();
    try {
      const { routeId } = await endpointWithRoute(t, cookie, socket.url);
      const executed = await t.inject({
        method: 'POST',
        url: `/api/v1/gateway/routes/${routeId}/execute`,
        headers: { cookie },
        payload: {},
      });
      expect(executed.statusCode, executed.body).to.be.below(300);
      expect(socket.connections()).to.be.at.least(1);
    } finally {
      socket.server.close();
    }
  });
});
