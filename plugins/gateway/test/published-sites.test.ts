import { expect } from 'chai';
import { ManualClock } from '../../../kernel/clock.ts';
import { publishedSitesFixture } from './fixtures/published-sites/index.ts';
import { startGatewayKernel } from './helpers.ts';
import { startUpstream, type Upstream } from '../../../test/helpers/upstream.ts';

interface Fixture {
  addWebsite(siteKey: string | null): Promise<string>;
  addBinding(b: Record<string, unknown>): Promise<string>;
  allowPreview(userId: string): void;
}

describe('published sites: /api/v1/gateway/resolve and /submit through bindings', () => {
  let g: Awaited<ReturnType<typeof startGatewayKernel>>;
  let up: Upstream;
  let sites: Fixture;
  const clock = new ManualClock();
  let endpointId: string;
  let getRoute: string;
  let postRoute: string;

  before(async () => {
    up = await startUpstream();
    g = await startGatewayKernel({
      extraPlugins: [publishedSitesFixture],
      clock,
      env: { GATEWAY_PUBLIC_RATE_LIMIT_PER_MINUTE: '1000' },
    });
    sites = g.t.kernel.pluginDeps('test-published-sites').services as Fixture;
    const ep = await g.createEndpoint({ baseUrl: up.url, auth: { type: 'bearer', token: 'upstream-secret' } });
    endpointId = ep.id;
    getRoute = (await g.createRoute(ep.id, 'GET', '/news/{section}')).id;
    postRoute = (await g.createRoute(ep.id, 'POST', '/forms/{form}')).id;
  });
  after(async () => {
    await g.t.close();
    await up.close();
  });
  beforeEach(() => {
    up.requests.length = 0;
    up.handle((req, res) => {
      res.setHeader('content-type', 'application/json');
      if (req.method === 'POST') {
        const fields = JSON.parse(req.body).fields ?? JSON.parse(req.body);
        if (fields.answer === 'plain') return void res.end(JSON.stringify('thanks_1'));
        if (fields.answer === 'text') return void res.end('subscribed');
        if (fields.answer === 'long') return void res.end(JSON.stringify('x'.repeat(33)));
        if (fields.answer === 'fail') {
          res.statusCode = 422;
          return void res.end(JSON.stringify({ error: 'email missing' }));
        }
        return void res.end(JSON.stringify({ received: fields }));
      }
      res.end(
        JSON.stringify({
          items: [
            { id: 1, title: 'One', body: 'x' },
            { id: 2, title: 'Two', body: 'y' },
            { id: 3, title: 'Three' },
          ],
          url: req.url,
        }),
      );
    });
  });

  const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
    g.call('POST', url, null, body, headers);

  it('resolve: calls the bound route with the stored parameters and applies the result filter; public, with CORS', async () => {
    const website = await sites.addWebsite(null);
    const id = await sites.addBinding({
      websiteId: website,
      endpointId,
      routeId: getRoute,
      parameters: { path: { section: 'sport' }, query: { lang: 'en' } },
      resultFilter: { path: 'items', pick: ['title'], limit: 2 },
      mode: 'resolve',
    });
    const res = await post(
      '/api/v1/gateway/resolve',
      { gatewayBindingId: id },
      { origin: 'https://some-site.example', cookie: 'cms_session=abc', authorization: 'Bearer visitor' },
    );
    expect(res.statusCode).to.equal(200);
    expect(res.json()).to.deep.equal({ data: [{ title: 'One' }, { title: 'Two' }] });
    expect(res.headers['access-control-allow-origin']).to.equal('*');
    expect(res.headers['access-control-allow-credentials']).to.equal(undefined);
    const seen = up.requests[0]!;
    expect(seen.url).to.equal('/news/sport?lang=en');
    expect(seen.headers.authorization).to.equal('Bearer upstream-secret');
    expect(seen.headers.cookie).to.equal(undefined);
    expect(res.body).not.to.contain('upstream-secret');
  });

  it('answers a browser preflight that asks for X-Cms-Site-Key', async () => {
    const res = await g.t.inject({
      method: 'OPTIONS',
      url: '/api/v1/gateway/resolve',
      headers: {
        origin: 'https://some-site.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type,x-cms-site-key',
      },
    });
    expect(res.statusCode).to.equal(204);
    expect(res.headers['access-control-allow-origin']).to.equal('*');
    expect(String(res.headers['access-control-allow-headers'])).to.contain('x-cms-site-key');
  });

  it('asks for the site key when the website has one (header X-Cms-Site-Key or body siteKey): 401 without or wrong', async () => {
    const website = await sites.addWebsite('site-key-123');
    const id = await sites.addBinding({
      websiteId: website,
      endpointId,
      routeId: getRoute,
      parameters: { path: { section: 'a' } },
      resultFilter: null,
      mode: 'resolve',
    });
    const missing = await post('/api/v1/gateway/resolve', { gatewayBindingId: id });
    expect(missing.statusCode).to.equal(401);
    expect(missing.json().code).to.equal('SITE_KEY_INVALID');
    expect(
      (await post('/api/v1/gateway/resolve', { gatewayBindingId: id }, { 'x-cms-site-key': 'wrong' })).statusCode,
    ).to.equal(401);
    expect(up.requests).to.have.length(0);
    expect(
      (await post('/api/v1/gateway/resolve', { gatewayBindingId: id }, { 'x-cms-site-key': 'site-key-123' }))
        .statusCode,
    ).to.equal(200);
    expect(
      (await post('/api/v1/gateway/resolve', { gatewayBindingId: id, siteKey: 'site-key-123' })).statusCode,
    ).to.equal(200);
    // The site key never reaches the upstream.
    expect(up.requests.every((r) => r.headers['x-cms-site-key'] === undefined)).to.equal(true);
  });

  it('answers 404 for an unknown binding, a binding of the other mode, and a binding whose route is gone', async () => {
    const website = await sites.addWebsite(null);
    expect(
      (await post('/api/v1/gateway/resolve', { gatewayBindingId: '00000000-0000-4000-8000-000000000000' })).statusCode,
    ).to.equal(404);
    expect((await post('/api/v1/gateway/resolve', { gatewayBindingId: 'garbage' })).statusCode).to.equal(404);
    const submitOnly = await sites.addBinding({
      websiteId: website,
      endpointId,
      routeId: postRoute,
      parameters: { path: { form: 'f' } },
      resultFilter: null,
      mode: 'submit',
    });
    expect((await post('/api/v1/gateway/resolve', { gatewayBindingId: submitOnly })).statusCode).to.equal(404);
    const ep = await g.createEndpoint({ baseUrl: up.url });
    const route = await g.createRoute(ep.id, 'GET', '/gone');
    const orphan = await sites.addBinding({
      websiteId: website,
      endpointId: ep.id,
      routeId: route.id,
      parameters: {},
      resultFilter: null,
      mode: 'resolve',
    });
    await g.call('DELETE', `/api/v1/gateway/endpoints/${ep.id}`, g.manager);
    expect((await post('/api/v1/gateway/resolve', { gatewayBindingId: orphan })).statusCode).to.equal(404);
    expect(up.requests).to.have.length(0);
  });

  it('a binding of unpublished content answers anonymous callers like an unknown id, site key or not, and calls nothing', async () => {
    const website = await sites.addWebsite('wsk_draft-site');
    const binding = (mode: 'resolve' | 'submit') => ({
      websiteId: website,
      endpointId,
      routeId: mode === 'resolve' ? getRoute : postRoute,
      parameters: { path: { section: 'sport', form: 'f' } },
      resultFilter: null,
      mode,
      live: false,
    });
    const unknown = '00000000-0000-4000-8000-000000000000';
    for (const mode of ['resolve', 'submit'] as const) {
      const draft = await sites.addBinding(binding(mode));
      const answer = async (id: string, headers: Record<string, string>) => {
        const res = await post(`/api/v1/gateway/${mode}`, { gatewayBindingId: id }, headers);
        const { requestId: _r, ...body } = res.json();
        return { status: res.statusCode, body };
      };
      const expected = await answer(unknown, {});
      expect(expected.status).to.equal(404);
      const variants: Record<string, string>[] = [
        {},
        { 'x-cms-site-key': 'wsk_draft-site' },
        { 'x-cms-site-key': 'wrong' },
      ];
      for (const headers of variants)
        expect(await answer(draft, headers), `${mode} ${JSON.stringify(headers)}`).to.deep.equal(expected);
    }
    expect(up.requests).to.have.length(0);
  });

  it('a preview (staff session) reaches a binding its source lets the user preview, without the site key; others answer 404', async () => {
    const website = await sites.addWebsite('wsk_preview-site');
    const draft = await sites.addBinding({
      websiteId: website,
      endpointId,
      routeId: getRoute,
      parameters: { path: { section: 'sport' } },
      resultFilter: { path: 'items', pick: ['title'], limit: 1 },
      mode: 'resolve',
      live: false,
    });
    const form = await sites.addBinding({
      websiteId: website,
      endpointId,
      routeId: postRoute,
      parameters: { path: { form: 'f' } },
      resultFilter: null,
      mode: 'submit',
      live: false,
    });
    const { editor, outsider } = await g.t.users({ editor: [], outsider: [] });
    sites.allowPreview(editor.id);
    const preview = (who: typeof editor | null, kind: string, body: Record<string, unknown>) =>
      g.call('POST', `/api/v1/gateway/preview/${kind}`, who, body);
    expect((await preview(null, 'resolve', { gatewayBindingId: draft })).statusCode).to.equal(401);
    const refused = await preview(outsider, 'resolve', { gatewayBindingId: draft });
    expect(refused.statusCode).to.equal(404);
    expect(refused.json().code).to.equal('BINDING_NOT_FOUND');
    expect(up.requests).to.have.length(0);
    const seen = await preview(editor, 'resolve', { gatewayBindingId: draft });
    expect(seen.statusCode, seen.body).to.equal(200);
    expect(seen.json()).to.deep.equal({ data: [{ title: 'One' }] });
    const sent = await preview(editor, 'submit', { gatewayBindingId: form, fields: { answer: 'plain' } });
    expect(sent.json()).to.include({ success: true, outcome: 'thanks_1' });
    expect((await preview(editor, 'resolve', { gatewayBindingId: form })).statusCode).to.equal(404);
    // A cookie write from a foreign origin is refused by the kernel before the binding is looked up.
    const foreign = await g.call(
      'POST',
      '/api/v1/gateway/preview/resolve',
      editor,
      { gatewayBindingId: draft },
      {
        origin: 'https://evil.example',
      },
    );
    expect(foreign.statusCode).to.equal(403);
    expect(up.requests).to.have.length(2);
  });

  it('submit: { success, response } plus outcome only for a plain key of 1-32 letters, digits, _ or -', async () => {
    const website = await sites.addWebsite(null);
    const id = await sites.addBinding({
      websiteId: website,
      endpointId,
      routeId: postRoute,
      parameters: { path: { form: 'newsletter' } },
      resultFilter: null,
      mode: 'submit',
    });
    const send = (fields: Record<string, unknown>) => post('/api/v1/gateway/submit', { gatewayBindingId: id, fields });
    const plain = await send({ answer: 'plain', email: 'a@b.example' });
    expect(plain.json()).to.deep.equal({ success: true, response: 'thanks_1', outcome: 'thanks_1' });
    expect(up.requests[0]!.url).to.equal('/forms/newsletter');
    expect(JSON.parse(up.requests[0]!.body)).to.deep.equal({ answer: 'plain', email: 'a@b.example' });
    expect((await send({ answer: 'text' })).json()).to.deep.equal({
      success: true,
      response: 'subscribed',
      outcome: 'subscribed',
    });
    expect((await send({ answer: 'long' })).json()).to.deep.equal({ success: true, response: 'x'.repeat(33) });
    expect((await send({ answer: 'object' })).json()).to.deep.equal({
      success: true,
      response: { received: { answer: 'object' } },
    });
    expect((await send({ answer: 'fail' })).json()).to.deep.equal({
      success: false,
      response: { error: 'email missing' },
    });
  });

  it('limits resolve and submit per client address (429 with Retry-After)', async () => {
    const limited = await startGatewayKernel({
      extraPlugins: [publishedSitesFixture],
      clock: new ManualClock(),
      env: { GATEWAY_PUBLIC_RATE_LIMIT_PER_MINUTE: '2' },
    });
    try {
      const id = '00000000-0000-4000-8000-000000000000';
      const statuses = [];
      for (let i = 0; i < 3; i++)
        statuses.push(
          (await limited.call('POST', '/api/v1/gateway/resolve', null, { gatewayBindingId: id })).statusCode,
        );
      expect(statuses).to.deep.equal([404, 404, 429]);
      const last = await limited.call('POST', '/api/v1/gateway/submit', null, { gatewayBindingId: id });
      expect(last.statusCode).to.equal(429);
      expect(Number(last.headers['retry-after'])).to.be.within(1, 60);
    } finally {
      await limited.t.close();
    }
  });

  it('without the content plugin every binding id answers 404', async () => {
    const bare = await startGatewayKernel();
    try {
      const res = await bare.call('POST', '/api/v1/gateway/resolve', null, {
        gatewayBindingId: '00000000-0000-4000-8000-000000000000',
      });
      expect(res.statusCode).to.equal(404);
      expect(res.json().code).to.equal('BINDING_NOT_FOUND');
      expect((await bare.call('POST', '/api/v1/gateway/submit', null, { gatewayBindingId: 'x' })).statusCode).to.equal(
        404,
      );
    } finally {
      await bare.t.close();
    }
  });
});
