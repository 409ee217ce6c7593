// Regenerates the README's screenshots of the page editor (plugins/page-editor/screenshots/*.png):
// the product with every plugin on a loopback port, a website with a theme, a layout, a page of
// blocks and a kit of templates, Chromium at 1280 x 800. The main README's gallery shows them
// between the `editor-screenshots` markers, rewritten here. Run after changing the editor; commit
// the PNGs with README.md.
import path from 'node:path';
import { PROJECT_ROOT } from '../kernel/loader.ts';
import { signInAs, startBrowserProduct } from '../test/helpers/browser.ts';
import { teardownTestDatabases } from '../test/helpers/database.ts';
import { startUpstream } from '../test/helpers/upstream.ts';
import { galleryTable, rewriteReadmeSection } from './readme-gallery.ts';

const OUT = path.join(PROJECT_ROOT, 'plugins/page-editor/screenshots');

/** The screens taken below, in the gallery's order: file name and caption. */
const SHOTS = [
  { name: 'editor', title: 'Page editor: canvas, outline and inspector' },
  { name: 'blocks', title: 'Page editor: blocks from snippets, templates and kits' },
  { name: 'history', title: 'Page editor: a version beside the current state' },
  { name: 'binding', title: 'Page editor: a block bound to gateway data' },
  { name: 'data-binding', title: 'Page editor: a list bound to a data class' },
  { name: 'layout', title: 'Page editor: a layout template' },
  { name: 'kit', title: 'Page editor: a kit of templates' },
] as const;
const shotPath = (name: (typeof SHOTS)[number]['name']) => path.join(OUT, `${name}.png`);

const product = await startBrowserProduct();
// The bakery's stock system, a third-party API behind the gateway.
const stock = await startUpstream((_req, res) => {
  res.setHeader('content-type', 'application/json');
  res.end(
    JSON.stringify({
      shop: 'market-street',
      products: [
        { sku: 'WL-1', name: 'Walnut loaf', left: 4, cost: 1.2 },
        { sku: 'CB-6', name: 'Cardamom buns', left: 11, cost: 0.4 },
        { sku: 'RY-2', name: 'Rye', left: 0, cost: 0.9 },
      ],
    }),
  );
});
try {
  const { t } = product;
  const admin = await t.createUser({ roles: ['admin'], email: 'ada@example.com' });
  const site = (
    await t.call('POST', '/cms-one/websites', admin, { name: 'Bakery', rootPath: '/bakery', locales: ['en', 'de'] })
  ).json();
  const theme = await t.call('POST', `/cms-one/websites/${site.id}/themes`, admin, {
    name: 'Warm',
    colors: { background: '#fffaf3', text: '#3b2a1a', primary: '#9c4a12' },
    fonts: { body: 'Georgia, serif', heading: 'Georgia, serif' },
    customStyles:
      '.hero{padding:2rem;background:#f6e7d4;border-radius:12px} .button{display:inline-block;padding:.5rem 1rem;background:#9c4a12;color:#fff;border-radius:6px;text-decoration:none}',
  });
  await t.call('PUT', `/cms-one/websites/${site.id}/theme`, admin, { themeId: theme.json().id });
  const layout = await t.call('POST', `/cms-one/websites/${site.id}/templates`, admin, {
    name: 'Main',
    isDefault: true,
    regions: {
      header: { type: 'nav', children: [{ type: 'a', props: { href: '/bakery' }, text: 'Bakery' }] },
      footer: { type: 'p', text: '© Bakery, open every day from 7' },
    },
    slots: { body: { style: 'max-width:720px;margin:0 auto;padding:1rem' } },
  });
  for (const name of ['Opening hours', 'Newsletter sign-up'])
    await t.call('POST', '/cms-one/snippets', admin, { name, content: { type: 'p', text: name } });
  const templateIds: string[] = [];
  for (const [name, children] of [
    ['Landing page', [{ type: 'h1', text: 'Landing' }]],
    [
      'Offer',
      [
        { type: 'h2', text: 'Offer of the week' },
        { type: 'a', props: { href: '/bakery/order', className: 'button' }, text: 'Order now' },
      ],
    ],
  ] as const) {
    const template = await t.call('POST', '/cms-one/templates', admin, {
      name,
      path: `/${name.toLowerCase().replace(/ /g, '-')}`,
      content: { type: 'section', props: { className: 'hero' }, children },
    });
    templateIds.push(template.json().id);
  }
  const kit = (await t.call('POST', '/cms-one/kits', admin, { name: 'Shop pages', templateIds })).json();
  const content = {
    type: 'section',
    children: [
      {
        type: 'div',
        props: { className: 'hero' },
        children: [
          { type: 'h1', text: 'Fresh bread every morning' },
          { type: 'p', text: 'Sourdough, rye and spelt, baked before sunrise.' },
          { type: 'a', props: { href: '/bakery/order', className: 'button' }, text: 'Order for tomorrow' },
        ],
      },
      { type: 'h2', text: 'This week' },
      {
        type: 'ul',
        children: [
          { type: 'li', text: 'Walnut loaf' },
          { type: 'li', text: 'Cardamom buns' },
        ],
      },
      { type: 'blockquote', text: 'The best crust in town.' },
    ],
  };
  const page = (
    await t.call('POST', '/cms-one/pages', admin, {
      websiteId: site.id,
      locale: 'en',
      path: '/',
      title: 'Home',
      content,
    })
  ).json();
  await t.call('PATCH', `/cms-one/pages/${page.id}`, admin, {
    content: { ...content, children: [...content.children, { type: 'p', text: 'See you soon!' }] },
  });

  const endpoint = (
    await t.call('POST', '/api/v1/gateway/endpoints', admin, {
      name: 'stock',
      baseUrl: stock.url,
      auth: { type: 'none' },
    })
  ).json();
  await t.call('POST', `/api/v1/gateway/endpoints/${endpoint.id}/routes`, admin, {
    method: 'GET',
    path: '/shops/{shop}/stock',
    name: 'stockOfShop',
  });

  const { page: tab, context } = await product.page('desktop');
  await signInAs(product, context, admin);
  await tab.goto(`/cms-one/editor/pages/${page.id}`);
  await tab.locator('iframe.cms-canvas-frame[data-ready]').waitFor();
  await tab.frameLocator('iframe.cms-canvas-frame').locator('h1').click();
  await tab.getByLabel('Text').waitFor();
  await tab.waitForLoadState('networkidle');
  await tab.screenshot({ path: shotPath('editor') });
  console.log('wrote plugins/page-editor/screenshots/editor.png');
  await tab.getByRole('tab', { name: 'Blocks' }).click();
  await tab.getByRole('button', { name: 'Drag block Landing page' }).waitFor();
  await tab.screenshot({ path: shotPath('blocks') });
  console.log('wrote plugins/page-editor/screenshots/blocks.png');
  await tab.getByRole('tab', { name: 'More' }).click();
  await tab
    .getByRole('button', { name: /^Version of / })
    .first()
    .click();
  await tab.getByText(/Compared with now/).waitFor();
  await tab.screenshot({ path: shotPath('history') });
  console.log('wrote plugins/page-editor/screenshots/history.png');
  await tab
    .getByRole('button', { name: 'Close the version' })
    .click()
    .catch(() => undefined);
  await tab.getByRole('tab', { name: 'Outline' }).click();
  await tab.getByRole('list', { name: 'Outline' }).getByRole('button', { name: 'ul', exact: true }).click();
  await tab.getByRole('button', { name: 'Bind to gateway data' }).click();
  await tab.getByRole('combobox', { name: 'Endpoint' }).click();
  await tab.getByRole('option', { name: /^stock/ }).click();
  await tab.getByRole('combobox', { name: 'Route' }).click();
  await tab.getByRole('option', { name: /stockOfShop/ }).click();
  await tab.getByRole('textbox', { name: /^Path parameter shop/ }).fill('market-street');
  await tab.getByRole('button', { name: 'Read the fields from a live call' }).click();
  await tab.getByRole('button', { name: 'Open products' }).click();
  await tab.getByRole('checkbox', { name: 'name' }).check();
  await tab.getByRole('checkbox', { name: 'left' }).check();
  await tab.getByLabel('Rename left to').fill('inStock');
  await tab.getByRole('button', { name: 'Preview the data' }).click();
  await tab.getByText(/^The upstream answered 200/).waitFor();
  await tab.setViewportSize({ width: 1280, height: 1500 });
  await tab.screenshot({ path: shotPath('binding') });
  console.log('wrote plugins/page-editor/screenshots/binding.png');
  await tab.setViewportSize({ width: 1280, height: 800 });

  // A list bound to a class of the data plugin, its inspector panel open.
  const breads = (
    await t.call('POST', '/data-classes', admin, {
      name: 'Bread',
      fields: [
        { name: 'name', type: 'text', label: 'Name' },
        { name: 'price', type: 'number', label: 'Price' },
      ],
    })
  ).json();
  for (const [name, price] of [
    ['Sourdough', 4.5],
    ['Rye', 3.9],
    ['Spelt', 4.2],
  ] as const)
    await t.call('POST', '/data-objects', admin, { classId: breads.id, published: true, attributes: { name, price } });
  const list = (
    await t.call('POST', '/cms-one/pages', admin, {
      websiteId: site.id,
      locale: 'en',
      path: '/breads',
      title: 'Our breads',
      content: {
        type: 'section',
        children: [
          { type: 'h1', text: 'Our breads' },
          {
            type: 'ul',
            props: { dataBinding: { classId: breads.id, orderBy: 'price', dir: 'asc', limit: 10 } },
            children: [
              {
                type: 'li',
                children: [
                  { type: 'span', text: '{{name}}' },
                  { type: 'span', text: ' · {{price}} €' },
                ],
              },
            ],
          },
        ],
      },
    })
  ).json();
  await tab.goto(`/cms-one/editor/pages/${list.id}`);
  await tab.locator('iframe.cms-canvas-frame[data-ready]').waitFor();
  await tab.getByRole('button', { name: 'ul', exact: true }).click();
  await tab.getByRole('region', { name: 'Data binding' }).getByRole('combobox', { name: 'Order by' }).waitFor();
  await tab.waitForLoadState('networkidle');
  await tab.screenshot({ path: shotPath('data-binding') });
  console.log('wrote plugins/page-editor/screenshots/data-binding.png');
  await tab.goto(`/cms-one/editor/layouts/${site.id}/${layout.json().id}`);
  await tab.locator('iframe.cms-canvas-frame[data-ready]').waitFor();
  await tab.frameLocator('iframe.cms-canvas-frame').locator('header a').click();
  await tab.getByLabel('Text').waitFor();
  await tab.waitForLoadState('networkidle');
  await tab.screenshot({ path: shotPath('layout') });
  console.log('wrote plugins/page-editor/screenshots/layout.png');
  await tab.goto(`/cms-one/editor/kits/${kit.id}?website=${site.id}`);
  await tab.locator('iframe.cms-kit-frame[data-ready]').nth(1).waitFor();
  await tab.waitForLoadState('networkidle');
  await tab.screenshot({ path: shotPath('kit') });
  console.log('wrote plugins/page-editor/screenshots/kit.png');
  rewriteReadmeSection(
    'editor-screenshots',
    galleryTable(SHOTS.map((s) => ({ title: s.title, file: `plugins/page-editor/screenshots/${s.name}.png` }))),
  );
  console.log(`README.md: gallery of the editor's ${SHOTS.length} screens (run npx biome format --write README.md)`);
} finally {
  await stock.close();
  await product.close();
  await teardownTestDatabases();
}
