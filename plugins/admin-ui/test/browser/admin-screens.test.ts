import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import type { Locator, Page } from 'playwright-core';
import {
  appErrors,
  type BrowserProduct,
  expectAccessible,
  signInAs,
  sharedBrowserProduct,
  WIDTHS,
} from '../../../../test/helpers/browser.ts';
import { eventually } from '../../../../test/helpers/kernel.ts';

/** Opens a screen through the main menu (the burger first on a phone), waits for its h1. */
async function openFromMenu(page: Page, label: string, heading = label) {
  const burger = page.getByRole('button', { name: 'Toggle the menu' });
  if (await burger.isVisible()) await burger.click();
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: label, exact: true }).click();
  await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
}

/** A create dialog opens in its first field: the focus lands there (polled; not on the Close button). */
async function expectFocusIn(page: Page, field: Locator) {
  const id = await field.getAttribute('id');
  // A function, not a string: the dashboard's CSP refuses string evaluation on the later polls.
  await page.waitForFunction(
    (expected) =>
      (globalThis as unknown as { document: { activeElement: { id: string } | null } }).document.activeElement?.id ===
      expected,
    id,
    { timeout: 5_000 },
  );
}

describe('admin-ui in the browser: the administrator screens', function () {
  this.timeout(180_000);
  let p: BrowserProduct;
  before(async function () {
    this.timeout(240_000);
    p = await sharedBrowserProduct();
  });

  for (const width of Object.keys(WIDTHS) as (keyof typeof WIDTHS)[]) {
    it(`every administrator screen opens from the menu and passes axe at ${WIDTHS[width].width} px`, async () => {
      const admin = await p.t.createUser({ roles: ['admin'] });
      const { page, context, errors } = await p.page(width);
      await signInAs(p, context, admin);
      await page.goto('/admin');
      await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
      await page.getByRole('heading', { name: 'Recent activity' }).waitFor();
      await page.getByText('Users', { exact: true }).first().waitFor();
      await expectAccessible(page, `home (${width})`);
      for (const [label, heading] of [
        ['Search', 'Search content'],
        ['Websites', 'Websites'],
        ['Static builds', 'Static builds'],
        ['Snippets', 'Snippets'],
        ['Templates', 'Templates'],
        ['Themes', 'Themes'],
        ['Editor settings', 'Editor settings'],
        ['Users', 'Users'],
        ['Roles', 'Roles'],
        ['Security settings', 'Security settings'],
        ['Single sign-on', 'Single sign-on'],
        ['Data-subject requests', 'Data-subject requests'],
        ['Website bundles', 'Website bundles'],
        ['Import from Figma', 'Import from Figma'],
        ['Figma', 'Figma settings'],
        ['Push notifications', 'Push notifications'],
        ['Audit log', 'Audit log'],
        ['Health', 'Health'],
        ['Two-factor sign-in', 'Two-factor sign-in'],
      ]) {
        await openFromMenu(page, label, heading);
        await page
          .getByRole('status')
          .or(page.getByRole('alert'))
          .waitFor({ state: 'detached' })
          .catch(() => {});
        await expectAccessible(page, `${heading} (${width})`);
      }
      // A record screen: the first user, then the editor role's permission keys by plugin.
      await openFromMenu(page, 'Users');
      await page.getByRole('cell', { name: admin.email }).first().click();
      await page.getByRole('heading', { name: admin.email, level: 1 }).waitFor();
      await expectAccessible(page, `user (${width})`);
      await openFromMenu(page, 'Roles');
      await page.getByRole('cell', { name: /^editor/ }).click();
      await page.getByRole('heading', { name: 'Role editor', level: 1 }).waitFor();
      await page.getByRole('checkbox', { name: 'objects:write', exact: true }).waitFor();
      expect(await page.getByRole('checkbox', { name: 'objects:write', exact: true }).isChecked()).to.equal(true);
      await expectAccessible(page, `role (${width})`);
      expect(appErrors(errors)).to.deep.equal([]);
    });
  }

  it('creates a user with a role, and a role with keys chosen by plugin', async () => {
    const admin = await p.t.createUser({ roles: ['admin'] });
    const { page, context, errors } = await p.page();
    await signInAs(p, context, admin);
    await page.goto('/admin/roles');
    await page.getByRole('button', { name: 'New role' }).click();
    await expectFocusIn(page, page.getByRole('dialog').getByLabel(/^Name/));
    const role = `proofreaders-${Date.now()}`;
    await page.getByRole('dialog').getByLabel(/^Name/).fill(role);
    await page.getByRole('button', { name: 'Create role' }).click();
    await page.getByRole('heading', { name: `Role ${role}`, level: 1 }).waitFor();
    await page.getByRole('checkbox', { name: 'audit:read' }).check();
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Role saved').waitFor();
    const roles = (await p.t.call('GET', '/auth/roles', admin)).json().roles as {
      name: string;
      permissions: string[];
    }[];
    expect(roles.find((r) => r.name === role)?.permissions).to.deep.equal(['audit:read']);

    await page.goto('/admin/users');
    await page.getByRole('button', { name: 'New user' }).click();
    const email = `proofreader-${Date.now()}@example.test`;
    const dialog = page.getByRole('dialog');
    await expectFocusIn(page, dialog.getByLabel(/^E-mail/));
    await dialog.getByLabel(/^E-mail/).fill(email);
    await dialog.getByLabel(/^Password/).fill('A-long-passw0rd-here');
    await dialog.getByLabel('Roles').click();
    await page.getByRole('option', { name: role }).click();
    await page.keyboard.press('Escape');
    await dialog.getByRole('button', { name: 'Create user' }).click();
    await page.getByRole('heading', { name: email, level: 1 }).waitFor();
    const users = (await p.t.call('GET', `/auth/users?q=${encodeURIComponent(email)}`, admin)).json().users;
    expect(users[0]).to.include({ email });
    expect(users[0].roles).to.deep.equal([role]);
    expect(appErrors(errors)).to.deep.equal([]);
  });

  it('filters the audit log (the filter in the URL, back button safe) and downloads that as CSV', async () => {
    const admin = await p.t.createUser({ roles: ['admin'] });
    const marker = `audited-${Date.now()}`;
    await p.t.call('POST', '/auth/roles', admin, { name: marker, permissions: [] });
    const { page, context, errors } = await p.page();
    await signInAs(p, context, admin);
    await page.goto('/admin/audit-log');
    await page.getByRole('heading', { name: 'Audit log', level: 1 }).waitFor();
    await page.getByLabel('Action').fill('role.create');
    await page.waitForURL(/action=role\.create/);
    const table = page.getByRole('table', { name: 'Audit log entries' });
    await table
      .getByRole('cell', { name: new RegExp(marker) })
      .first()
      .waitFor();
    // Until the filtered page replaces the previous one the table shows that one (with a busy state).
    await eventually(
      async () => {
        const actions = await table.locator('tbody tr td:nth-child(2)').allTextContents();
        expect(actions.length).to.be.greaterThan(0);
        for (const action of actions) expect(action).to.equal('role.create');
      },
      { timeoutMs: 15_000 },
    );
    await expectAccessible(page, 'audit log, filtered');

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Download CSV' }).click(),
    ]);
    expect(download.suggestedFilename()).to.match(/^audit-log-.*\.csv$/);
    const csv = readFileSync((await download.path())!, 'utf8')
      .trim()
      .split('\n');
    expect(csv[0]).to.contain('action');
    expect(csv.length).to.be.greaterThan(1);
    for (const line of csv.slice(1)) expect(line).to.contain('role.create');
    expect(csv.some((line) => line.includes(marker))).to.equal(true);

    // A deep link with the filter, then back to the unfiltered list.
    await page.getByLabel('Action').fill('');
    await page.waitForURL((url) => !url.search.includes('action='));
    await page.goBack();
    await page.waitForURL(/action=role\.create/);
    await eventually(async () => expect(await page.getByLabel('Action').inputValue()).to.equal('role.create'), {
      timeoutMs: 15_000,
    });
    expect(appErrors(errors)).to.deep.equal([]);
  });

  it('creates a website from its list', async () => {
    const admin = await p.t.createUser({ roles: ['admin'] });
    const { page, context, errors } = await p.page();
    await signInAs(p, context, admin);
    await page.goto('/admin/websites');
    await page.getByRole('button', { name: 'New website' }).click();
    const dialog = page.getByRole('dialog');
    // Like every create dialog, it starts in its first field (not on its Close button).
    await expectFocusIn(page, dialog.getByLabel(/^Name/));
    const root = `site${Date.now()}`;
    await dialog.getByLabel(/^Name/).fill('Shop');
    await dialog.getByLabel(/^Root path/).fill(`/${root}`);
    await dialog.getByRole('button', { name: 'Create website' }).click();
    // The new website's screen opens; the list shows it too.
    await page.getByRole('heading', { name: 'Shop', level: 1 }).waitFor();
    await page.getByRole('link', { name: 'All websites' }).click();
    await page.getByRole('cell', { name: new RegExp(root) }).waitFor();
    expect(appErrors(errors)).to.deep.equal([]);
  });

  it('shows a viewer no administrator screen; a deep link says "Not allowed"', async () => {
    const viewer = await p.t.createUser({ roles: ['viewer'] });
    const { page, context, errors } = await p.page();
    await signInAs(p, context, viewer);
    await page.goto('/admin');
    await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
    const menu = page.getByRole('navigation', { name: 'Main' });
    await menu.getByRole('link', { name: 'Search' }).waitFor();
    for (const hidden of [
      'Users',
      'Roles',
      'Security settings',
      'Single sign-on',
      'Data-subject requests',
      'Push notifications',
      'Audit log',
      'Health',
    ])
      expect(await menu.getByRole('link', { name: hidden, exact: true }).count(), hidden).to.equal(0);
    await expectAccessible(page, 'home as a viewer');
    for (const path of ['/admin/users', '/admin/audit-log']) {
      await page.goto(path);
      await page.getByRole('alert').filter({ hasText: 'Not allowed' }).waitFor();
    }
    await expectAccessible(page, 'not allowed');
    expect((await p.t.call('GET', '/auth/users', viewer)).statusCode).to.equal(403);
    expect(appErrors(errors)).to.deep.equal([]);
  });

  it('jumps to a screen from the command palette (Ctrl+K)', async () => {
    const admin = await p.t.createUser({ roles: ['admin'] });
    const { page, context, errors } = await p.page();
    await signInAs(p, context, admin);
    await page.goto('/admin');
    await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
    await page.keyboard.press('Control+k');
    const search = page.getByRole('textbox', { name: 'Jump to a screen or search content' });
    await search.fill('audit');
    await expectAccessible(page, 'command palette');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Audit log', level: 1 }).waitFor();
    expect(appErrors(errors)).to.deep.equal([]);
  });
});
