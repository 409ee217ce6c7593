import { expect } from 'chai';
import type { Locator, Page } from 'playwright-core';
import {
  appErrors,
  type BrowserProduct,
  expectAccessible,
  sharedBrowserProduct,
  signInAs,
} from '../../../../test/helpers/browser.ts';
import { eventually, type TestUser } from '../../../../test/helpers/kernel.ts';
import { startUpstream, type Upstream } from '../../../../test/helpers/upstream.ts';
import { CHROME_ONLY, canvas, expectFits, openEditor } from './editor-page.ts';

/** The kit view's previews show the user's own content too. */
const KIT_CHROME_ONLY = { exclude: [...CHROME_ONLY.exclude, '.cms-kit-frame'] };

/** The computed colour of the first `selector` in the canvas (null while it is not there). */
const canvasColour = (page: Page, selector: string) =>
  page.evaluate((sel) => {
    const g = globalThis as unknown as {
      document: { querySelector(s: string): { contentDocument: { querySelector(s: string): unknown } | null } | null };
      getComputedStyle(el: unknown): { color: string };
    };
    const el = g.document.querySelector('iframe.cms-canvas-frame')?.contentDocument?.querySelector(sel);
    return el ? g.getComputedStyle(el).color : null;
  }, selector);

const rgbOf = (hex: string) => `rgb(${[1, 3, 5].map((i) => Number.parseInt(hex.slice(i, i + 2), 16)).join(', ')})`;

/** Chooses `option` of the select `label`, once its list of options is seen to fit the screen. */
async function pick(page: Page, scope: Locator, label: string, option: string | RegExp) {
  const choice = page.getByRole('option', { name: option });
  // The panel draws again after the previous choice (the canvas answers it); a click that lands
  // while it does may leave the list closed: open it again, at most three times.
  for (let attempt = 1; ; attempt++) {
    await scope.getByRole('combobox', { name: label }).click();
    try {
      await choice.waitFor({ timeout: 5_000 });
      break;
    } catch (err) {
      if (attempt === 3) throw err;
    }
  }
  await expectFits(page.getByRole('listbox').filter({ has: choice }), `the options of ${label}`);
  await choice.click();
}

describe('page editor at phone width (390 px): the panels fit, work and are named', function () {
  this.timeout(180_000);
  let p: BrowserProduct;
  let admin: TestUser;
  let stamp: string;
  let websiteId: string;
  let otherWebsiteId: string;
  before(async function () {
    this.timeout(240_000);
    p = await sharedBrowserProduct();
    admin = await p.t.admin();
    stamp = Date.now().toString(36);
    const site = async (name: string, text: string) => {
      const res = await p.t.call('POST', '/cms-one/websites', admin, {
        name,
        rootPath: `/ph${name.length}${stamp}`,
        locales: ['en'],
      });
      expect(res.statusCode, res.body).to.equal(201);
      const id = res.json().id as string;
      const theme = await p.t.call('POST', `/cms-one/websites/${id}/themes`, admin, {
        name: `${name} theme`,
        colors: { background: '#ffffff', text },
      });
      expect(theme.statusCode, theme.body).to.equal(201);
      const active = await p.t.call('PUT', `/cms-one/websites/${id}/theme`, admin, { themeId: theme.json().id });
      expect(active.statusCode, active.body).to.equal(200);
      return id;
    };
    websiteId = await site('Phone site', '#222222');
    otherWebsiteId = await site('Other phone site', '#0b5394');
  });

  const createPage = async (path: string, title: string, content: unknown) => {
    const res = await p.t.call('POST', '/cms-one/pages', admin, { websiteId, locale: 'en', path, title, content });
    expect(res.statusCode, res.body).to.equal(201);
    return res.json() as { id: string };
  };

  it('data binding: a list bound to a class, ordered and limited, in the inspector at 390 px', async () => {
    const cls = await p.t.call('POST', '/data-classes', admin, {
      name: `Staff${stamp}`,
      label: `Staff of the phone site ${stamp}`,
      fields: [
        { name: 'member', type: 'text', label: 'Member' },
        { name: 'seniority', type: 'number', label: 'Seniority' },
      ],
    });
    expect(cls.statusCode, cls.body).to.equal(201);
    for (const [member, seniority] of [
      ['Ines', 4],
      ['Noor', 9],
      ['Jonas', 1],
    ] as const) {
      const res = await p.t.call('POST', '/data-objects', admin, {
        classId: cls.json().id,
        published: true,
        attributes: { member, seniority },
      });
      expect(res.statusCode, res.body).to.equal(201);
    }
    const page = await createPage('/staff', 'Staff', { type: 'section', children: [{ type: 'ul' }] });
    const editor = await p.t.createUser({ permissions: ['objects:read', 'pages:edit'] });
    const { page: tab, errors } = await openEditor(p, editor, `/cms-one/editor/pages/${page.id}`, 'phone');
    await tab.getByRole('button', { name: 'ul', exact: true }).click();
    const panel = tab.getByRole('region', { name: 'Data binding' });
    await pick(tab, panel, 'Show objects of the class', `Staff of the phone site ${stamp}`);
    await canvas(tab).locator('li', { hasText: 'Jonas' }).waitFor();
    await pick(tab, panel, 'Order by', 'Seniority');
    await pick(tab, panel, 'Direction', /^Descending/);
    await panel.getByRole('textbox', { name: 'Number of objects' }).fill('2');
    await panel.getByRole('button', { name: 'Add a condition' }).click();
    await panel.getByRole('textbox', { name: 'Condition 1: value' }).waitFor();
    await panel.getByRole('button', { name: 'Remove condition 1' }).waitFor();
    await panel.getByRole('button', { name: 'Remove condition 1' }).click();
    await canvas(tab).locator('li:nth-child(2)', { hasText: 'Ines' }).waitFor();
    expect(await canvas(tab).locator('li').allTextContents()).to.deep.equal(['Noor', 'Ines']);
    await panel.getByRole('button', { name: 'Add a condition' }).click();
    await expectFits(panel, 'the data binding panel');
    await expectAccessible(tab, 'data binding panel at 390 px', CHROME_ONLY);
    expect(appErrors(errors).filter((e) => !/frame is sandboxed/.test(e))).to.deep.equal([]);
  });

  describe('gateway binding', () => {
    let upstream: Upstream;
    before(async () => {
      upstream = await startUpstream((_req, res) => {
        res.setHeader('content-type', 'application/json');
        res.end(
          JSON.stringify({
            data: {
              items: [
                { id: 1, name: 'Alpha', description: 'A long description that a narrow screen has to wrap or scroll' },
                { id: 2, name: 'Beta', description: 'Another long description of the second item in the answer' },
              ],
            },
          }),
        );
      });
    });
    after(async () => upstream?.close());

    it('picks an endpoint and a route, fills parameters, previews and applies at 390 px', async () => {
      const name = `phone-shop-with-a-long-name-${stamp}`;
      const ep = await p.t.call('POST', '/api/v1/gateway/endpoints', admin, {
        name,
        baseUrl: upstream.url,
        auth: { type: 'none' },
      });
      expect(ep.statusCode, ep.body).to.equal(201);
      const route = await p.t.call('POST', `/api/v1/gateway/endpoints/${ep.json().id}/routes`, admin, {
        method: 'GET',
        path: '/shops/{shop}/catalogue/items-with-a-long-path',
        name: 'listCatalogueItems',
      });
      expect(route.statusCode, route.body).to.equal(201);
      const page = await createPage('/shop', 'Shop', {
        type: 'section',
        children: [{ type: 'div', props: { className: 'items' } }],
      });
      const manager = await p.t.createUser({ permissions: ['objects:read', 'pages:edit', 'gateway:manage'] });
      const { page: tab, errors } = await openEditor(p, manager, `/cms-one/editor/pages/${page.id}`, 'phone');
      await tab.getByRole('list', { name: 'Outline' }).getByRole('button', { name: /^div$/ }).click();
      const panel = tab.getByRole('region', { name: 'Gateway data' });
      await panel.getByRole('button', { name: 'Bind to gateway data' }).click();
      await pick(tab, panel, 'Endpoint', `${name} (${upstream.url})`);
      await pick(tab, panel, 'Route', 'GET /shops/{shop}/catalogue/items-with-a-long-path (listCatalogueItems)');
      await panel.getByRole('textbox', { name: /^Path parameter shop/ }).fill('north');
      await panel.getByRole('button', { name: 'Add a query parameter' }).click();
      await panel.getByLabel('Name of query parameter 1').fill('lang');
      await panel.getByLabel('Value of query parameter 1').fill('en');
      await panel.getByRole('button', { name: 'Remove query parameter 1' }).waitFor();
      await panel.getByRole('button', { name: 'Read the fields from a live call' }).click();
      await panel.getByRole('button', { name: 'Open data' }).click();
      await panel.getByRole('button', { name: 'Open items' }).click();
      await panel.getByRole('checkbox', { name: 'name' }).check();
      await panel.getByRole('checkbox', { name: 'description' }).check();
      await panel.getByLabel('Rename description to').fill('summary');
      await panel.getByRole('button', { name: 'Preview the data' }).click();
      await panel.getByText('The upstream answered 200.').waitFor();
      await panel
        .getByRole('region', { name: 'Preview data' })
        .getByText('"summary"', { exact: false })
        .first()
        .waitFor();
      expect(upstream.requests.at(-1)!.url).to.equal('/shops/north/catalogue/items-with-a-long-path?lang=en');
      await expectFits(panel, 'the gateway binding panel with its preview');
      await expectAccessible(tab, 'gateway binding panel at 390 px', CHROME_ONLY);
      await panel.getByRole('button', { name: 'Apply the binding' }).click();
      await tab.getByRole('list', { name: 'Outline' }).getByRole('button', { name: 'div · gateway data' }).waitFor();
      await panel.getByText(`Shows data from ${name}`).waitFor();
      await expectFits(panel, 'the gateway binding panel, applied');
      // Saved: the binding id with its copy button, and what the site gets.
      await tab.getByRole('button', { name: 'Save', exact: true }).click();
      const bindingId = panel.getByRole('textbox', { name: 'Binding id' });
      await bindingId.waitFor();
      await panel.getByRole('button', { name: 'Copy the binding id' }).waitFor();
      await panel.getByRole('button', { name: 'Show what the site gets (as saved)' }).click();
      const saved = panel.getByRole('region', { name: 'Saved binding data' });
      await saved.getByText('"summary"', { exact: false }).first().waitFor();
      await expectFits(panel, 'the gateway binding panel, saved');
      await expectAccessible(tab, 'gateway binding panel, saved, at 390 px', CHROME_ONLY);
      expect(appErrors(errors)).to.deep.equal([]);
    });
  });

  it('menu: adds and edits an entry with its form at 390 px', async () => {
    const home = await createPage('/', 'Home', { type: 'section', children: [{ type: 'h1', text: 'Home' }] });
    await createPage('/about-our-company-and-its-long-history', 'About our company and its long history', {
      type: 'section',
    });
    const first = await p.t.call('POST', '/cms-one/website-paths', admin, {
      websiteId,
      label: 'Home',
      pageId: home.id,
      position: 0,
    });
    expect(first.statusCode, first.body).to.equal(201);
    const editor = await p.t.createUser({ permissions: ['objects:read', 'pages:edit', 'menus:edit'] });
    const { page: tab, errors } = await openEditor(p, editor, `/cms-one/editor/pages/${home.id}`, 'phone');
    await tab.getByRole('tab', { name: 'More' }).click();
    const entries = tab.getByRole('list', { name: 'Menu entries' });
    await entries.waitFor();
    await tab.getByRole('button', { name: 'Add a menu entry' }).click();
    const form = tab.getByRole('form', { name: 'New menu entry' });
    await form.getByLabel('Label').fill('About our company and its long history');
    await form.getByLabel('Page', { exact: true }).click();
    await tab.getByRole('option', { name: /^About our company/ }).click();
    await form.getByText('An address', { exact: true }).waitFor();
    await expectFits(form, 'the new menu entry form');
    await expectAccessible(tab, 'menu entry form at 390 px', CHROME_ONLY);
    await form.getByRole('button', { name: 'Add the entry' }).click();
    await tab.getByRole('status').filter({ hasText: 'added to the menu' }).waitFor();
    const row = entries.locator('li[data-menu-entry]', { hasText: 'About our company' });
    await row.getByRole('button', { name: 'Edit About our company and its long history' }).waitFor();
    await expectFits(entries, 'the menu entries with a long label');
    // The whole label shows (on two lines if need be), not cut off with an ellipsis.
    const cut = await row.locator('.cms-menu-label').evaluate((el) => {
      const label = el as unknown as { scrollWidth: number; clientWidth: number };
      return label.scrollWidth > label.clientWidth;
    });
    expect(cut, 'the long label is cut off').to.equal(false);
    await row.getByRole('button', { name: 'Edit About our company and its long history' }).click();
    const edit = tab.getByRole('form', { name: 'Edit the entry About our company and its long history' });
    await edit.getByLabel('Below', { exact: true }).click();
    await tab.getByRole('option', { name: 'Home', exact: true }).click();
    await edit.getByRole('button', { name: 'Save the entry' }).click();
    await tab.getByRole('status').filter({ hasText: 'About our company and its long history saved' }).waitFor();
    await entries.getByRole('button', { name: 'Move menu entry About our company and its long history' }).waitFor();
    await expectFits(tab.getByRole('tabpanel', { name: 'More' }), 'the More tab with the menu');
    await expectAccessible(tab, 'menu panel at 390 px', CHROME_ONLY);
    expect(appErrors(errors)).to.deep.equal([]);
  });

  it('theme: the colour picker fits, its sliders are named and pick a colour the canvas follows', async () => {
    const page = await createPage('/colours', 'Colours', { type: 'section', children: [{ type: 'h1', text: 'Hue' }] });
    const designer = await p.t.createUser({ permissions: ['objects:read', 'pages:edit', 'websites:edit'] });
    const { page: tab, errors } = await openEditor(p, designer, `/cms-one/editor/pages/${page.id}`, 'phone');
    await tab.getByRole('tab', { name: 'More' }).click();
    const colour = tab.getByRole('textbox', { name: 'Colour text' });
    await colour.click();
    const saturation = tab.getByRole('slider', { name: 'Saturation and brightness of the colour text' });
    const hue = tab.getByRole('slider', { name: 'Hue of the colour text' });
    await saturation.waitFor();
    await hue.waitFor();
    // The picker's dropdown, whole, inside the screen.
    const dropdown = tab.locator('.mantine-ColorInput-dropdown');
    await expectFits(dropdown, 'the colour picker');
    // A press in the top right corner of the saturation area: a bright colour of the same hue.
    const box = (await saturation.boundingBox())!;
    await tab.mouse.click(box.x + box.width * 0.95, box.y + box.height * 0.05);
    // The field follows the press once the picker's change is drawn (not within the click itself).
    const picked = await eventually(
      async () => {
        const value = await colour.inputValue();
        return value !== '#222222' && value;
      },
      { timeoutMs: 10_000, what: 'the picked colour in the field' },
    );
    expect(picked).to.match(/^#[0-9a-f]{6}$/);
    await eventually(async () => expect(await canvasColour(tab, 'h1')).to.equal(rgbOf(picked)), {
      timeoutMs: 15_000,
    });
    // axe reads the open picker: every slider in it has a name.
    await expectAccessible(tab, 'colour picker at 390 px', CHROME_ONLY);
    await colour.blur();
    await saturation.waitFor({ state: 'hidden' });
    await tab.getByLabel('Custom styles').fill('h1{letter-spacing:1px}');
    await expectFits(tab.getByRole('tabpanel', { name: 'More' }), 'the theme panel');
    await tab.getByRole('button', { name: 'Save the theme' }).click();
    await tab.getByText('Theme saved').waitFor();
    const stored = (await p.t.call('GET', `/cms-one/websites/${websiteId}/theme`, admin)).json();
    expect(stored.theme.colors.text).to.equal(picked);
    // Put back the colour the other tests start from.
    const reset = await p.t.call('PUT', `/cms-one/websites/${websiteId}/themes/${stored.theme.id}`, admin, {
      colors: { ...stored.theme.colors, text: '#222222' },
      customStyles: '',
    });
    expect(reset.statusCode, reset.body).to.equal(200);
    expect(appErrors(errors)).to.deep.equal([]);
  });

  it("layout: the region switch fits the editor's bar and switches regions at 390 px", async () => {
    const layout = await p.t.call('POST', `/cms-one/websites/${websiteId}/templates`, admin, {
      name: 'Phone layout',
      regions: {
        header: { type: 'nav', children: [{ type: 'a', props: { href: '/' }, text: 'Home' }] },
        footer: { type: 'p', text: 'Phone footer' },
      },
    });
    expect(layout.statusCode, layout.body).to.equal(201);
    const designer = await p.t.createUser({ permissions: ['objects:read', 'websites:edit'] });
    const { page: tab, errors } = await openEditor(
      p,
      designer,
      `/cms-one/editor/layouts/${websiteId}/${layout.json().id}`,
      'phone',
    );
    const regions = tab.getByRole('radiogroup', { name: 'Layout region' });
    await expectFits(regions, 'the region switch');
    await expectFits(tab.locator('header.cms-editor-bar'), "the editor's bar");
    for (const region of ['Header', 'Aside', 'Main', 'Footer', 'Not found'])
      expect(await regions.getByRole('radio', { name: region }).count(), region).to.equal(1);
    await regions.getByText('Footer', { exact: true }).click();
    await canvas(tab).locator('footer p[data-cms-node="r"]', { hasText: 'Phone footer' }).waitFor();
    expect(await regions.getByRole('radio', { name: 'Footer' }).isChecked()).to.equal(true);
    expect(new URL(tab.url()).searchParams.get('region')).to.equal('footer');
    await expectAccessible(tab, 'layout editor at 390 px', CHROME_ONLY);
    expect(appErrors(errors)).to.deep.equal([]);
  });

  const template = async (name: string, text: string) => {
    const res = await p.t.call('POST', '/cms-one/templates', admin, {
      path: `/${name.toLowerCase().replace(/\W+/g, '-')}-${stamp}`,
      name,
      content: { type: 'section', children: [{ type: 'h2', text }] },
    });
    expect(res.statusCode, res.body).to.equal(201);
    return res.json() as { id: string };
  };

  it("template: the preview website picker fits and draws the template in the other website's theme", async () => {
    const t = await template('Phone template', 'Drawn in a theme');
    const designer = await p.t.createUser({ permissions: ['objects:read', 'templates:edit'] });
    const { page: tab, errors } = await openEditor(
      p,
      designer,
      `/cms-one/editor/templates/${t.id}?website=${websiteId}`,
      'phone',
    );
    expect(await canvasColour(tab, 'h2')).to.equal('rgb(34, 34, 34)');
    await tab.getByRole('tab', { name: 'More' }).click();
    const more = tab.getByRole('tabpanel', { name: 'More' });
    await pick(tab, more, 'Website whose theme draws it', /^Other phone site /);
    await expectFits(more, 'the preview website picker');
    await eventually(async () => expect(await canvasColour(tab, 'h2')).to.equal('rgb(11, 83, 148)'), {
      timeoutMs: 15_000,
    });
    // The choice stays in the address, so a reload draws with the same theme.
    await eventually(() => expect(new URL(tab.url()).searchParams.get('website')).to.equal(otherWebsiteId));
    await expectAccessible(tab, 'template editor, More tab at 390 px', CHROME_ONLY);
    expect(appErrors(errors)).to.deep.equal([]);
  });

  it('kit: the cards and the kit settings fit; move, remove and add work at 390 px', async () => {
    const a = await template('Alpha', 'Alpha text');
    const b = await template('Beta with a rather long template name', 'Beta text');
    const kit = await p.t.call('POST', '/cms-one/kits', admin, {
      name: `Phone kit ${stamp}`,
      templateIds: [a.id, b.id],
    });
    expect(kit.statusCode, kit.body).to.equal(201);
    const kitId = kit.json().id as string;
    const stored = async () => (await p.t.call('GET', `/cms-one/kits/${kitId}`, admin)).json().templateIds;
    const designer = await p.t.createUser({ permissions: ['objects:read', 'templates:edit', 'websites:edit'] });
    const { page: tab, context, errors } = await p.page('phone');
    await signInAs(p, context, designer);
    await tab.goto(`/cms-one/editor/kits/${kitId}?website=${websiteId}`);
    await tab.getByRole('heading', { level: 1, name: /^Editing kit/ }).waitFor();
    await tab.frameLocator('iframe[title="Template Alpha"]').locator('h2', { hasText: 'Alpha text' }).waitFor();
    const saved = () =>
      tab
        .getByRole('status')
        .filter({ hasText: /^Saved$/ })
        .waitFor({ timeout: 20_000 });
    const list = tab.getByRole('main', { name: 'Templates of the kit' });
    await expectFits(list.locator('li').first(), 'a kit card');
    await expectFits(list, 'the kit list');
    await expectFits(tab.getByRole('complementary', { name: 'Kit settings' }), 'the kit settings');
    await expectFits(tab.locator('header.cms-editor-bar'), "the kit view's bar");
    await tab.getByRole('button', { name: 'Move Alpha down' }).click();
    await tab.getByRole('heading', { name: '2. Alpha' }).waitFor();
    await saved();
    await tab.getByRole('button', { name: 'Remove Beta with a rather long template name from the kit' }).click();
    await tab.getByRole('heading', { name: /Beta with/ }).waitFor({ state: 'detached' });
    await saved();
    expect(await stored()).to.deep.equal([a.id]);
    await pick(tab, tab.getByRole('complementary', { name: 'Kit settings' }), 'Template to add', /^Beta with/);
    await tab.getByRole('button', { name: 'Add to the kit' }).click();
    await tab.getByRole('heading', { name: '2. Beta with a rather long template name' }).waitFor();
    await saved();
    expect(await stored()).to.deep.equal([a.id, b.id]);
    // The kit's theme panel: the colour picker named here too.
    await tab.getByRole('textbox', { name: 'Colour text' }).click();
    await tab.getByRole('slider', { name: 'Saturation and brightness of the colour text' }).waitFor();
    await expectFits(tab.locator('.mantine-ColorInput-dropdown'), "the kit's colour picker");
    await expectAccessible(tab, 'kit view at 390 px, colour picker open', KIT_CHROME_ONLY);
    await tab.getByRole('textbox', { name: 'Colour text' }).blur();
    await expectAccessible(tab, 'kit view at 390 px', KIT_CHROME_ONLY);
    expect(appErrors(errors)).to.deep.equal([]);
  });
});
