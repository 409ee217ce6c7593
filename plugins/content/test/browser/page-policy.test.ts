import { expect } from 'chai';
import { type BrowserProduct, sharedBrowserProduct } from '../../../../test/helpers/browser.ts';
import type { TestUser } from '../../../../test/helpers/kernel.ts';

const stamp = () => `${Date.now().toString(36)}${Math.floor(Math.random() * 1e4)}`;
/** A one-pixel GIF: an image that loads, so its `onload` handler is asked to run. */
const PIXEL = 'data:image/gif;base64,R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7';
/** Each injected piece of script records that it ran here, by name. */
const RAN = (name: string) => `window.ran=(window.ran||[]).concat('${name}')`;

/**
 * Script in the stored content, put there by SQL (no route would take it): what one slip of the
 * renderer or of a check would let through. The page's document policy must keep all of it from
 * running, while the page still draws and the form block's own script still works.
 */
const injected = (classId: string) => ({
  type: 'section',
  props: { style: { padding: '1rem' } },
  children: [
    { type: 'h1', text: 'Policy page' },
    // A prop name is written as the attribute name: this one closes the tag and opens a script element.
    { type: 'p', props: { [`x><script>${RAN('inline script')}</script><i data-x`]: '1' }, text: 'Still drawn' },
    { type: 'img', props: { src: PIXEL, alt: 'Pixel', onload: RAN('handler attribute') } },
    { type: 'a', props: { href: `javascript:${RAN('script URL')}` }, text: 'A script link' },
    {
      type: 'form',
      props: { classId, submitLabel: 'Send', successMessage: 'Thanks, we got it.' },
    },
  ],
});

describe('content: a website page never runs script injected into its stored content (renderer and document policy)', function () {
  this.timeout(180_000);
  let p: BrowserProduct;
  let admin: TestUser;
  let address: string;

  before(async function () {
    this.timeout(240_000);
    p = await sharedBrowserProduct();
    admin = await p.t.admin();
    const cls = await p.t.call('POST', '/data-classes', admin, {
      name: `PolicyLead${stamp()}`,
      label: 'Policy leads',
      fields: [{ name: 'email', type: 'text', label: 'E-mail', required: true }],
    });
    expect(cls.statusCode, cls.body).to.equal(201);
    const root = `/policy${stamp()}`;
    const site = await p.t.call('POST', '/cms-one/websites', admin, {
      name: `Policy ${root}`,
      rootPath: root,
      locales: ['en'],
    });
    expect(site.statusCode, site.body).to.equal(201);
    const page = await p.t.call('POST', '/cms-one/pages', admin, {
      websiteId: site.json().id,
      locale: 'en',
      path: '/contact',
      title: 'Policy page',
      published: true,
      content: { type: 'section', children: [{ type: 'h1', text: 'Policy page' }] },
    });
    expect(page.statusCode, page.body).to.equal(201);
    // Straight into the table, past every check the API makes.
    await p.t.db.raw('update content_pages set content = ?::jsonb where id = ?', [
      JSON.stringify(injected(cls.json().id)),
      page.json().id,
    ]);
    address = `${root}/contact`;
  });

  it('draws the page and runs its form script, but no inline script, handler attribute or script URL', async () => {
    const { page } = await p.page();
    await page.addInitScript(
      "window.violations = []; document.addEventListener('securitypolicyviolation', (e) => window.violations.push(e.violatedDirective))",
    );
    const answer = await page.goto(address);
    expect(answer?.status()).to.equal(200);
    await page.getByRole('heading', { name: 'Policy page' }).waitFor();
    await page.getByText('Still drawn').waitFor();
    await page.getByRole('img', { name: 'Pixel' }).waitFor();
    expect(await page.evaluate(`document.querySelector('img[alt="Pixel"]').complete`)).to.equal(true);
    // The renderer draws none of it: no attribute named by the hostile prop, no handler, no script URL.
    expect(await page.locator('script:not([src])').count()).to.equal(0);
    expect(await page.locator('img[onload]').count()).to.equal(0);
    // (An anchor without href is no link: found by its text.)
    expect(await page.getByText('A script link').getAttribute('href')).to.equal(null);

    // The form block's script (a file of this origin) ran: it enables the button and sends the form.
    const send = page.getByRole('button', { name: 'Send' });
    await send.and(page.locator(':enabled')).waitFor();
    await page.getByLabel('E-mail').fill('policy@example.test');
    await send.click();
    await page.getByRole('status').filter({ hasText: 'Thanks, we got it.' }).waitFor();

    expect(await page.evaluate('window.ran')).to.equal(undefined);
  });

  it("keeps script that reached the page's HTML from running: the page's own policy blocks it", async () => {
    const { page } = await p.page();
    await page.addInitScript(
      "window.violations = []; document.addEventListener('securitypolicyviolation', (e) => window.violations.push(e.violatedDirective))",
    );
    // The server's own answer, headers and all, with script added on the way: one renderer slip.
    await page.route(`**${address}`, async (route) => {
      const answer = await route.fetch();
      const html = (await answer.text()).replace(
        '</body>',
        `<script>${RAN('inline script')}</script><img src="${PIXEL}" alt="Handler" onload="${RAN('handler attribute')}"><a href="javascript:${RAN('script URL')}">A script link</a></body>`,
      );
      await route.fulfill({ response: answer, body: html });
    });
    const answer = await page.goto(address);
    expect(answer?.headers()['content-security-policy']).to.include("script-src 'self'");
    await page.getByText('Still drawn').waitFor();
    await page.getByRole('img', { name: 'Handler' }).waitFor();
    // The premise: the added script element and handler are in the document the browser got.
    expect(await page.locator('script:not([src])').count()).to.equal(1);
    expect(await page.locator('img[onload]').count()).to.equal(1);
    await page.getByRole('link', { name: 'A script link' }).click();
    // The form block's script still runs (a file of this origin): it enables the button.
    await page.getByRole('button', { name: 'Send' }).and(page.locator(':enabled')).waitFor();
    expect(await page.evaluate('window.ran')).to.equal(undefined);
    const violations = (await page.evaluate('window.violations')) as string[];
    expect(violations).to.include.members(['script-src-elem', 'script-src-attr']);
  });
});
