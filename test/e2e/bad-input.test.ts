import { expect } from 'chai';
import { SESSION_COOKIE } from '../../kernel/sessions.ts';
import { startTestKernel, type TestKernel } from '../helpers/kernel.ts';
import { type OpenAiStandIn, startOpenAiStandIn } from '../helpers/openai-stand-in.ts';
import { documentedRoutes, type DocumentedRoute } from '../helpers/openapi-routes.ts';
import {
  BAD_INPUT_CLASSES,
  EXEMPT,
  KNOWN_FAILURES,
  type Answer,
  type BadInputClass,
  type Probe,
} from './bad-input-classes.ts';

const exempts = (e: (typeof EXEMPT)[number], route: DocumentedRoute, cls: BadInputClass, probe: Probe) =>
  e.route === route.label && e.class === cls.name && (e.probe === undefined || e.probe === probe.what);

/**
 * Routes of the all-in-one process that /openapi.json does not list (`schema: { hide: true }`), so the
 * probes cannot derive inputs for them, each with why and where its bad input is covered instead.
 */
const UNPROBED = new Map<string, string>([
  ['*', "the kernel's CORS preflight answer (OPTIONS), no handler input"],
  ['/openapi.json', 'the document itself; takes no input'],
  ['/metrics', 'no input but the token header; test/kernel/health.test.ts covers a missing and a wrong token'],
  // The admin dashboard's files (plugins/admin-ui): static answers, no API input; serving.test.ts covers them.
  ['/', "the dashboard's index.html"],
  ['/*', "the dashboard's own routes (index.html) and the website preview; every other path is a 404"],
  ['/assets/*', "the dashboard's built files by name"],
  // The log store's service routes (bearer DAM_SERVICE_TOKEN only); plugins/system-logs/test/split.test.ts.
  ...[
    '/api/v1/system/log-store/segments/:service',
    '/api/v1/system/log-store/segments/:service/:name',
    '/api/v1/system/log-store/tail',
    '/api/v1/system/log-store/download',
  ].map(
    (url) =>
      [url, 'a service route of the log store (token only, no session): split.test.ts covers its input'] as const,
  ),
  // The page editor's page (plugins/page-editor): index.html for its own routes; its serving test covers them.
  ['/cms-one/editor', "the page editor's index.html"],
  ['/cms-one/editor/*', "the page editor's own routes (index.html)"],
  ['/cms-one', "a redirect to the page editor's entry (no input)"],
  ['/cms-one/', "a redirect to the page editor's entry (no input)"],
]);

/** Answered before any handler: never the outcome of a probe, unless its class is about that code. */
const KERNEL_CODES = [
  'UNAUTHENTICATED',
  'FORBIDDEN',
  'ROUTE_NOT_FOUND',
  'NUL_CHARACTER',
  'INVALID_JSON',
  'INVALID_TEXT',
  'TOO_DEEP',
];

/**
 * Every route of the all-in-one process, as its OpenAPI document lists it (so a route added later is
 * probed too), gets each class of bad input (bad-input-classes.ts) as a signed-in administrator, and
 * must answer with its own validation: never a 5xx, never the session layer's 401/403.
 */
describe('bad input reaches every handler and gets its own 4xx', () => {
  let t: TestKernel;
  let adminId: string;
  let routes: DocumentedRoute[];
  // The AI routes' provider: a probe that passes validation gets an answer, and nothing leaves the machine.
  let ai: OpenAiStandIn;

  before(async function () {
    // A kernel with every plugin on its own database: well under 30 s, except on a loaded machine.
    this.timeout(120_000);
    ai = await startOpenAiStandIn();
    // A website structure when one is asked for (a JSON schema or a tool), else the echo.
    const structure = {
      name: 'Probe site',
      rootPath: '/probe-site',
      locales: ['en'],
      pages: [{ path: '/', title: 'Home', locale: 'en', content: { type: 'p', text: 'Hello' } }],
      menu: [{ title: 'Home', path: '/' }],
    };
    ai.reply = (req) =>
      req.path === '/chat/completions' && (req.body.response_format || req.body.tools)
        ? { content: JSON.stringify(structure) }
        : {};
    // Probes of the public data routes must not run into the per-address limit.
    // METRICS_TOKEN: /metrics exists only with it (UNPROBED lists it).
    t = await startTestKernel({
      service: 'all',
      env: {
        PUBLIC_DATA_RATE_LIMIT_PER_MINUTE: '1000000',
        PUSH_SUBSCRIBES_PER_MINUTE: '10000',
        METRICS_TOKEN: 'bad-input-metrics-token-0123',
        // Without it the publish runner routes answer the spec's 503 by design.
        PUBLISH_RUNNER_TOKEN: 'bad-input-publish-runner-token',
        AI_OPENAI_BASE_URL: ai.baseUrl,
      },
    });
    adminId = (await t.admin()).id;
    routes = documentedRoutes((await t.inject({ method: 'GET', url: '/openapi.json' })).json());
  });
  after(async () => {
    await t.close();
    await ai.close();
  });

  /** The session the reads share until the next write; a write may end every session of the user. */
  let readSession: string | undefined;

  /**
   * Each write probe on a session of its own, so a logout or password change among the probes ends
   * nothing else; a read (GET) cannot end one, so reads share a session, made again after any write
   * (a session per probe was a third of this file's time).
   */
  async function send(route: DocumentedRoute, probe: Probe): Promise<Answer> {
    const newSession = async () => (await t.kernel.resolve('sessions').create(adminId, {})).token;
    let token: string;
    if (route.method === 'GET') token = readSession ??= await newSession();
    else {
      readSession = undefined;
      token = await newSession();
    }
    const res = await t.inject({
      method: route.method as 'POST',
      url: probe.url,
      headers: {
        cookie: `${SESSION_COOKIE}=${token}`,
        ...(probe.payload !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      payload: probe.payload,
    });
    let parsed: { code?: string; field?: string } = {};
    try {
      parsed = res.json();
    } catch {
      // Not JSON (a CSV page, an empty 204): no code to read.
    }
    return {
      status: res.statusCode,
      code: typeof parsed?.code === 'string' ? parsed.code : undefined,
      field: parsed?.field,
      body: res.body,
    };
  }

  /** The rules every probe's answer follows, whatever its class. */
  function commonRule(answer: Answer, cls: BadInputClass): string | null {
    if (answer.status >= 500) return 'a server error';
    if (answer.code && KERNEL_CODES.includes(answer.code) && !cls.kernelCodes?.includes(answer.code))
      return `answered by the kernel (${answer.code}), not the handler`;
    if (answer.status === 401 || answer.status === 403) {
      // A handler's own 401 (wrong credentials, unknown token) is its answer; the session layer's is not.
      if (!answer.code || answer.code === 'UNAUTHENTICATED' || answer.code === 'FORBIDDEN')
        return 'refused by the session layer';
    }
    return null;
  }

  async function probeClass(cls: BadInputClass): Promise<{ probed: Set<string>; failures: string[] }> {
    const probed = new Set<string>();
    const failures: string[] = [];
    const known = KNOWN_FAILURES.filter((k) => k.class === cls.name);
    const knownSeen = new Set<(typeof known)[number]>();
    for (const route of routes) {
      for (const probe of cls.probes(route)) {
        probed.add(route.label);
        const answer = await send(route, probe);
        const exemption = EXEMPT.find((e) => exempts(e, route, cls, probe));
        const why = commonRule(answer, cls) ?? (exemption ? null : probe.expect(answer));
        const knownFailure = known.find((k) => k.route === route.label && k.probe === probe.what);
        if (knownFailure) {
          knownSeen.add(knownFailure);
          if (why && answer.status === knownFailure.status) continue;
          failures.push(
            `${route.label} ${probe.what}: listed as a known failure (${knownFailure.issue}) but answered ${answer.status}; update KNOWN_FAILURES`,
          );
          continue;
        }
        if (why)
          failures.push(
            `${route.label} ${probe.what} -> ${answer.status} ${answer.code ?? ''} ${answer.field ?? ''}: ${why}; ${answer.body.slice(0, 160)}`,
          );
      }
    }
    for (const k of known) if (!knownSeen.has(k)) failures.push(`known failure never probed: ${k.route} ${k.probe}`);
    return { probed, failures };
  }

  for (const cls of BAD_INPUT_CLASSES) {
    it(`${cls.name}: each route answers with its own validation`, async function () {
      this.timeout(120_000);
      const { probed, failures } = await probeClass(cls);
      expect(probed.size, 'routes this class applies to').to.be.greaterThan(0);
      expect(failures, failures.join('\n')).to.deep.equal([]);
    });
  }

  it('every mounted route is in the OpenAPI document (so the classes above probe it) or listed as unprobed with a reason', () => {
    const documented = new Set(routes.map((r) => r.path));
    // Fastify's `:name` and trailing `*` are OpenAPI's `{name}` and `{*}`.
    const asDocumented = (url: string) => url.replace(/:([A-Za-z0-9_]+)/g, '{$1}').replace(/\*$/, '{*}');
    const mounted = t.kernel.resolve('mountedRoutes').paths();
    const unlisted = mounted.filter((url) => !documented.has(asDocumented(url)) && !UNPROBED.has(url));
    expect(unlisted, 'mounted routes the probe cannot see').to.deep.equal([]);
    expect(
      [...UNPROBED.keys()].filter((url) => !mounted.includes(url)),
      'stale UNPROBED entries',
    ).to.deep.equal([]);
  });

  it('probes every documented route, and every exemption and known failure names a probe that exists', () => {
    expect(routes.length).to.be.greaterThan(50);
    // Each route's probes are made once (building them is the costly part; the checks below ask often).
    const made = new Map(
      routes.map((route) => [
        route,
        BAD_INPUT_CLASSES.flatMap((cls) => cls.probes(route).map((probe) => ({ cls, probe }))),
      ]),
    );
    const probesOf = (route: DocumentedRoute) => made.get(route)!;
    expect(routes.filter((route) => probesOf(route).length === 0).map((r) => r.label)).to.deep.equal([]);
    const stale = [
      ...EXEMPT.filter(
        (e) => !routes.some((route) => probesOf(route).some(({ cls, probe }) => exempts(e, route, cls, probe))),
      ),
      ...KNOWN_FAILURES.filter(
        (k) =>
          !routes.some(
            (route) =>
              route.label === k.route &&
              probesOf(route).some(({ cls, probe }) => cls.name === k.class && probe.what === k.probe),
          ),
      ),
    ];
    expect(stale).to.deep.equal([]);
  });

  it('refuses the NUL character, which the database cannot store, with 400 naming the field, also inside attributes and nested keys', async () => {
    const { cookie } = await t.admin();
    const call = (method: string, url: string, payload?: unknown) =>
      t.inject({
        method: method as 'POST',
        url,
        headers: { cookie, 'content-type': 'application/json' },
        payload: payload === undefined ? undefined : JSON.stringify(payload),
      });
    const cls = await call('POST', '/data-classes', {
      name: `NulProbe_${Date.now().toString(36)}`,
      fields: [
        { name: 'title', type: 'text' },
        { name: 'meta', type: 'json' },
      ],
    });
    expect(cls.statusCode).to.equal(201);
    const cases: Array<[string, string, unknown, string | undefined]> = [
      ['POST', '/auth/login', { email: 'a\u0000@x.y', password: 'password' }, 'email'],
      ['POST', '/auth/roles', { name: 'r\u0000', permissions: [] }, 'name'],
      ['POST', '/data-objects', { classId: cls.json().id, attributes: { title: 'a\u0000b' } }, 'attributes.title'],
      [
        'POST',
        '/data-objects',
        { classId: cls.json().id, attributes: { meta: { 'x\u0000': 1 } } },
        'attributes.meta.x\u0000',
      ],
      [
        'POST',
        '/data-objects/bulk',
        { classId: cls.json().id, objects: [{ attributes: { title: '\u0000' } }] },
        'objects.0.attributes.title',
      ],
      ['POST', '/public/data-objects/query', { className: 'Nul\u0000Probe' }, 'className'],
      ['GET', `/public/data-objects?className=${cls.json().name}&title=%00`, undefined, 'title'],
      ['GET', '/audit-log?action=%00', undefined, 'action'],
    ];
    for (const [method, url, body, field] of cases) {
      const res = await call(method, url, body);
      expect(res.statusCode, `${method} ${url}`).to.equal(400);
      expect(res.json(), `${method} ${url}`).to.include({ code: 'NUL_CHARACTER', field });
    }
    expect(await t.db('data_objects').where({ class_id: cls.json().id }).count({ n: '*' }).first()).to.deep.equal({
      n: 0,
    });
  });
});
