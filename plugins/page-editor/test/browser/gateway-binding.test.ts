import { expect } from 'chai';
import type { Page } from 'playwright-core';
import {
  appErrors,
  type BrowserProduct,
  expectAccessible,
  sharedBrowserProduct,
  signInAs,
} from '../../../../test/helpers/browser.ts';
import type { TestUser } from '../../../../test/helpers/kernel.ts';
import { startUpstream, type Upstream } from '../../../../test/helpers/upstream.ts';

/** The canvas shows the user's own content: axe checks the editor's chrome around it. */
const CHROME_ONLY = { exclude: ['.cms-canvas-frame'] };

const canvas = (page: Page) => page.frameLocator('iframe.cms-canvas-frame');
const status = (page: Page) => page.getByRole('status').filter({ hasText: /Saved|Unsaved|Saving|failed/ });
const outlineRow = (page: Page, name: string | RegExp) =>
  page.getByRole('list', { name: 'Outline' }).getByRole('button', { name });
const panel = (page: Page) => page.getByRole('region', { name: 'Gateway data' });

async function pick(page: Page, label: string, option: string) {
  await page.getByRole('combobox', { name: label }).click();
  await page.getByRole('option', { name: option }).click();
}

describe('page editor in the browser: gateway content bindings', function () {
  this.timeout(180_000);
  let p: BrowserProduct;
  let admin: TestUser;
  let upstream: Upstream;
  let websiteId: string;
  let endpoint: { id: string; name: string };
  let itemsRoute: { id: string };
  let autosave: { enabled: boolean; intervalSeconds: number } | undefined;
  before(async function () {
    this.timeout(240_000);
    p = await sharedBrowserProduct();
    admin = await p.t.admin();
    // A real third-party API on loopback (outside production the outbound policy lets it through).
    upstream = await startUpstream((req, res) => {
      if (req.url.startsWith('/broken')) {
        res.statusCode = 503;
        res.setHeader('content-type', 'application/json');
        return res.end(JSON.stringify({ error: 'maintenance' }));
      }
      res.setHeader('content-type', 'application/json');
      res.end(
        JSON.stringify({
          data: {
            shop: req.url.split('/')[2],
            items: [
              { id: 1, name: 'Alpha', secret: 'cost price' },
              { id: 2, name: 'Beta', secret: 'cost price' },
              { id: 3, name: 'Gamma', secret: 'cost price' },
            ],
          },
        }),
      );
    });
    const name = `shop${Date.now().toString(36)}`;
    const ep = await p.t.call('POST', '/api/v1/gateway/endpoints', admin, {
      name,
      baseUrl: upstream.url,
      auth: { type: 'none' },
    });
    expect(ep.statusCode, ep.body).to.equal(201);
    endpoint = ep.json();
    const route = await p.t.call('POST', `/api/v1/gateway/endpoints/${endpoint.id}/routes`, admin, {
      method: 'GET',
      path: '/shops/{shop}/items',
      name: 'listItems',
    });
    expect(route.statusCode, route.body).to.equal(201);
    itemsRoute = route.json();
    const broken = await p.t.call('POST', `/api/v1/gateway/endpoints/${endpoint.id}/routes`, admin, {
      method: 'GET',
      path: '/broken',
    });
    expect(broken.statusCode, broken.body).to.equal(201);
    const site = await p.t.call('POST', '/cms-one/websites', admin, {
      name: 'Binding site',
      rootPath: `/gb${Date.now().toString(36)}`,
      locales: ['en'],
    });
    expect(site.statusCode, site.body).to.equal(201);
    websiteId = site.json().id;
    // This test decides when the page is saved: autosave off (the shared product's setting is put back after).
    autosave = (await p.t.call('GET', '/cms-one/settings/autosave', admin)).json();
    const off = await p.t.call('PUT', '/cms-one/settings/autosave', admin, { ...autosave, enabled: false });
    expect(off.statusCode, off.body).to.equal(200);
  });
  after(async () => {
    await upstream?.close();
    if (autosave) await p.t.call('PUT', '/cms-one/settings/autosave', admin, autosave);
  });

  const createPage = async (path: string, content: unknown) => {
    const res = await p.t.call('POST', '/cms-one/pages', admin, {
      websiteId,
      locale: 'en',
      path,
      title: 'Shop',
      content,
    });
    expect(res.statusCode, res.body).to.equal(201);
    return res.json() as { id: string };
  };

  const openEditor = async (user: TestUser, pageId: string) => {
    const { page, context, errors } = await p.page();
    await signInAs(p, context, user);
    await page.goto(`/cms-one/editor/pages/${pageId}`);
    await page.getByRole('heading', { level: 1, name: /^Editing/ }).waitFor();
    await page.locator('iframe.cms-canvas-frame[data-ready]').waitFor();
    return { page, errors };
  };

  const resolve = (gatewayBindingId: string) => p.t.call('POST', '/api/v1/gateway/resolve', null, { gatewayBindingId });

  it('binds a block to a route with parameters and a result filter, previews it, saves, and the published page resolves it; unbinding removes it', async () => {
    const page = await createPage('/items', {
      type: 'section',
      children: [
        { type: 'h1', text: 'Our items' },
        { type: 'div', props: { className: 'items' } },
      ],
    });
    const editor = await p.t.createUser({
      permissions: ['objects:read', 'pages:edit', 'objects:publish', 'gateway:manage'],
    });
    const { page: tab, errors } = await openEditor(editor, page.id);

    await outlineRow(tab, /^div$/).click();
    await panel(tab).getByRole('button', { name: 'Bind to gateway data' }).click();
    await pick(tab, 'Endpoint', `${endpoint.name} (${upstream.url})`);

    // An upstream that fails is said plainly.
    await pick(tab, 'Route', 'GET /broken');
    await tab.getByRole('button', { name: 'Preview the data' }).click();
    await panel(tab).getByText('The upstream answered 503: a published site gets an error for this binding.').waitFor();

    // The route's path parameter is required: a preview without it names the field.
    await pick(tab, 'Route', 'GET /shops/{shop}/items (listItems)');
    await tab.getByRole('button', { name: 'Preview the data' }).click();
    await panel(tab).getByText('Parameter "shop" is missing').waitFor();
    expect(await panel(tab).getByRole('button', { name: 'Apply the binding' }).isDisabled()).to.equal(true);
    await tab.getByRole('textbox', { name: /^Path parameter shop/ }).fill('north');
    await tab.getByRole('button', { name: 'Add a query parameter' }).click();
    await tab.getByLabel('Name of query parameter 1').fill('lang');
    await tab.getByLabel('Value of query parameter 1').fill('en');
    await tab.getByRole('button', { name: 'Preview the data' }).click();
    await panel(tab).getByText('The upstream answered 200.').waitFor();
    expect(await tab.getByRole('region', { name: 'Preview data' }).textContent()).to.contain('"secret": "cost price"');
    expect(upstream.requests.at(-1)!.url).to.equal('/shops/north/items?lang=en');

    // The fields come from the route's schema, read from a live call: open data, then items; keep and rename.
    await tab.getByRole('button', { name: 'Read the fields from a live call' }).click();
    await tab.getByRole('button', { name: 'Open data' }).click();
    await tab.getByRole('button', { name: 'Open items' }).click();
    expect(await tab.getByLabel('Path to the data').inputValue()).to.equal('data.items');
    await tab.getByRole('checkbox', { name: 'id' }).check();
    await tab.getByRole('checkbox', { name: 'name' }).check();
    await tab.getByLabel('Rename name to').fill('title');
    await tab.getByLabel('Rows at most').fill('2');
    await tab.getByRole('button', { name: 'Preview the data' }).click();
    await eventuallyText(tab, [
      { id: 1, title: 'Alpha' },
      { id: 2, title: 'Beta' },
    ]);
    await panel(tab)
      .getByText(/^Not applied yet/)
      .waitFor();
    await expectAccessible(tab, 'gateway binding panel', CHROME_ONLY);

    // Applied: the outline, the canvas and the inspector show the block is bound, and to what.
    await panel(tab).getByRole('button', { name: 'Apply the binding' }).click();
    await outlineRow(tab, 'div · gateway data').waitFor();
    await canvas(tab).locator('div.items[data-cms-bound]').waitFor();
    await panel(tab).getByText(`Shows data from ${endpoint.name}: GET /shops/{shop}/items (listItems)`).waitFor();
    await panel(tab).getByText('The binding id is assigned when the page is saved.').waitFor();

    // An edit before the save, so that undo later goes back to a step from before the id existed.
    await outlineRow(tab, /^h1/).click();
    await tab.getByLabel('Text').fill('All our items');
    await outlineRow(tab, 'div · gateway data').click();

    // Publishing saves: the node carries the id the server assigned, shown and copyable.
    await tab.getByRole('button', { name: 'Publish' }).click();
    await tab.getByText('Published', { exact: true }).first().waitFor();
    const idField = panel(tab).getByRole('textbox', { name: 'Binding id' });
    await idField.waitFor();
    const bindingId = await idField.inputValue();
    await panel(tab).getByRole('button', { name: 'Copy the binding id' }).waitFor();
    const stored = (await p.t.call('GET', `/cms-one/pages/${page.id}`, admin)).json();
    expect(stored.content.children[1].props.gatewayBindingId).to.equal(bindingId);
    expect(stored.content.children[1].props.binding).to.deep.equal({
      endpointId: endpoint.id,
      routeId: itemsRoute.id,
      parameters: { path: { shop: 'north' }, query: { lang: 'en' } },
      resultFilter: { path: 'data.items', pick: ['id', 'name'], rename: { name: 'title' }, limit: 2 },
      mode: 'resolve',
    });

    // The site's script reads the data with the id alone, filtered as previewed.
    const resolved = await resolve(bindingId);
    expect(resolved.statusCode, resolved.body).to.equal(200);
    expect(resolved.json()).to.deep.equal({
      data: [
        { id: 1, title: 'Alpha' },
        { id: 2, title: 'Beta' },
      ],
    });
    const html = await p.t.call('GET', `/public/pages/en${(await site()).rootPath}/items`, null, undefined, {
      accept: 'text/html',
    });
    expect(html.body).to.contain(`data-gateway-binding-id="${bindingId}" data-gateway-binding-mode="resolve"`);

    // A later save keeps the id (the site's script keeps working), also one of a step undone to.
    await tab.getByRole('button', { name: 'Undo' }).click();
    await canvas(tab)
      .locator('h1', { hasText: /^Our items$/ })
      .waitFor();
    await tab.getByRole('button', { name: 'Save', exact: true }).click();
    await status(tab).filter({ hasText: 'Saved' }).waitFor();
    const again = (await p.t.call('GET', `/cms-one/pages/${page.id}`, admin)).json();
    expect(again.content.children[0].text).to.equal('Our items');
    expect(again.content.children[1].props.gatewayBindingId).to.equal(bindingId);

    // Unbinding removes the binding: the site gets the unknown-binding answer.
    await outlineRow(tab, 'div · gateway data').click();
    await panel(tab).getByRole('button', { name: 'Remove the binding' }).click();
    await outlineRow(tab, /^div$/).waitFor();
    await tab.getByRole('button', { name: 'Save', exact: true }).click();
    await status(tab).filter({ hasText: 'Saved' }).waitFor();
    const unbound = (await p.t.call('GET', `/cms-one/pages/${page.id}`, admin)).json();
    expect(unbound.content.children[1].props).to.deep.equal({ className: 'items' });
    const gone = await resolve(bindingId);
    expect(gone.statusCode, gone.body).to.equal(404);
    expect(gone.json().code).to.equal('BINDING_NOT_FOUND');
    // The one refused request was the preview without its path parameter (Chromium logs every 400).
    expect(appErrors(errors)).to.deep.equal([
      'console: Failed to load resource: the server responded with a status of 400 (Bad Request)',
    ]);
  });

  it('without the gateway key the binding is shown read only; a key taken away meanwhile is said plainly', async () => {
    const page = await createPage('/bound', {
      type: 'section',
      children: [
        { type: 'p', text: 'Plain' },
        {
          type: 'div',
          props: { binding: { endpointId: endpoint.id, routeId: itemsRoute.id, parameters: { path: { shop: 'x' } } } },
        },
      ],
    });
    const writer = await p.t.createUser({ permissions: ['objects:read', 'pages:edit'] });
    const { page: tab } = await openEditor(writer, page.id);
    await outlineRow(tab, 'div · gateway data').click();
    await panel(tab).getByText(`Shows data from endpoint ${endpoint.id}: route ${itemsRoute.id}`).waitFor();
    await panel(tab).getByText('Changing the binding needs the gateway:manage key.').waitFor();
    expect(await panel(tab).getByRole('button', { name: 'Remove the binding' }).count()).to.equal(0);
    // What the saved binding answers, without the gateway key (the session reads the draft page).
    await panel(tab).getByRole('button', { name: 'Show what the site gets (as saved)' }).click();
    const saved = panel(tab).getByRole('region', { name: 'Saved binding data' });
    await saved.waitFor();
    expect(JSON.parse((await saved.textContent())!)).to.deep.include({
      data: {
        shop: 'x',
        items: [
          { id: 1, name: 'Alpha', secret: 'cost price' },
          { id: 2, name: 'Beta', secret: 'cost price' },
          { id: 3, name: 'Gamma', secret: 'cost price' },
        ],
      },
    });
    await expectAccessible(tab, 'gateway binding, read only', CHROME_ONLY);
    // An unbound block offers no binding at all.
    await outlineRow(tab, /^p: Plain/).click();
    await tab.getByLabel('Text').waitFor();
    expect(await panel(tab).count()).to.equal(0);

    // A manager whose key is taken away after the editor opened: the API's 403 is the answer, said plainly.
    const role = `binding-managers-${Date.now().toString(36)}`;
    await p.t.db('roles').insert({ name: role, permissions: ['objects:read', 'pages:edit', 'gateway:manage'] });
    const manager = await p.t.createUser({ roles: [role] });
    const { page: other } = await openEditor(manager, page.id);
    await outlineRow(other, 'div · gateway data').click();
    await panel(other).getByRole('combobox', { name: 'Route' }).waitFor();
    await p.t
      .db('roles')
      .where({ name: role })
      .update({ permissions: ['objects:read', 'pages:edit'] });
    await other.getByRole('button', { name: 'Preview the data' }).click();
    await panel(other)
      .getByText("Your role may not read or call the gateway's endpoints (the gateway:manage key).")
      .waitFor();
  });

  const site = async () =>
    (await p.t.call('GET', `/cms-one/websites/${websiteId}`, admin)).json() as { rootPath: string };

  /**
   * The preview shows `data` (the panel's JSON text, compared as data). A function, not a string:
   * Playwright evaluates a string predicate again on every poll, which the editor's policy (no
   * 'unsafe-eval') refuses, so a preview not there at the first poll failed the test.
   */
  async function eventuallyText(page: Page, data: unknown) {
    type PreviewDocument = { document: { querySelector(s: string): { textContent: string | null } | null } };
    await page.waitForFunction(
      (expected) => {
        const el = (globalThis as unknown as PreviewDocument).document.querySelector('[aria-label="Preview data"]');
        try {
          return !!el && JSON.stringify(JSON.parse(el.textContent ?? '')) === expected;
        } catch {
          return false;
        }
      },
      JSON.stringify(data),
      { timeout: 15_000 },
    );
  }
});
