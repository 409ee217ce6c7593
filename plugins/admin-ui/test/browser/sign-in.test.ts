import { expect } from 'chai';
import { authenticator } from 'otplib';
import type { Page } from 'playwright-core';
import {
  appErrors,
  type BrowserProduct,
  expectAccessible,
  sharedBrowserProduct,
} from '../../../../test/helpers/browser.ts';
import { mailbox } from '../../../../test/helpers/kernel.ts';

/** A TOTP code as an authenticator app shows it at the kernel clock's time. */
const totp = (p: BrowserProduct, secret: string) =>
  authenticator.clone({ epoch: p.t.clock.now().getTime() }).generate(secret);

async function fillSignIn(page: Page, email: string, password: string) {
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel(/^Password/).fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

describe('admin-ui in the browser: signing in', function () {
  this.timeout(120_000);
  let p: BrowserProduct;
  before(async function () {
    this.timeout(240_000);
    p = await sharedBrowserProduct();
  });

  it('signs in with a password, keeps a deep link, signs out; every screen passes axe', async () => {
    const user = await p.t.createUser({ roles: ['admin'] });
    const { page, errors } = await p.page();
    // A deep link while signed out: the sign-in page, then back to the link.
    await page.goto('/admin/account/security');
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    expect(new URL(page.url()).pathname).to.equal('/sign-in');
    await expectAccessible(page, 'sign-in');
    await fillSignIn(page, user.email, 'wrong-password');
    await page.getByRole('alert').waitFor();
    await fillSignIn(page, user.email, user.password);
    await page.getByRole('heading', { name: 'Two-factor sign-in', level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).to.equal('/admin/account/security');
    await expectAccessible(page, 'account security');
    // Home through the menu, then the back button returns to the deep link.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Home' }).click();
    await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
    await expectAccessible(page, 'home');
    await page.goBack();
    await page.getByRole('heading', { name: 'Two-factor sign-in', level: 1 }).waitFor();
    // Sign out: the session is gone on the server too.
    await page.getByRole('button', { name: /Account menu/ }).click();
    await page.getByRole('menuitem', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    const cookies = await page.context().cookies();
    expect(cookies.filter((c) => c.name === 'cms_session' && c.value)).to.deep.equal([]);
    expect(appErrors(errors)).to.deep.equal([]);
  });

  it('asks for the second factor and accepts a TOTP code, or a recovery code', async () => {
    const user = await p.t.createUser({ roles: ['editor'] });
    const setup = (await p.t.call('POST', '/auth/mfa/setup', user, {})).json();
    const verified = await p.t.call('POST', '/auth/mfa/verify-setup', user, { code: totp(p, setup.secret) });
    const { recoveryCodes } = verified.json();
    await p.t.advanceClock(60_000); // a fresh TOTP step: the enrolment's code is used up

    const { page, errors } = await p.page();
    await page.goto('/sign-in');
    await fillSignIn(page, user.email, user.password);
    await page.getByRole('heading', { name: 'Two-factor sign-in' }).waitFor();
    await expectAccessible(page, 'two-factor challenge');
    await page.getByLabel('Digit 1 of 6').pressSequentially(totp(p, setup.secret));
    await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
    expect(appErrors(errors)).to.deep.equal([]);

    const second = await p.page();
    await second.page.goto('/sign-in');
    await fillSignIn(second.page, user.email, user.password);
    await second.page.getByRole('button', { name: 'Use a recovery code' }).click();
    await second.page.getByLabel('Recovery code').fill(recoveryCodes[0]);
    await second.page.getByRole('button', { name: 'Verify' }).click();
    await second.page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
    expect(appErrors(second.errors)).to.deep.equal([]);
  });

  it('makes a user of a role that requires 2FA enrol (QR code) and shows the recovery codes once', async () => {
    const admin = await p.t.admin();
    const role = `needs-2fa-${Date.now()}`;
    expect(
      (await p.t.call('POST', '/auth/roles', admin, { name: role, permissions: ['objects:read'] })).statusCode,
    ).to.equal(201);
    const put = await p.t.call('PUT', '/security-settings', admin, { mfaRequiredRoles: [role] });
    expect(put.statusCode, put.body).to.equal(200);
    const user = await p.t.createUser({ roles: [role] });

    const { page, errors } = await p.page('phone');
    await page.goto('/sign-in');
    await fillSignIn(page, user.email, user.password);
    await page.getByRole('heading', { name: 'Set up two-factor sign-in' }).waitFor();
    const qr = page.getByRole('img', { name: /QR code/ });
    await qr.waitFor();
    expect(await qr.getAttribute('src')).to.match(/^data:image\/png;base64,/);
    await expectAccessible(page, 'mandatory enrolment');
    const secret = (await page.locator('code').first().textContent())!.trim();
    await page.getByLabel('Six-digit code').fill(totp(p, secret));
    await page.getByRole('button', { name: 'Turn on two-factor sign-in' }).click();
    await page.getByRole('heading', { name: 'Two-factor sign-in is on' }).waitFor();
    const codes = (await page.getByLabel('Recovery codes', { exact: true }).textContent()) ?? '';
    expect(codes.trim().split(/\s+/).length).to.be.greaterThan(4);
    await expectAccessible(page, 'recovery codes');
    await page.getByRole('button', { name: 'I saved them, continue' }).click();
    await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
    expect(appErrors(errors)).to.deep.equal([]);
    await p.t.call('PUT', '/security-settings', admin, { mfaRequiredRoles: [] });
  });

  it('resets a forgotten password through the e-mailed link', async () => {
    const user = await p.t.createUser({ roles: ['viewer'] });
    const mails = mailbox(p.t);
    const { page, errors } = await p.page();
    await page.goto('/sign-in');
    await page.getByRole('link', { name: 'Forgot your password?' }).click();
    await page.getByRole('heading', { name: 'Reset your password' }).waitFor();
    await expectAccessible(page, 'forgot password');
    await page.getByLabel('E-mail').fill(user.email);
    await page.getByRole('button', { name: 'Send the link' }).click();
    await page.getByRole('status').filter({ hasText: /./ }).first().waitFor();
    const mail = await mails.next(user.email, 10_000);
    mails.stop();
    const link = /https?:\/\/\S+\/reset-password\?token=\S+/.exec(mail.text)![0];
    await page.goto(new URL(link).pathname + new URL(link).search);
    await page.getByRole('heading', { name: 'Choose a new password' }).waitFor();
    await expectAccessible(page, 'reset password');
    const password = 'A-new-passw0rd-for-the-test';
    await page.getByLabel(/^New password/).fill(password);
    await page.getByLabel(/^Repeat the new password/).fill(password);
    await page.getByRole('button', { name: 'Change the password' }).click();
    await page.getByText('Your password is changed').waitFor();
    await page.getByRole('link', { name: 'Back to sign-in' }).click();
    await fillSignIn(page, user.email, password);
    await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
    expect(appErrors(errors)).to.deep.equal([]);
  });
});
