import { expect } from 'chai';
import type { LightMyRequestResponse } from 'fastify';
import { startTestKernel, type TestKernel, type TestUser } from '../helpers/kernel.ts';

const BROWSER = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };
const RUNNER_TOKEN = 'html-answers-runner-token-0123456789';

/** The policy's directives by name (`script-src` → `'self'`). */
function directives(res: LightMyRequestResponse): Map<string, string> {
  const csp = res.headers['content-security-policy'];
  expect(csp, `${res.statusCode} ${res.body.slice(0, 200)}`).to.be.a('string');
  return new Map(
    String(csp)
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .map(([name, ...sources]) => [name, sources.join(' ')]),
  );
}

/** What every HTML document of the product holds: no plugin, no `<base>`, nosniff, a framing policy. */
function expectDocumentBasics(res: LightMyRequestResponse, what: string): Map<string, string> {
  expect(res.headers['content-type'], what).to.match(/^text\/html/);
  const csp = directives(res);
  expect(csp.get('object-src'), what).to.equal("'none'");
  expect(csp.get('base-uri'), what).to.be.oneOf(["'none'", "'self'"]);
  expect(csp.get('frame-ancestors'), what).to.be.oneOf(["'none'", "'self'"]);
  expect(res.headers['x-frame-options'], what).to.equal(
    csp.get('frame-ancestors') === "'self'" ? 'SAMEORIGIN' : 'DENY',
  );
  expect(res.headers['x-content-type-options'], what).to.equal('nosniff');
  // No document allows inline script or eval, whatever else it allows.
  for (const directive of ['script-src', 'default-src']) {
    expect(csp.get(directive) ?? '', `${what} ${directive}`).not.to.match(/unsafe-inline|unsafe-eval|\*|data:/);
  }
  return csp;
}

/** A website page and its 404: scripts of this origin only, inline styles, framed by this origin only. */
function expectPagePolicy(res: LightMyRequestResponse, what: string): void {
  const csp = expectDocumentBasics(res, what);
  expect(csp.get('script-src'), what).to.equal("'self'");
  expect(csp.get('base-uri'), what).to.equal("'none'");
  expect(csp.get('frame-ancestors'), what).to.equal("'self'");
  expect(csp.get('style-src'), what).to.contain("'unsafe-inline'");
  expect(csp.get('connect-src'), what).to.equal("'self'");
}

/** The editor's canvases: sandboxed, nothing runs, framed by this origin only. */
function expectCanvasPolicy(res: LightMyRequestResponse, what: string): void {
  expect(res.statusCode, `${what}: ${res.body}`).to.equal(200);
  const csp = expectDocumentBasics(res, what);
  expect(csp.has('sandbox'), what).to.equal(true);
  expect(csp.get('default-src'), what).to.equal("'none'");
  expect(csp.has('script-src'), what).to.equal(false);
  expect(csp.get('frame-ancestors'), what).to.equal("'self'");
}

/** Everything else (error pages): nothing runs, nothing frames it. */
function expectStrictPolicy(res: LightMyRequestResponse, what: string): void {
  const csp = expectDocumentBasics(res, what);
  expect(csp.get('default-src'), what).to.equal("'none'");
  expect(csp.has('script-src'), what).to.equal(false);
  expect(csp.get('frame-ancestors'), what).to.equal("'none'");
}

/**
 * Every route of the product that answers HTML, in one process (the all-in-one service), answers it
 * with a Content-Security-Policy, a framing policy and nosniff: website pages at `/<root>/<path>`
 * and on the public page routes, their 404 documents, the editor's canvases, the single sign-on error
 * page, the runner's page, the dashboard and the editor. A new HTML operation in /openapi.json that
 * this file does not visit fails the last test.
 */
describe('every HTML answer carries a document policy (CSP, framing, nosniff)', function () {
  this.timeout(120_000);
  let t: TestKernel;
  let admin: TestUser;
  let root: string;
  let site: { id: string };
  let page: { id: string };
  const visited = new Set<string>();
  const visit = async (method: string, route: string, url: string, body?: unknown, headers = BROWSER) => {
    visited.add(`${method} ${route}`);
    return t.call(method, url, admin, body, headers);
  };

  before(async () => {
    t = await startTestKernel({ service: 'all', env: { PUBLISH_RUNNER_TOKEN: RUNNER_TOKEN } });
    admin = await t.admin();
    root = `/policy${Date.now().toString(36)}`;
    const created = await t.call('POST', '/cms-one/websites', admin, {
      name: 'Policy',
      rootPath: root,
      locales: ['en'],
    });
    expect(created.statusCode, created.body).to.equal(201);
    site = created.json();
    const cls = await t.call('POST', '/data-classes', admin, {
      name: `PolicyLead${Date.now().toString(36)}`,
      fields: [{ name: 'email', type: 'text', label: 'E-mail', required: true }],
    });
    expect(cls.statusCode, cls.body).to.equal(201);
    const made = await t.call('POST', '/cms-one/pages', admin, {
      websiteId: site.id,
      locale: 'en',
      path: '/about',
      title: 'About',
      published: true,
      content: {
        type: 'section',
        props: { style: { color: 'red' } },
        children: [
          { type: 'h1', text: 'About' },
          { type: 'form', props: { classId: cls.json().id } },
        ],
      },
    });
    expect(made.statusCode, made.body).to.equal(201);
    page = made.json();
  });
  after(() => t?.close());

  it('a website page at /<root>/<path> and on both public page routes, and their 404 documents', async () => {
    const live = await visit('GET', '/*', `${root}/about`);
    expect(live.statusCode, live.body).to.equal(200);
    expectPagePolicy(live, 'the live page');
    // The document runs no inline script: its only script is the form block's file of this origin.
    const scripts = [...live.body.matchAll(/<script\b([^>]*)>/g)].map((m) => m[1]);
    expect(scripts).to.deep.equal([' src="/public/content/form-block.js" defer']);
    expect(live.body).not.to.match(/\son[a-z]+=/i);
    // The form block's script is served as a script, never sniffed as anything else.
    const script = await t.call('GET', '/public/content/form-block.js', null);
    expect(script.headers['content-type']).to.match(/^text\/javascript/);
    expect(script.headers['x-content-type-options']).to.equal('nosniff');

    const byLocale = await visit('GET', '/public/pages/{locale}/{*}', `/public/pages/en${root}/about`);
    expect(byLocale.statusCode).to.equal(200);
    expectPagePolicy(byLocale, '/public/pages');
    const byPath = await visit('GET', '/public/page/{*}', `/public/page${root}/about`);
    expect(byPath.statusCode).to.equal(200);
    expectPagePolicy(byPath, '/public/page');

    for (const url of [`${root}/nowhere`, `/public/page${root}/nowhere`, `/public/pages/en${root}/nowhere`]) {
      const missing = await t.call('GET', url, null, undefined, BROWSER);
      expect(missing.statusCode, url).to.equal(404);
      expect(missing.body, url).to.contain('Page not found');
      expectPagePolicy(missing, `404 document at ${url}`);
    }
    // JSON answers of the same routes need no document policy, but are never sniffed either.
    const json = await t.call('GET', `/public/page${root}/about`, null);
    expect(json.headers['content-type']).to.match(/^application\/json/);
    expect(json.headers['x-content-type-options']).to.equal('nosniff');
  });

  it("the editor's canvases of pages, snippets, templates and layouts", async () => {
    expectCanvasPolicy(
      await visit('POST', '/cms-one/pages/{id}/canvas', `/cms-one/pages/${page.id}/canvas`, {}),
      'page canvas',
    );
    const snippet = await t.call('POST', '/cms-one/snippets', admin, {
      websiteId: site.id,
      name: `policy${Date.now().toString(36)}`,
      content: { type: 'p', text: 'Snippet' },
    });
    expect(snippet.statusCode, snippet.body).to.equal(201);
    expectCanvasPolicy(
      await visit('POST', '/cms-one/snippets/{id}/canvas', `/cms-one/snippets/${snippet.json().id}/canvas`, {}),
      'snippet canvas',
    );
    const template = await t.call('POST', '/cms-one/templates', admin, {
      path: `/policy${Date.now().toString(36)}`,
      name: 'Policy template',
      content: { type: 'section', children: [{ type: 'h2', text: 'Hero' }] },
    });
    expect(template.statusCode, template.body).to.equal(201);
    expectCanvasPolicy(
      await visit('POST', '/cms-one/templates/{id}/canvas', `/cms-one/templates/${template.json().id}/canvas`, {}),
      'template canvas',
    );
    const layout = await t.call('POST', `/cms-one/websites/${site.id}/templates`, admin, {
      name: 'Main',
      regions: { header: { type: 'p', text: 'Header' } },
    });
    expect(layout.statusCode, layout.body).to.equal(201);
    expectCanvasPolicy(
      await visit(
        'POST',
        '/cms-one/websites/{websiteId}/templates/{id}/canvas',
        `/cms-one/websites/${site.id}/templates/${layout.json().id}/canvas`,
        {},
      ),
      'layout canvas',
    );
  });

  it('the single sign-on error page and the runner page', async () => {
    // Single sign-on is not configured: a browser starting it gets the HTML error page.
    const start = await t.call('GET', '/auth/oidc/start', null, undefined, BROWSER);
    expect(start.statusCode).to.be.within(400, 599);
    expect(start.body).to.contain('Sign-in failed');
    expectStrictPolicy(start, 'single sign-on start error page');
    const callback = await t.call('GET', '/auth/oidc/callback?state=x&code=y', null, undefined, BROWSER);
    expect(callback.body).to.contain('Sign-in failed');
    expectStrictPolicy(callback, 'single sign-on callback error page');

    const queued = await t.call('POST', '/publish/jobs', admin, { websiteId: site.id });
    expect(queued.statusCode, queued.body).to.equal(202);
    const runner = (method: 'GET' | 'POST', url: string, claim?: string, payload?: object) =>
      t.inject({
        method,
        url,
        payload,
        headers: { authorization: `Bearer ${RUNNER_TOKEN}`, ...(claim ? { 'x-publish-claim': claim } : {}) },
      });
    const claimed = await runner('POST', '/publish/jobs/claim', undefined, { runner: 'policy' });
    expect(claimed.statusCode, claimed.body).to.equal(200);
    visited.add('GET /publish/jobs/{id}/runner/page');
    const built = await runner(
      'GET',
      `/publish/jobs/${queued.json().id}/runner/page?locale=en&path=/about`,
      claimed.json().claim,
    );
    expect(built.statusCode, built.body).to.equal(200);
    expectStrictPolicy(built, 'runner page');
  });

  it("the dashboard's and the editor's pages", async () => {
    for (const url of ['/', '/sign-in', '/admin/users', '/cms-one/editor', `/cms-one/editor/pages/${page.id}`]) {
      const res = await t.call('GET', url, null, undefined, BROWSER);
      expect(res.statusCode, url).to.be.oneOf([200, 503]);
      const csp = expectDocumentBasics(res, url);
      expect(csp.get('script-src'), url).to.equal("'self'");
      expect(csp.get('frame-ancestors'), url).to.equal("'none'");
    }
  });

  it('no HTML operation of /openapi.json is left unvisited', async () => {
    const doc = (await t.call('GET', '/openapi.json', null)).json() as {
      paths: Record<string, Record<string, { responses?: Record<string, { content?: Record<string, unknown> }> }>>;
    };
    const html: string[] = [];
    for (const [route, operations] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        const answers = Object.values(operation.responses ?? {});
        if (answers.some((a) => a.content && Object.hasOwn(a.content, 'text/html')))
          html.push(`${method.toUpperCase()} ${route}`);
      }
    }
    expect(html.length).to.be.greaterThan(0);
    expect(html.filter((op) => !visited.has(op))).to.deep.equal([]);
  });
});
