import AxeBuilder from '@axe-core/playwright';
import { expect } from 'chai';
import { authenticator } from 'otplib';
import type { Page } from 'playwright-core';
import {
  appErrors,
  type BrowserProduct,
  expectAccessible,
  heading,
  sharedBrowserProduct,
  signInAs,
} from '../../../../test/helpers/browser.ts';
import type { TestUser } from '../../../../test/helpers/kernel.ts';

/** A TOTP code as an authenticator app shows it at the kernel clock's time. */
const totp = (p: BrowserProduct, secret: string) =>
  authenticator.clone({ epoch: p.t.clock.now().getTime() }).generate(secret);

/** The session ends under the user's hands: its row is gone, as after an expiry purge or a revocation elsewhere. */
async function endSessions(p: BrowserProduct, user: TestUser) {
  const gone = await p.t.db('sessions').where({ user_id: user.id }).delete();
  expect(gone, 'sessions deleted').to.be.greaterThan(0);
}

describe('admin-ui in the browser: an ended session and unsaved changes', function () {
  this.timeout(150_000);
  let p: BrowserProduct;
  let admin: TestUser;
  before(async function () {
    this.timeout(240_000);
    p = await sharedBrowserProduct();
    admin = await p.t.admin();
  });

  /** A role of its own, and its edit screen open in a fresh page signed in as `user`. */
  async function openRole(user: TestUser) {
    const name = `session-role-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`;
    const created = await p.t.call('POST', '/auth/roles', admin, { name, permissions: ['objects:read'] });
    expect(created.statusCode, created.body).to.equal(201);
    const role = created.json() as { id: string };
    const tab = await p.page();
    await signInAs(p, tab.context, user);
    await tab.page.goto(`/admin/roles/${role.id}`);
    await heading(tab.page, name).waitFor();
    return { ...tab, role, name };
  }

  const storedDescription = async (id: string) =>
    ((await p.t.call('GET', `/auth/roles/${id}`, admin)).json() as { description: string }).description;

  const dialog = (page: Page) => page.getByRole('dialog', { name: 'Your session has ended' });

  it('keeps the edit when the session ends, signs in again in a dialog and saves it', async () => {
    const user = await p.t.createUser({ roles: ['admin'] });
    const { page, errors, role } = await openRole(user);
    const description = page.getByLabel('Description');
    await description.fill('Typed before');
    await endSessions(p, user);
    // Going on with the edit: nothing tells the user yet, nothing is lost.
    await description.fill('Typed before and after the session ended');
    await page.getByRole('button', { name: 'Save', exact: true }).click();

    await dialog(page).waitFor();
    expect(await page.getByLabel('E-mail').inputValue()).to.equal(user.email);
    await expectAccessible(page, 'session dialog');
    await page.getByLabel(/^Password/).fill('wrong-password');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await dialog(page).getByRole('alert').waitFor();
    await expectAccessible(page, 'session dialog, wrong password');
    await page.getByLabel(/^Password/).fill(user.password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();

    // The save that was refused went again with the new session.
    await page.getByText('Role saved').waitFor();
    await dialog(page).waitFor({ state: 'detached' });
    expect(await storedDescription(role.id)).to.equal('Typed before and after the session ended');
    expect(await description.inputValue()).to.equal('Typed before and after the session ended');
    expect(appErrors(errors)).to.deep.equal([]);
  });

  it('asks for the second factor in the dialog when the role requires it', async () => {
    const role = `session-2fa-${Date.now().toString(36)}`;
    const made = await p.t.call('POST', '/auth/roles', admin, { name: role, permissions: ['objects:read'] });
    expect(made.statusCode, made.body).to.equal(201);
    const put = await p.t.call('PUT', '/security-settings', admin, { mfaRequiredRoles: [role] });
    expect(put.statusCode, put.body).to.equal(200);
    try {
      const user = await p.t.createUser({ roles: ['admin', role] });
      const setup = (await p.t.call('POST', '/auth/mfa/setup', user, {})).json();
      const verified = await p.t.call('POST', '/auth/mfa/verify-setup', user, { code: totp(p, setup.secret) });
      expect(verified.statusCode, verified.body).to.equal(200);
      await p.t.advanceClock(60_000); // a fresh TOTP step: the enrolment's code is used up

      const { page, errors, role: edited } = await openRole(user);
      await endSessions(p, user);
      await page.getByLabel('Description').fill('Saved after the second factor');
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await dialog(page).waitFor();
      await page.getByLabel(/^Password/).fill(user.password);
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();
      await page.getByRole('dialog', { name: 'Two-factor sign-in' }).waitFor();
      await expectAccessible(page, 'session dialog, second factor');
      await page.getByLabel('Digit 1 of 6').pressSequentially(totp(p, setup.secret));
      await page.getByText('Role saved').waitFor();
      expect(await storedDescription(edited.id)).to.equal('Saved after the second factor');
      expect(appErrors(errors)).to.deep.equal([]);
    } finally {
      await p.t.call('PUT', '/security-settings', admin, { mfaRequiredRoles: [] });
    }
  });

  it('saves nothing in the name of another user who signs in in the dialog: back to the first user, or a reload', async () => {
    const user = await p.t.createUser({ roles: ['admin'] });
    const other = await p.t.createUser({ roles: ['admin'] });
    const { page, errors, role } = await openRole(user);
    const notice = page.getByRole('dialog', { name: 'Signed in as someone else' });
    const saveAsOther = async (description: string) => {
      await endSessions(p, user);
      await page.getByLabel('Description').fill(description);
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await dialog(page).waitFor();
      await page.getByLabel('E-mail').fill(other.email);
      await page.getByLabel(/^Password/).fill(other.password);
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();
      await notice.waitFor();
    };

    // Back to the first user: the waiting save goes in their name.
    await saveAsOther('Saved by the first user');
    await expectAccessible(page, 'session dialog, another user');
    expect(await storedDescription(role.id)).to.equal('');
    await notice.getByRole('button', { name: `Sign in as ${user.email} instead` }).click();
    await dialog(page).waitFor();
    expect(await page.getByLabel('E-mail').inputValue()).to.equal(user.email);
    await page.getByLabel(/^Password/).fill(user.password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByText('Role saved').waitFor();
    expect(await storedDescription(role.id)).to.equal('Saved by the first user');

    // A reload: the other user's dashboard, the first user's unsaved change discarded.
    await saveAsOther('Not to be saved as someone else');
    await notice.getByRole('button', { name: 'Reload and discard the unsaved changes' }).click();
    await page.getByText(other.email).first().waitFor();
    await page.getByLabel('Description').waitFor();
    expect(await page.getByLabel('Description').inputValue()).to.equal('Saved by the first user');
    expect(await storedDescription(role.id)).to.equal('Saved by the first user');
    expect(appErrors(errors)).to.deep.equal([]);
  });

  it('asks before leaving an edited form in the app, and the browser warns on closing the tab', async () => {
    const { page, errors, role, name } = await openRole(admin);
    // Not edited: leaving asks nothing.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Home' }).click();
    await heading(page, 'Dashboard').waitFor();
    await page.goBack();
    await heading(page, name).waitFor();

    await page.getByLabel('Description').fill('Half-typed');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Home' }).click();
    const ask = page.getByRole('dialog', { name: 'Leave without saving?' });
    await ask.waitFor();
    await expectAccessible(page, 'leave guard');
    await ask.getByRole('button', { name: 'Stay on this screen' }).click();
    await ask.waitFor({ state: 'detached' });
    expect(await page.getByLabel('Description').inputValue()).to.equal('Half-typed');
    expect(new URL(page.url()).pathname).to.equal(`/admin/roles/${role.id}`);

    // Saved, the form leaves without a question.
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('Role saved').waitFor();
    await page.getByLabel('Description').fill('Half-typed, then more');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Home' }).click();
    await ask.getByRole('button', { name: 'Leave and discard the changes' }).click();
    await heading(page, 'Dashboard').waitFor();
    expect(await storedDescription(role.id)).to.equal('Half-typed');

    // A reload or a closed tab: the browser's own warning.
    await page.goBack();
    await heading(page, name).waitFor();
    await page.getByLabel('Description').fill('Typed before closing');
    const warned = new Promise<string>((resolve) =>
      page.once('dialog', (d) => {
        resolve(d.type());
        void d.dismiss();
      }),
    );
    await page.close({ runBeforeUnload: true });
    expect(await warned).to.equal('beforeunload');
    expect(appErrors(errors)).to.deep.equal([]);
  });

  it('gives the command palette dialog a name (axe)', async () => {
    const { page, context, errors } = await p.page();
    await signInAs(p, context, admin);
    await page.goto('/admin');
    await heading(page, 'Dashboard').waitFor();
    await page.getByRole('button', { name: 'Jump to' }).first().click();
    await page.getByRole('dialog', { name: 'Command palette' }).waitFor();
    await expectAccessible(page, 'command palette');
    // axe's dialog-name rule is a best practice, outside the WCAG tags expectAccessible runs: asked for by name.
    const named = await new AxeBuilder({ page }).withRules(['aria-dialog-name']).setLegacyMode().analyze();
    expect(named.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).to.deep.equal(
      [],
    );
    expect(named.passes.map((v) => v.id)).to.include('aria-dialog-name');
    expect(appErrors(errors)).to.deep.equal([]);
  });
});
