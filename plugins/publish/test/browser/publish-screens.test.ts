import { expect } from 'chai';
import type { Page } from 'playwright-core';
import {
  appErrors,
  type BrowserProduct,
  expectAccessible,
  sharedBrowserProduct,
  signInAs,
} from '../../../../test/helpers/browser.ts';

const heading = (page: Page) => page.getByRole('heading', { name: 'Static builds', level: 1 });
/** The state badge in the row of the website's build (the table's only row for that website). */
const stateOf = (page: Page, website: string) =>
  page
    .getByRole('row')
    .filter({ hasText: website })
    .getByText(/^(queued|running|cancelling|succeeded|failed|cancelled)$/);

describe('publish screen in the browser: static builds', function () {
  this.timeout(180_000);
  let p: BrowserProduct;
  before(async function () {
    this.timeout(240_000);
    p = await sharedBrowserProduct();
  });

  it('an editor queues a build of a website, cancels it, retries it and reads its log; axe-clean at both widths', async () => {
    const admin = await p.t.admin();
    const name = `Builds ${Date.now().toString(36)}`;
    const site = await p.t.call('POST', '/cms-one/websites', admin, {
      name,
      rootPath: `/b${Date.now().toString(36)}`,
      locales: ['en'],
    });
    expect(site.statusCode, site.body).to.equal(201);
    const editor = await p.t.createUser({ permissions: ['objects:read', 'objects:write'] });
    const { page, context, errors } = await p.page();
    await signInAs(p, context, editor);
    await page.goto('/admin/publish');
    await heading(page).waitFor();
    await page.getByText('No build yet').or(page.getByRole('row').nth(1)).first().waitFor();
    await expectAccessible(page, 'static builds');

    await page.getByRole('combobox', { name: 'Website' }).click();
    await page.getByRole('option', { name: new RegExp(`^${name}`) }).click();
    await page.getByRole('button', { name: 'Build the website' }).click();
    await stateOf(page, name).filter({ hasText: 'queued' }).waitFor();
    const [job] = (await p.t.call('GET', `/publish/jobs?websiteId=${site.json().id}`, admin)).json().jobs;
    expect(job.state).to.equal('queued');

    await page.getByRole('button', { name: `Cancel the build of ${name}` }).click();
    await stateOf(page, name).filter({ hasText: 'cancelled' }).waitFor();
    await page.getByRole('button', { name: `Retry the build of ${name}` }).click();
    await stateOf(page, name).filter({ hasText: 'queued' }).waitFor();

    await page.getByRole('button', { name: `Log of the build of ${name}` }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText('queued again (retry)').waitFor();
    await dialog.getByText('cancel requested').waitFor();
    await expectAccessible(page, 'build log');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    expect(appErrors(errors)).to.deep.equal([]);

    const phone = await p.page('phone');
    await signInAs(p, phone.context, editor);
    await phone.page.goto('/admin/publish');
    await heading(phone.page).waitFor();
    await stateOf(phone.page, name).first().waitFor();
    await expectAccessible(phone.page, 'static builds (390 px)');
    expect(appErrors(phone.errors)).to.deep.equal([]);
    // Leave nothing queued for other files' tests.
    expect((await p.t.call('POST', `/publish/jobs/${job.id}/cancel`, admin)).statusCode).to.equal(200);
  });

  it('a reader follows the builds but is offered no build, cancel or retry', async () => {
    const admin = await p.t.admin();
    const name = `Watched ${Date.now().toString(36)}`;
    const site = await p.t.call('POST', '/cms-one/websites', admin, {
      name,
      rootPath: `/w${Date.now().toString(36)}`,
      locales: ['en'],
    });
    const job = await p.t.call('POST', '/publish/jobs', admin, { websiteId: site.json().id });
    expect(job.statusCode, job.body).to.equal(202);
    const reader = await p.t.createUser({ permissions: ['objects:read'] });
    const { page, context, errors } = await p.page();
    await signInAs(p, context, reader);
    await page.goto('/admin/publish');
    await heading(page).waitFor();
    await stateOf(page, name).filter({ hasText: 'queued' }).waitFor();
    expect(await page.getByRole('button', { name: 'Build the website' }).count()).to.equal(0);
    expect(await page.getByRole('button', { name: `Cancel the build of ${name}` }).count()).to.equal(0);
    await page.getByRole('button', { name: `Log of the build of ${name}` }).waitFor();
    expect(appErrors(errors)).to.deep.equal([]);
    expect((await p.t.call('POST', `/publish/jobs/${job.json().id}/cancel`, admin)).statusCode).to.equal(200);
  });

  it('queued builds with no runner heard from say so, with what to start; a recent claim takes the notice away', async () => {
    const admin = await p.t.admin();
    const name = `Waiting ${Date.now().toString(36)}`;
    const site = await p.t.call('POST', '/cms-one/websites', admin, {
      name,
      rootPath: `/q${Date.now().toString(36)}`,
      locales: ['en'],
    });
    const job = await p.t.call('POST', '/publish/jobs', admin, { websiteId: site.json().id });
    expect(job.statusCode, job.body).to.equal(202);
    const list = (await p.t.call('GET', '/publish/jobs?limit=1', admin)).json();
    expect(list.runner).to.deep.equal({ lastSeenAt: null });
    const { page, context, errors } = await p.page();
    await signInAs(p, context, admin);
    await page.goto('/admin/publish');
    const notice = page.getByRole('alert').filter({ hasText: 'No publish runner has connected' });
    await notice.waitFor();
    await notice.getByText('cms publish-runner').waitFor();
    await notice.getByText('PUBLISH_RUNNER_TOKEN').waitFor();
    await expectAccessible(page, 'static builds with no runner');

    // A runner's claim a minute ago (the row a claim writes; the browser product runs no runner).
    const claimedAt = new Date(Date.now() - 60_000);
    await p.t.db('publish_jobs').where({ id: job.json().id }).update({ claimed_at: claimedAt });
    const after = (await p.t.call('GET', '/publish/jobs?limit=1', admin)).json();
    expect(after.runner).to.deep.equal({ lastSeenAt: claimedAt.toISOString() });
    const answered = page.waitForResponse((r) => /\/publish\/jobs\?.*state=queued/.test(r.url()));
    await page.reload();
    await answered;
    await stateOf(page, name).filter({ hasText: 'queued' }).waitFor();
    expect(await notice.count()).to.equal(0);
    expect(appErrors(errors)).to.deep.equal([]);
    await p.t.db('publish_jobs').where({ id: job.json().id }).update({ claimed_at: null });
    expect((await p.t.call('POST', `/publish/jobs/${job.json().id}/cancel`, admin)).statusCode).to.equal(200);
  });
});
