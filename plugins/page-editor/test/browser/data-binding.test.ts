import { expect } from 'chai';
import type { Page } from 'playwright-core';
import {
  appErrors,
  type BrowserProduct,
  expectAccessible,
  sharedBrowserProduct,
  signInAs,
} from '../../../../test/helpers/browser.ts';
import { eventually, type TestUser } from '../../../../test/helpers/kernel.ts';

/** The canvas shows the user's own content: axe checks the editor's chrome around it. */
const CHROME_ONLY = { exclude: ['.cms-canvas-frame', '.cms-version-frame'] };
const canvas = (page: Page) => page.frameLocator('iframe.cms-canvas-frame');

describe('page editor in the browser: data bindings to classes', function () {
  this.timeout(180_000);
  let p: BrowserProduct;
  let admin: TestUser;

  before(async function () {
    this.timeout(240_000);
    p = await sharedBrowserProduct();
    admin = await p.t.admin();
  });

  it('binds a list to a class in the inspector: the canvas shows the objects, the published page serves them', async () => {
    const stamp = Date.now().toString(36);
    const rootPath = `/bind${stamp}`;
    const site = await p.t.call('POST', '/cms-one/websites', admin, { name: 'Bound site', rootPath, locales: ['en'] });
    expect(site.statusCode, site.body).to.equal(201);
    const cls = await p.t.call('POST', '/data-classes', admin, {
      name: `Team${stamp}`,
      label: `Team ${stamp}`,
      fields: [
        { name: 'member', type: 'text', label: 'Member' },
        { name: 'seniority', type: 'number', label: 'Seniority' },
      ],
    });
    expect(cls.statusCode, cls.body).to.equal(201);
    const people = [
      { member: 'Noor <lead>', seniority: 9, published: true },
      { member: 'Ines', seniority: 4, published: true },
      { member: 'Jonas', seniority: 1, published: true },
      { member: 'Draft Dora', seniority: 5, published: false },
    ];
    for (const { published, ...attributes } of people) {
      const res = await p.t.call('POST', '/data-objects', admin, { classId: cls.json().id, published, attributes });
      expect(res.statusCode, res.body).to.equal(201);
    }
    const created = await p.t.call('POST', '/cms-one/pages', admin, {
      websiteId: site.json().id,
      locale: 'en',
      path: '/team',
      title: 'Team',
      content: { type: 'section', children: [{ type: 'h1', text: 'Our team' }, { type: 'ul' }] },
    });
    expect(created.statusCode, created.body).to.equal(201);
    const editor = await p.t.createUser({ permissions: ['objects:read', 'pages:edit', 'objects:publish'] });

    const { page, context, errors } = await p.page();
    await signInAs(p, context, editor);
    await page.goto(`/cms-one/editor/pages/${created.json().id}`);
    await page.getByRole('heading', { level: 1, name: 'Editing page: Team' }).waitFor();
    await page.locator('iframe.cms-canvas-frame[data-ready]').waitFor();

    // Select the empty list in the outline and bind it to the class.
    await page.getByRole('button', { name: 'ul', exact: true }).click();
    const panel = page.getByRole('region', { name: 'Data binding' });
    await panel.getByRole('combobox', { name: 'Show objects of the class' }).click();
    await page.getByRole('option', { name: `Team ${stamp}` }).click();
    // The empty list got a first item showing the first text field: one item per published object.
    await canvas(page).locator('li', { hasText: 'Jonas' }).waitFor();
    expect(await canvas(page).locator('li').count()).to.equal(3);
    await expect(await canvas(page).locator('body').textContent()).not.to.contain('Draft Dora');

    // Ordered by seniority, descending, two of them.
    await panel.getByRole('combobox', { name: 'Order by' }).click();
    await page.getByRole('option', { name: 'Seniority' }).click();
    await panel.getByRole('combobox', { name: 'Direction' }).click();
    await page.getByRole('option', { name: /^Descending/ }).click();
    await panel.getByRole('textbox', { name: 'Number of objects' }).fill('2');
    // The order and the number apply one after the other: wait for both, not for a step between.
    await eventually(
      async () => {
        expect(await canvas(page).locator('li').allTextContents()).to.deep.equal(['Noor <lead>', 'Ines']);
        return true;
      },
      { timeoutMs: 15_000, what: 'the ordered, limited list' },
    );
    await expectAccessible(page, 'editor data binding panel', CHROME_ONLY);

    // A field placeholder added from the panel goes into the template.
    await panel.getByRole('button', { name: 'Add {{seniority}}' }).click();
    await canvas(page).locator('li > span', { hasText: '9' }).waitFor();

    // Clicking a bound item selects the template's node.
    await canvas(page).locator('span', { hasText: 'Ines' }).click();
    await page.getByRole('heading', { name: 'Block: span' }).waitFor();
    expect(await page.getByLabel('Text').inputValue()).to.equal('{{member}}');

    await page.getByRole('button', { name: 'Publish' }).click();
    await page.getByText('Published', { exact: true }).first().waitFor();
    const stored = (await p.t.call('GET', `/cms-one/pages/${created.json().id}`, admin)).json();
    expect(stored.content.children[1].props.dataBinding).to.deep.equal({
      classId: cls.json().id,
      limit: 2,
      orderBy: 'seniority',
      dir: 'desc',
    });
    const visitor = await context.newPage();
    const answer = await visitor.goto(`${rootPath}/team`);
    expect(answer?.status()).to.equal(200);
    const html = await answer!.text();
    expect(html).to.contain(
      '<ul><li><span>Noor &lt;lead&gt;</span><span> 9</span></li><li><span>Ines</span><span> 4</span></li></ul>',
    );
    expect(html).not.to.contain('Jonas');
    expect(html).not.to.contain('Draft Dora');
    expect(appErrors(errors)).to.deep.equal([]);
  });
});
