import { expect } from 'chai';
import fixtureGatewayRoutes from './fixtures/gateway-routes/index.ts';
import { startContentKernel, type ContentKernel } from './content-kernel.ts';
import { contentContributions } from './contributions.ts';

describe('content: gateway bindings and staged pages', () => {
  let k: ContentKernel;
  let site: { id: string; rootPath: string };
  before(async () => {
    k = await startContentKernel({ extraPlugins: [fixtureGatewayRoutes] });
    site = await k.createWebsite();
    await k.t.db('fixture_gateway_routes').insert([
      { endpoint_id: 'weather', route_id: 'current', path_template: '/cities/{city}/now' },
      { endpoint_id: 'crm', route_id: 'lead', path_template: '/leads' },
    ]);
  });
  after(() => k.t.close());

  const bound = (binding: unknown, extra: Record<string, unknown> = {}) => ({
    type: 'section',
    children: [
      { type: 'p', text: 'x' },
      { type: 'weather-card', props: { binding, ...extra } },
    ],
  });

  it('assigns a binding id per bound node, stores it, and the gateway binding source finds it', async () => {
    const page = await k.createPage({
      websiteId: site.id,
      path: '/weather',
      content: bound(
        {
          endpointId: 'weather',
          routeId: 'current',
          parameters: { path: { city: 'Oslo' }, query: { units: 'metric' } },
          resultFilter: { path: 'data', pick: ['temp'], limit: 5 },
        },
        { gatewayBindingId: 'client-chosen' },
      ),
    });
    const id = page.content.children[1].props.gatewayBindingId as string;
    expect(id).to.match(/^[0-9a-f-]{36}$/);
    const binding = await contentContributions(k.t).bindings.findBinding(id);
    expect(binding).to.deep.equal({
      id,
      websiteId: site.id,
      pageId: page.id,
      endpointId: 'weather',
      routeId: 'current',
      parameters: { path: { city: 'Oslo' }, query: { units: 'metric' } },
      resultFilter: { path: 'data', pick: ['temp'], limit: 5 },
      mode: 'resolve',
      live: false,
    });
    // Live only while the page is published; a preview needs a user who may read unpublished pages.
    const source = contentContributions(k.t).bindings;
    const actorOf = async (user: { cookie: string }) =>
      (await k.t.kernel.resolve('sessions').resolve(user.cookie.split('=')[1]!))!;
    expect(await source.mayPreview!(binding!, await actorOf(k.reader))).to.equal(true);
    expect(await source.mayPreview!(binding!, await actorOf(k.nobody))).to.equal(false);
    expect((await k.call('PATCH', `/cms-one/pages/${page.id}`, k.publisher, { published: true })).statusCode).to.equal(
      200,
    );
    expect((await source.findBinding(id))?.live).to.equal(true);
    await k.call('PATCH', `/cms-one/pages/${page.id}`, k.publisher, { published: false });
    expect((await source.findBinding(id))?.live).to.equal(false);
    // A save that keeps the node keeps its id; a node without a binding loses it.
    const again = await k.call('PATCH', `/cms-one/pages/${page.id}`, k.editor, { content: page.content });
    expect(again.json().content.children[1].props.gatewayBindingId).to.equal(id);
    await k.call('PATCH', `/cms-one/pages/${page.id}`, k.editor, { content: { type: 'p', text: 'no bindings' } });
    expect(await contentContributions(k.t).bindings.findBinding(id)).to.equal(undefined);
  });

  it('refuses unknown routes, missing path parameters and malformed bindings, naming the path', async () => {
    const cases: Array<[unknown, string]> = [
      [{ endpointId: 'weather', routeId: 'nope' }, 'content.children.1.props.binding.routeId'],
      [{ endpointId: 'weather', routeId: 'current' }, 'content.children.1.props.binding.parameters.path.city'],
      [{ routeId: 'current' }, 'content.children.1.props.binding.endpointId'],
      [{ endpointId: 'crm', routeId: 'lead', mode: 'delete' }, 'content.children.1.props.binding.mode'],
      [
        { endpointId: 'crm', routeId: 'lead', resultFilter: { limit: 5000 } },
        'content.children.1.props.binding.resultFilter.limit',
      ],
      ['not an object', 'content.children.1.props.binding'],
      [
        { endpointId: 'crm', routeId: 'lead', resultFilter: { path: `a${'.b'.repeat(250)}` } },
        'content.children.1.props.binding.resultFilter.path',
      ],
      [
        { endpointId: 'crm', routeId: 'lead', resultFilter: { path: 'data\nitems' } },
        'content.children.1.props.binding.resultFilter.path',
      ],
      [
        { endpointId: 'crm', routeId: 'lead', resultFilter: { pick: ['x'.repeat(201)] } },
        'content.children.1.props.binding.resultFilter.pick',
      ],
      [
        { endpointId: 'crm', routeId: 'lead', resultFilter: { rename: ['a'] } },
        'content.children.1.props.binding.resultFilter.rename',
      ],
    ];
    for (const [binding, field] of cases) {
      const res = await k.call('POST', '/cms-one/pages', k.editor, {
        websiteId: site.id,
        locale: 'en',
        path: '/bad-binding',
        title: 't',
        content: bound(binding),
      });
      expect(res.statusCode, field).to.equal(400);
      expect(res.json().field).to.equal(field);
    }
    // What the gateway's own filter takes, a save takes: keys with spaces, accents or slashes.
    const wide = await k.createPage({
      websiteId: site.id,
      path: '/wide-filter',
      content: bound({
        endpointId: 'crm',
        routeId: 'lead',
        resultFilter: { path: 'données.first name/x', pick: ['Prénom', 'e-mail address'], rename: { Prénom: 'name' } },
      }),
    });
    const wideBinding = await contentContributions(k.t).bindings.findBinding(
      wide.content.children[1].props.gatewayBindingId,
    );
    expect(wideBinding?.resultFilter).to.deep.equal({
      path: 'données.first name/x',
      pick: ['Prénom', 'e-mail address'],
      rename: { Prénom: 'name' },
    });
    const submit = await k.createPage({
      websiteId: site.id,
      path: '/form',
      content: bound({ endpointId: 'crm', routeId: 'lead', mode: 'submit' }),
    });
    const binding = await contentContributions(k.t).bindings.findBinding(
      submit.content.children[1].props.gatewayBindingId,
    );
    expect(binding?.mode).to.equal('submit');
  });

  it('marks a bound node on the element it renders as (public HTML and canvas), never as a raw attribute', async () => {
    const content = {
      type: 'section',
      children: [
        {
          type: 'div',
          props: {
            className: 'weather',
            binding: { endpointId: 'weather', routeId: 'current', parameters: { path: { city: 'Oslo' } } },
          },
        },
        { type: 'form', props: { binding: { endpointId: 'crm', routeId: 'lead', mode: 'submit' } } },
      ],
    };
    const page = await k.createPage({ websiteId: site.id, path: '/marked', content, published: true });
    const [div, form] = page.content.children.map(
      (c: { props: { gatewayBindingId: string } }) => c.props.gatewayBindingId,
    );
    const html = (
      await k.call('GET', `/public/pages/en${site.rootPath}/marked`, null, undefined, { accept: 'text/html' })
    ).body;
    expect(html).to.contain(
      `<section><div data-gateway-binding-id="${div}" data-gateway-binding-mode="resolve" class="weather"></div>` +
        `<div data-node="form" data-gateway-binding-id="${form}" data-gateway-binding-mode="submit"></div></section>`,
    );
    expect(html.toLowerCase()).not.to.contain('gatewaybindingid=');
    // The canvas marks bound nodes, saved (with their id) or not yet saved.
    const canvas = await k.call('POST', `/cms-one/pages/${page.id}/canvas`, k.reader, {
      content: { ...page.content, children: [...page.content.children, content.children[0]] },
    });
    expect(canvas.statusCode, canvas.body).to.equal(200);
    expect(canvas.body).to.contain(
      `data-gateway-binding-id="${div}" data-gateway-binding-mode="resolve" data-cms-bound=""`,
    );
    expect(canvas.body).to.contain('<div data-cms-bound="" class="weather" data-cms-node="r.2"></div>');
  });

  it('staged pages: list, get, promote one (new draft page), promote all (new version of an existing page), discard', async () => {
    const existing = await k.createPage({ websiteId: site.id, path: '/imported-2' });
    const stage = async (path: string, content: unknown = { type: 'p', text: `staged ${path}` }) =>
      (
        await k.t
          .db('content_staged_pages')
          .insert({
            website_id: site.id,
            locale: 'en',
            path,
            title: `T ${path}`,
            content: JSON.stringify(content),
            source: 'import',
          })
          .returning('id')
      )[0].id as string;
    const a = await stage('/imported-1');
    const b = await stage('/imported-2');
    const c = await stage('/imported-3');
    const list = (await k.call('GET', `/cms-one/pages/staged?websiteId=${site.id}`, k.reader)).json();
    expect(list.map((s: { id: string }) => s.id)).to.include.members([a, b, c]);
    expect((await k.call('GET', `/cms-one/pages/staged/${a}`, k.reader)).json().content.text).to.equal(
      'staged /imported-1',
    );
    const one = await k.call('POST', `/cms-one/pages/staged/${a}/promote`, k.editor);
    expect(one.statusCode).to.equal(200);
    const page = (await k.call('GET', `/cms-one/pages/${one.json().pageId}`, k.reader)).json();
    expect(page).to.include({ path: '/imported-1', published: false });
    expect((await k.call('POST', `/cms-one/pages/staged/${a}/promote`, k.editor)).statusCode).to.equal(404);
    expect((await k.call('DELETE', `/cms-one/pages/staged/${c}`, k.editor)).statusCode).to.equal(204);
    const all = await k.call('POST', `/cms-one/pages/staged/promote?websiteId=${site.id}`, k.editor);
    expect(all.json().promoted).to.deep.equal([{ id: b, pageId: existing.id }]);
    expect((await k.call('GET', `/cms-one/pages/${existing.id}`, k.reader)).json().content.text).to.equal(
      'staged /imported-2',
    );
    expect((await k.call('GET', `/cms-one/pages/${existing.id}/versions`, k.reader)).json()).to.have.length(1);
    expect((await k.call('GET', `/cms-one/pages/staged/${c}`, k.reader)).statusCode).to.equal(404);
    const bad = await stage('/imported-bad', { type: 'a', props: { href: 'javascript:x' } });
    const refused = await k.call('POST', `/cms-one/pages/staged/${bad}/promote`, k.editor);
    expect(refused.statusCode).to.equal(400);
    expect(refused.json().field).to.equal('content.props.href');
  });

  it('permissions of the staged page routes', async () => {
    const id = '00000000-0000-4000-8000-000000000000';
    const routes: Array<[string, string]> = [
      ['GET', '/cms-one/pages/staged'],
      ['GET', `/cms-one/pages/staged/${id}`],
      ['POST', '/cms-one/pages/staged/promote'],
      ['POST', `/cms-one/pages/staged/${id}/promote`],
      ['DELETE', `/cms-one/pages/staged/${id}`],
    ];
    for (const [method, url] of routes) {
      expect((await k.call(method, url, null)).statusCode, `${method} ${url}`).to.equal(401);
      expect((await k.call(method, url, k.nobody)).statusCode, `${method} ${url}`).to.equal(403);
      if (method !== 'GET') expect((await k.call(method, url, k.reader)).statusCode, `${method} ${url}`).to.equal(403);
    }
    expect((await k.call('GET', '/cms-one/pages/staged/nope', k.reader)).statusCode).to.equal(400);
  });
});
