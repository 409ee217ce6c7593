import { expect } from 'chai';
import type { Page } from 'playwright-core';
import {
  appErrors,
  type BrowserProduct,
  expectAccessible,
  sharedBrowserProduct,
  signInAs,
  type WIDTHS,
} from '../../../../test/helpers/browser.ts';
import { eventually, type TestUser } from '../../../../test/helpers/kernel.ts';
import { type SmtpCatcher, startSmtpCatcher } from '../../../../test/helpers/smtp-catcher.ts';

/**
 * The mail screens in Chromium against the real product (every plugin, its outbox queue worked)
 * and a real SMTP server on loopback (STARTTLS with a self-signed certificate, AUTH): settings
 * through the form, a test mail that arrives, the log and its detail, a template edited and previewed.
 */
describe('mail screens in the browser: settings, test mail, log, templates', function () {
  // Long walks with axe at each step: minutes when the machine is shared and loaded.
  this.timeout(420_000);
  let p: BrowserProduct;
  let admin: TestUser;
  let smtp: SmtpCatcher;
  before(async function () {
    this.timeout(240_000);
    p = await sharedBrowserProduct();
    admin = await p.t.createUser({ roles: ['admin'] });
    smtp = await startSmtpCatcher({ parse: true });
  });
  after(async () => {
    await smtp?.close();
  });

  async function open(user: TestUser, path: string, width: keyof typeof WIDTHS = 'desktop') {
    const opened = await p.page(width);
    await signInAs(p, opened.context, user);
    await opened.page.goto(path);
    return opened;
  }

  const heading = (page: Page, name: string | RegExp) => page.getByRole('heading', { name, level: 1 }).waitFor();

  /** axe once the page is still (a notification or dialog fading in has text at partial opacity). */
  async function accessible(page: Page, where: string) {
    await page.waitForFunction(() => {
      type Timing = { getTiming(): { iterations: number } };
      const { document } = globalThis as unknown as {
        document: { getAnimations(): { playState: string; effect: Timing | null }[] };
      };
      return document
        .getAnimations()
        .every((a) => a.playState !== 'running' || a.effect?.getTiming().iterations === Number.POSITIVE_INFINITY);
    });
    await expectAccessible(page, where);
  }

  async function pick(page: Page, label: string, option: string | RegExp) {
    await page.getByRole('combobox', { name: label }).click();
    await page.getByRole('option', { name: option }).click();
  }

  it('configures SMTP, sends a test mail that arrives, and finds it in the log (1280 px)', async () => {
    const { page, errors } = await open(admin, '/admin/mail/settings');
    await heading(page, 'Mail settings');
    await page.getByText(/Nothing is saved|Sending through/).waitFor();
    await accessible(page, 'mail settings');

    await pick(page, 'Send through', 'SMTP server (your relay)');
    await page.getByLabel('Host').fill('127.0.0.1');
    await page.getByLabel('Port').fill(String(smtp.port));
    await pick(page, 'Encryption', 'STARTTLS required (port 587)');
    await page.getByLabel('User name').fill(smtp.user);
    await page.getByLabel(/^(Replace the password|Password)$/).fill(smtp.password);
    await page.getByLabel(/Accept a certificate that does not verify/).check();
    await page.getByLabel('From address').fill('screens@example.test');
    await page.getByLabel('From name').fill('Screens Ünïcode');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByText('Mail settings saved').waitFor();

    // Saved as typed; the password is stored but never comes back: the form says only "set".
    const saved = (await p.t.call('GET', '/mail-settings', admin)).json();
    expect(saved.provider).to.equal('smtp');
    expect(saved.smtp).to.deep.include({ host: '127.0.0.1', port: smtp.port, requireTls: true, passwordSet: true });
    expect(JSON.stringify(saved)).not.to.include(smtp.password);
    await page.getByText(`Sending through SMTP server 127.0.0.1:${smtp.port}`).waitFor();
    await page.getByText('set', { exact: true }).waitFor();
    expect(await page.getByLabel('Replace the password').inputValue()).to.equal('');
    await accessible(page, 'mail settings, SMTP saved');

    // Saving again with the password left blank keeps it (the test mail below authenticates).
    await page.getByLabel('From name').fill('Screens');
    await page.getByRole('button', { name: 'Save settings' }).click();
    // The first save's notice may still show: the stored settings say when the second one is in.
    await eventually(async () =>
      expect(JSON.stringify((await p.t.call('GET', '/mail-settings', admin)).json())).to.match(/"fromName":"Screens"/),
    );

    const before = smtp.received.length;
    await page.getByLabel('Send a test mail to').fill('inbox@example.test');
    await page.getByRole('button', { name: 'Send test mail' }).click();
    await page.getByRole('status').filter({ hasText: 'Test mail sent' }).waitFor();
    const [mail] = (await smtp.waitFor(before + 1)).slice(before);
    expect(mail!.envelope.to).to.deep.equal(['inbox@example.test']);
    expect(mail!.secure).to.equal(true);
    expect(mail!.user).to.equal(smtp.user);
    expect(mail!.parsed.from?.value[0]).to.deep.include({ address: 'screens@example.test', name: 'Screens' });
    await accessible(page, 'mail settings after a test mail');

    // The log: the test mail, sent, with the server's answer; filters live in the URL.
    await page.getByRole('link', { name: 'Open the log entry' }).click();
    await heading(page, mail!.parsed.subject!);
    const details = page.getByRole('table', { name: 'Mail details' });
    await details.getByText('inbox@example.test').waitFor();
    await details.getByText('sent', { exact: true }).waitFor();
    await details
      .getByText(/queued/)
      .first()
      .waitFor();
    await accessible(page, 'mail log entry');

    await page.getByRole('link', { name: 'Back to the mail log' }).click();
    await heading(page, 'Mail log');
    await page.getByLabel('Recipient (to or cc)').fill('inbox@example.test');
    await page.waitForURL(/recipient=inbox%40example\.test/);
    const table = page.getByRole('table', { name: 'Mails' });
    await table.getByRole('link', { name: mail!.parsed.subject! }).waitFor();
    // The URL changes first; the filtered page replaces the previous one when its answer arrives.
    await eventually(async () => expect(await table.getByRole('row').count()).to.equal(2), {
      what: 'the filtered log (a header and the one test mail)',
    });
    await accessible(page, 'mail log filtered');
    await pick(page, 'Status', 'failed');
    await page.waitForURL(/status=failed/);
    await page.getByText('No mails match').waitFor();

    // A deep link with its filters shows the same list.
    await page.goto('/admin/mail/log?recipient=inbox%40example.test&status=sent');
    await table.getByRole('link', { name: mail!.parsed.subject! }).waitFor();
    await table.getByRole('link', { name: mail!.parsed.subject! }).click();
    await heading(page, mail!.parsed.subject!);

    // Resend: a new entry, sent again through the outbox queue.
    await page.getByRole('button', { name: 'Resend' }).click();
    await page.getByText('Queued again as a new mail').waitFor();
    await page.getByRole('link', { name: 'the earlier mail' }).waitFor();
    await smtp.waitFor(before + 2);
    await page.getByRole('table', { name: 'Mail details' }).getByText('sent', { exact: true }).waitFor();

    // Bulk delete: both entries of this recipient ticked and deleted after confirming.
    await page.goto('/admin/mail/log?recipient=inbox%40example.test');
    await table.getByRole('link', { name: mail!.parsed.subject! }).nth(1).waitFor();
    await table.getByRole('checkbox', { name: 'Select every mail of this page' }).check();
    await page.getByRole('button', { name: 'Delete selected (2)' }).click();
    await accessible(page, 'mail log, confirm bulk delete');
    await page.getByRole('button', { name: 'Delete entries' }).click();
    await page.getByText('2 log entries deleted').waitFor();
    await page.getByText('No mails match').waitFor();
    expect((await p.t.call('GET', '/mail-log?recipient=inbox@example.test', admin)).json().total).to.equal(0);
    expect(appErrors(errors)).to.deep.equal([]);
  });

  it('edits the reset template and previews it through the renderer; a website gets and loses its own settings', async () => {
    const { page, errors } = await open(admin, '/admin/mail/templates');
    await heading(page, 'Mail templates');
    const table = page.getByRole('table', { name: 'Mail templates' });
    await table.getByRole('link', { name: 'Password reset (asked for by the user)' }).click();
    await heading(page, 'Password reset (asked for by the user)');
    await accessible(page, 'template editor');
    await page.getByLabel('Subject').fill('Reset for {{email}} at {{siteUrl}}');
    await page.getByRole('button', { name: 'Save template' }).click();
    await page.getByText('Template saved').waitFor();
    await page.getByLabel('Value of email').fill('ada@example.test');
    await page.getByLabel('Value of link').fill('https://cms.example.test/reset?token=<b>x</b>');
    await page.getByRole('button', { name: 'Render preview' }).click();
    const rendered = page.getByRole('region', { name: 'Rendered mail' });
    await rendered.getByText('Reset for ada@example.test at').waitFor();
    // The HTML part, rendered by the content renderer, in a frame without scripts.
    const frame = page.frameLocator('iframe[title="Preview of the HTML part"]');
    await frame.getByRole('link', { name: 'Choose a new password' }).waitFor();
    await accessible(page, 'template preview');
    const stored = (await p.t.call('GET', '/mail-templates', admin)).json().templates;
    expect(stored.find((t: { key: string }) => t.key === 'password-reset').subject).to.equal(
      'Reset for {{email}} at {{siteUrl}}',
    );

    // A website's own settings: first it uses the default; then its own; then removed again.
    const site = await p.t.call('POST', '/cms-one/websites', admin, {
      name: `Mail site ${Date.now()}`,
      rootPath: `/letters-${Date.now()}`,
      locales: ['en'],
    });
    expect(site.statusCode, site.body).to.equal(201);
    const websiteId = site.json().id as string;
    await page.goto(`/admin/mail/settings?website=${websiteId}`);
    await heading(page, 'Mail settings');
    await page.getByText('Mail for this website goes out with the default settings').waitFor();
    await pick(page, 'Send through', /^Postmark/);
    await page.getByLabel('Server API token').fill('pm-token-1234');
    await page.getByLabel('From address').fill('site@example.test');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByText('Mail settings saved').waitFor();
    await page.getByText('Sending through Postmark as site@example.test').waitFor();
    const own = (await p.t.call('GET', `/mail-settings?websiteId=${websiteId}`, admin)).json();
    expect(own).to.deep.include({ provider: 'postmark', configured: true, secretsSet: { serverToken: true } });
    expect(JSON.stringify(own)).not.to.include('pm-token-1234');
    await accessible(page, 'website mail settings');
    await page.getByRole('button', { name: "Remove this website's settings" }).click();
    await page.getByRole('button', { name: 'Remove settings' }).click();
    await page.getByText('Mail for this website goes out with the default settings').waitFor();
    expect((await p.t.call('GET', `/mail-settings?websiteId=${websiteId}`, admin)).json().configured).to.equal(false);
    expect(appErrors(errors)).to.deep.equal([]);
  });

  it('works at 390 px: settings, log, an entry and the templates pass axe', async () => {
    await p.t.kernel.resolve('mail').send({ to: 'phone@example.test', subject: 'Narrow screen', text: 'Hello' });
    const { page, errors } = await open(admin, '/admin/mail/settings', 'phone');
    await heading(page, 'Mail settings');
    await page.getByText(/Nothing is saved|Sending through/).waitFor();
    await accessible(page, 'mail settings at 390 px');
    await page.goto('/admin/mail/log');
    await heading(page, 'Mail log');
    const first = page.getByRole('table', { name: 'Mails' }).getByRole('link').first();
    await first.waitFor();
    await accessible(page, 'mail log at 390 px');
    await first.click();
    await page.getByRole('table', { name: 'Mail details' }).waitFor();
    await accessible(page, 'mail entry at 390 px');
    await page.goto('/admin/mail/templates');
    await heading(page, 'Mail templates');
    await page.getByRole('table', { name: 'Mail templates' }).getByRole('link').first().waitFor();
    await accessible(page, 'mail templates at 390 px');
    expect(appErrors(errors)).to.deep.equal([]);
  });

  it('shows a viewer no mail screen; a deep link says "Not allowed"', async () => {
    const viewer = await p.t.createUser({ roles: ['viewer'] });
    const { page, errors } = await open(viewer, '/admin');
    await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
    const menu = page.getByRole('navigation', { name: 'Main' });
    for (const hidden of ['Mail settings', 'Mail log', 'Mail templates'])
      expect(await menu.getByRole('link', { name: hidden, exact: true }).count(), hidden).to.equal(0);
    await page.goto('/admin/mail/log');
    await page.getByRole('alert').filter({ hasText: 'Not allowed' }).waitFor();
    await accessible(page, 'mail log, not allowed');
    expect((await p.t.call('GET', '/mail-log', viewer)).statusCode).to.equal(403);
    expect(appErrors(errors)).to.deep.equal([]);
  });
});
