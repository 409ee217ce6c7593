import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { type BrowserProduct, expectAccessible, sharedBrowserProduct } from '../../../../test/helpers/browser.ts';
import { eventually, type TestUser } from '../../../../test/helpers/kernel.ts';

const HOSTILE = '<img src=x onerror="window.hacked=1">';
const stamp = () => `${Date.now().toString(36)}${Math.floor(Math.random() * 1e4)}`;

/** The `cms-form-result` events the page has seen (listened for on the document: the event bubbles). */
const results = (page: Page) => page.evaluate('window.formResults') as Promise<Array<Record<string, unknown>>>;

describe('content: a form block on the public page in the browser', function () {
  this.timeout(180_000);
  let p: BrowserProduct;
  let admin: TestUser;
  let classId: string;
  let address: string;
  const notify = { to: 'owner@example.test', subject: 'New lead' };

  before(async function () {
    this.timeout(240_000);
    p = await sharedBrowserProduct();
    admin = await p.t.admin();
    const cls = await p.t.call('POST', '/data-classes', admin, {
      name: `Lead${stamp()}`,
      label: `Leads ${HOSTILE}`,
      fields: [
        { name: 'name', type: 'text', label: `Name ${HOSTILE}`, required: true },
        { name: 'email', type: 'text', label: 'E-mail', required: true },
        // Checked by the server only: a value the browser lets through is refused there.
        { name: 'code', type: 'text', label: 'Voucher code', validation: { pattern: '^[A-Z]{3}$' } },
        { name: 'topic', type: 'select', label: 'Topic', options: ['sales', 'support'] },
        { name: 'newsletter', type: 'boolean', label: 'Send me news' },
      ],
    });
    expect(cls.statusCode, cls.body).to.equal(201);
    classId = cls.json().id;
    const root = `/forms${stamp()}`;
    const site = await p.t.call('POST', '/cms-one/websites', admin, {
      name: `Forms ${root}`,
      rootPath: root,
      locales: ['en'],
    });
    expect(site.statusCode, site.body).to.equal(201);
    const page = await p.t.call('POST', '/cms-one/pages', admin, {
      websiteId: site.json().id,
      locale: 'en',
      path: '/contact',
      title: 'Contact us',
      published: true,
      content: {
        type: 'section',
        children: [
          { type: 'h1', text: 'Contact us' },
          {
            type: 'form',
            props: { classId, notify, submitLabel: 'Send request', successMessage: 'Thanks, we got it.' },
          },
        ],
      },
    });
    expect(page.statusCode, page.body).to.equal(201);
    address = `${root}/contact`;
  });

  const open = async () => {
    const opened = await p.page();
    // Console errors with where they came from: the answers the script handles (a refused field, the
    // rate limit) and the favicon the public page does not have are expected.
    const errors: string[] = [];
    opened.page.on('console', (m) => {
      const from = m.location().url;
      if (m.type() === 'error' && !from.endsWith('/favicon.ico') && !/status of (400|429) /.test(m.text()))
        errors.push(`${m.text()} ${from}`);
    });
    opened.page.on('pageerror', (e) => errors.push(e.message));
    await opened.page.goto(address);
    await opened.page.evaluate(
      "window.formResults = []; document.addEventListener('cms-form-result', (e) => window.formResults.push(e.detail))",
    );
    // The script enables the button (disabled in the HTML: without script nothing is sent).
    await opened.page.getByRole('button', { name: 'Send request' }).and(opened.page.locator(':enabled')).waitFor();
    return { page: opened.page, errors };
  };

  it('shows a labelled, accessible form; a refused field shows the server reason beside it; a valid submit creates an unpublished object', async () => {
    const { page, errors } = await open();
    const form = page.getByRole('form', { name: `Leads ${HOSTILE}` });
    await form.waitFor();
    // Hostile labels are text: no element was made of them, nothing ran.
    expect(await page.locator('img').count()).to.equal(0);
    expect(await page.evaluate('window.hacked')).to.equal(undefined);
    await expectAccessible(page, 'public page with a form');

    await page.getByLabel(`Name ${HOSTILE}`).fill('Ann');
    await page.getByLabel('E-mail').fill('ann@example.test');
    await page.getByLabel('Voucher code').fill('abc');
    await page.getByLabel('Topic').selectOption('support');
    await page.getByLabel('Send me news').check();
    await page.getByRole('button', { name: 'Send request' }).click();

    // The server's reason beside the field it names, the field marked and focused.
    const code = page.getByLabel('Voucher code');
    await eventually(async () => expect(await code.getAttribute('aria-invalid')).to.equal('true'));
    const described = await code.getAttribute('aria-describedby');
    const reason = page.locator(`#${described}`);
    expect(await reason.textContent()).to.match(/^Voucher code: /);
    expect(await page.evaluate('document.activeElement.name')).to.equal('code');
    await page.getByRole('status').filter({ hasText: 'Please correct the marked field.' }).waitFor();
    await eventually(async () => expect(await results(page)).to.have.length(1));
    expect((await results(page))[0]).to.deep.include({
      outcome: 'invalid',
      success: false,
      status: 400,
      field: 'code',
    });
    await expectAccessible(page, 'form with a refused field');

    await code.fill('ABC');
    await page.getByRole('button', { name: 'Send request' }).click();
    await page.getByRole('status').filter({ hasText: 'Thanks, we got it.' }).waitFor();
    await eventually(async () => expect(await results(page)).to.have.length(2));
    const done = (await results(page))[1];
    expect(done).to.include({ outcome: 'success', success: true, status: 201 });
    expect(await code.getAttribute('aria-invalid')).to.equal(null);
    expect(await page.locator('[data-cms-form-error]').count()).to.equal(0);
    // The object exists, unpublished, with what was typed (the form was reset after).
    const object = await p.t.call('GET', `/data-objects/${done.id}`, admin);
    expect(object.statusCode, object.body).to.equal(200);
    expect(object.json()).to.include({ published: false, locale: 'en', classId });
    expect(object.json().attributes).to.deep.equal({
      name: 'Ann',
      email: 'ann@example.test',
      code: 'ABC',
      topic: 'support',
      newsletter: true,
    });
    expect(await page.getByLabel('E-mail').inputValue()).to.equal('');
    expect(errors).to.deep.equal([]);
  });

  it('a path of the website with no page shows the website 404 document with status 404', async () => {
    const { page } = await p.page();
    const answer = await page.goto(address.replace(/\/contact$/, '/nowhere'));
    expect(answer?.status()).to.equal(404);
    await page.getByRole('heading', { name: 'Page not found' }).waitFor();
    expect(await page.title()).to.equal('Page not found');
  });

  it('says "try again later" when the submit limit of the address is reached', async () => {
    // Use up this address's submits (the spec: 10 per 15 minutes), then free them for the run's other tests.
    for (let i = 0; i < 11; i++) {
      const res = await p.t.inject({
        method: 'POST',
        url: `/public/forms/${classId}/submit`,
        payload: { attributes: {} },
      });
      if (res.statusCode === 429) break;
    }
    try {
      const { page, errors } = await open();
      await page.getByLabel(`Name ${HOSTILE}`).fill('Bo');
      await page.getByLabel('E-mail').fill('bo@example.test');
      await page.getByRole('button', { name: 'Send request' }).click();
      await page.getByRole('status').filter({ hasText: 'try again later' }).waitFor();
      await eventually(async () => expect(await results(page)).to.have.length(1));
      expect((await results(page))[0]).to.include({ outcome: 'rate-limited', success: false, status: 429 });
      expect(errors).to.deep.equal([]);
    } finally {
      await p.t.advanceClock(16 * 60_000);
    }
  });
});
