import { expect } from 'chai';
import { definePlugin, type PluginContributions } from '../../../kernel/index.ts';
import type { PluginManifest } from '../../../kernel/plugin.ts';
import {
  auditRows,
  eventually,
  mailbox,
  startTestKernel,
  type TestKernel,
  type TestUser,
} from '../../../test/helpers/kernel.ts';
import { drainOutbox } from './outbox-drain.ts';

/** Stands in for the data-subject plugin that collects `dataSubjectSources` (its item type is that plugin's). */
const collected: { sources: readonly PluginContributions['dataSubjectSources'][] } = { sources: [] };
const dataSubjectStandIn = definePlugin({
  id: 'data-subject-stand-in',
  processes: ['core-api'],
  needs: ['dataSubjectSources'],
  collects: ['dataSubjectSources'],
  setup: ({ dataSubjectSources }) => {
    collected.sources = dataSubjectSources;
  },
}) as PluginManifest;

/**
 * Mail administration through the HTTP surface: permissions, settings per website and their removal
 * (audited), templates (CRUD, render, escaping), the log (filters, paging, bulk delete), the retention
 * job (audited as `retention.purge`) and the data-subject contribution.
 */
describe('mail: administration', function () {
  this.timeout(60_000);
  let t: TestKernel;
  let admin: TestUser;
  let websiteId: string;

  before(async () => {
    t = await startTestKernel({
      plugins: ['identity', 'assets', 'content', 'mail'],
      extraPlugins: [dataSubjectStandIn],
      // This process does not work the outbox queue: these mails stay queued unless a test drains them.
      env: { MAIL_WORKER_ENABLED: '0' },
    });
    admin = await t.admin();
    const site = await t.call('POST', '/cms-one/websites', admin, { name: 'Shop', rootPath: '/shop', locales: ['en'] });
    websiteId = site.json().id;
  });
  after(() => t?.close());

  // Not with the stand-in: it would hand `collected` the sources of the sending process, which stops.
  const drain = () => drainOutbox(t, { plugins: ['identity', 'assets', 'content', 'mail'] });

  it('every mail route needs mail:manage (401 without a session, 403 without the key)', async () => {
    const { nobody } = await t.users({ nobody: ['objects:read'] });
    for (const [method, url] of [
      ['GET', '/mail-settings'],
      ['GET', '/mail-providers'],
      ['GET', '/mail-log'],
      ['GET', '/mail-templates'],
      ['POST', '/mail-settings/test'],
    ]) {
      expect((await t.call(method!, url!, null, {})).statusCode, url).to.equal(401);
      expect((await t.call(method!, url!, nobody, {})).statusCode, url).to.equal(403);
    }
  });

  it('a website has its own settings or uses the default; DELETE removes its own (audited), never the default', async () => {
    const none = (await t.call('GET', `/mail-settings?websiteId=${websiteId}`, admin)).json();
    expect(none).to.include({ scope: 'website', configured: false, uses: 'default' });
    const put = await t.call('PUT', `/mail-settings?websiteId=${websiteId}`, admin, {
      provider: 'smtp',
      smtp: { host: 'smtp.shop.example', port: 465, secure: true },
      from: 'shop@example.test',
    });
    expect(put.statusCode, put.body).to.equal(200);
    expect(put.json()).to.deep.include({ scope: 'website', websiteId, configured: true, from: 'shop@example.test' });
    expect(put.json().smtp).to.include({ secure: true, passwordSet: false });
    const [update] = await auditRows(t, 'setting.mail_update', websiteId);
    expect(update.before).to.equal(null);
    expect(update.after).to.include({ provider: 'smtp', 'smtp.host': 'smtp.shop.example' });

    expect((await t.call('GET', '/mail-settings', admin)).json()).to.include({
      configured: false,
      uses: 'environment',
    });
    const def = await t.call('DELETE', '/mail-settings', admin);
    expect(def.statusCode).to.equal(400);
    expect(def.json().code).to.equal('DEFAULT_NOT_REMOVABLE');

    expect((await t.call('DELETE', `/mail-settings?websiteId=${websiteId}`, admin)).statusCode).to.equal(204);
    const [removed] = await auditRows(t, 'setting.mail_remove', websiteId);
    expect(removed.before).to.deep.equal({ provider: 'smtp' });
    expect((await t.call('DELETE', `/mail-settings?websiteId=${websiteId}`, admin)).statusCode).to.equal(404);
    expect((await auditRows(t, 'setting.mail_remove')).length).to.equal(1);
  });

  it('refuses bad settings with a 400 naming the field, and an unknown website with 404; nothing is audited', async () => {
    const before = (await auditRows(t, 'setting.mail_update')).length;
    const cases: Array<[string, Record<string, unknown>, string]> = [
      ['/mail-settings', { provider: 'smtp', smtp: { host: 'bad host!' } }, 'smtp.host'],
      ['/mail-settings', { provider: 'smtp', smtp: { host: 'x.example', port: 70000 } }, 'smtp.port'],
      ['/mail-settings', { provider: 'smtp', smtp: { host: 'x.example' }, from: 'Someone <a@b.example>' }, 'from'],
      ['/mail-settings', { provider: 'smtp', smtp: { host: 'x.example' }, fromName: 'a\r\nBcc: x@y' }, 'fromName'],
      ['/mail-settings', { host: 'x.example', smtp: { host: 'y.example' } }, 'smtp'],
      ['/mail-settings', { provider: 'smtp', providerConfig: {} }, 'providerConfig'],
    ];
    for (const [url, body, field] of cases) {
      const res = await t.call('PUT', url, admin, body);
      expect(res.statusCode, JSON.stringify(body)).to.equal(400);
      expect(res.body, JSON.stringify(body)).to.include(field);
    }
    const unknown = await t.call('GET', '/mail-settings?websiteId=00000000-0000-4000-8000-000000000000', admin);
    expect(unknown.statusCode).to.equal(404);
    expect((await t.call('GET', '/mail-settings?websiteId=nope', admin)).statusCode).to.equal(400);
    expect((await auditRows(t, 'setting.mail_update')).length).to.equal(before);
  });

  it('templates: create, list, patch, render with escaped variables, delete; bad trees and keys refused', async () => {
    const created = await t.call('POST', '/mail-templates', admin, {
      key: 'welcome',
      name: 'Welcome',
      subject: 'Welcome, {{name}}',
      text: 'Hello {{name}}, see {{url}}',
      html: {
        type: 'div',
        children: [
          { type: 'p', text: 'Hello {{name}}' },
          { type: 'a', props: { href: '{{url}}' }, children: [{ type: 'text', text: 'open' }] },
        ],
      },
    });
    expect(created.statusCode, created.body).to.equal(201);
    const id = created.json().id;
    const dup = await t.call('POST', '/mail-templates', admin, { key: 'welcome', name: 'x', subject: 'x', text: 'x' });
    expect(dup.json()).to.include({ statusCode: 409, code: 'UNIQUE_VIOLATION', field: 'key' });
    const rendered = await t.call('POST', `/mail-templates/${id}/render`, admin, {
      variables: { name: '<script>alert(1)</script> & Zoë', url: 'https://example.test/a?b=1&c=2' },
    });
    expect(rendered.statusCode, rendered.body).to.equal(200);
    const r = rendered.json();
    expect(r.subject).to.equal('Welcome, <script>alert(1)</script> & Zoë');
    expect(r.text).to.equal('Hello <script>alert(1)</script> & Zoë, see https://example.test/a?b=1&c=2');
    expect(r.html).to.include('<p>Hello &lt;script&gt;alert(1)&lt;/script&gt; &amp; Zoë</p>');
    expect(r.html).to.include('href="https://example.test/a?b=1&amp;c=2"');
    expect(r.html).not.to.include('<script>');
    expect(r.html).to.match(/^<!DOCTYPE html>/);

    const bad = await t.call('PATCH', `/mail-templates/${id}`, admin, {
      html: { type: 'div', children: [{ type: 'a', props: { href: 'javascript:alert(1)' } }] },
    });
    expect(bad.statusCode).to.equal(400);
    expect(bad.json().field).to.equal('html.children.0.props.href');
    expect((await t.call('PATCH', `/mail-templates/${id}`, admin, { key: 'Not A Key' })).json().field).to.equal('key');
    expect((await t.call('PATCH', `/mail-templates/${id}`, admin, { subject: 'two\nlines' })).json().field).to.equal(
      'subject',
    );

    const patched = await t.call('PATCH', `/mail-templates/${id}`, admin, { name: 'Welcome mail', html: null });
    expect(patched.json()).to.include({ name: 'Welcome mail', html: null });
    const list = (await t.call('GET', '/mail-templates', admin)).json().templates.map((x: { key: string }) => x.key);
    expect(list).to.include.members([
      'form-notification',
      'password-reset',
      'password-reset-forced',
      'test',
      'welcome',
    ]);
    expect((await t.call('DELETE', `/mail-templates/${id}`, admin)).statusCode).to.equal(204);
    expect((await t.call('GET', `/mail-templates/${id}`, admin)).statusCode).to.equal(404);
  });

  it('a deleted built-in template falls back to the text the product gives', async () => {
    const list = (await t.call('GET', '/mail-templates', admin)).json().templates;
    const reset = list.find((x: { key: string }) => x.key === 'password-reset-forced');
    expect((await t.call('DELETE', `/mail-templates/${reset.id}`, admin)).statusCode).to.equal(204);
    await t.kernel.resolve('mail').send({
      to: 'fallback@example.test',
      subject: 'Given subject',
      text: 'Given text',
      template: { key: 'password-reset-forced', variables: {} },
    });
    const row = await t.db('mail_outbox').whereRaw("recipients @> array['fallback@example.test']").first();
    expect(row).to.include({ subject: 'Given subject', text: 'Given text', template_key: null });
  });

  it('the log: filters, paging, one entry; bulk delete removes finished entries only', async () => {
    const port = t.kernel.resolve('mail');
    for (let i = 0; i < 5; i++)
      await port.send({ to: `page${i}@example.test`, subject: `Paging ${i}`, text: 'x', kind: 'paging' });
    const page1 = (await t.call('GET', '/mail-log?kind=paging&limit=2', admin)).json();
    expect(page1.total).to.equal(5);
    expect(page1.entries.map((e: { subject: string }) => e.subject)).to.deep.equal(['Paging 4', 'Paging 3']);
    expect(page1.entries[0]).not.to.have.property('text');
    const page3 = (await t.call('GET', '/mail-log?kind=paging&limit=2&offset=4', admin)).json();
    expect(page3.entries.map((e: { subject: string }) => e.subject)).to.deep.equal(['Paging 0']);
    expect((await t.call('GET', '/mail-log?q=paging 2', admin)).json().total).to.equal(1);
    expect((await t.call('GET', '/mail-log?q=100%25', admin)).json().total).to.equal(0);
    expect((await t.call('GET', '/mail-log?status=queued&kind=paging', admin)).json().total).to.equal(5);
    expect((await t.call('GET', '/mail-log?status=nope', admin)).statusCode).to.equal(400);
    expect((await t.call('GET', '/mail-log?limit=201', admin)).statusCode).to.equal(400);

    // Two of them are sent (through the server transport: nothing configured), three stay queued.
    const ids = [...page1.entries, ...page3.entries].map((e: { id: string }) => e.id);
    await t.db('mail_outbox').whereIn('id', ids.slice(0, 2)).update({ status: 'sent' });
    const del = await t.call('POST', '/mail-log/delete', admin, { ids });
    expect(del.statusCode, del.body).to.equal(200);
    expect(del.json()).to.deep.equal({ deleted: 2, kept: [ids[2]] });
    expect((await t.call('GET', '/mail-log?kind=paging', admin)).json().total).to.equal(3);
    expect((await t.call('POST', '/mail-log/delete', admin, { ids: [] })).statusCode).to.equal(400);
    expect((await t.call('GET', `/mail-log/${ids[0]}`, admin)).statusCode).to.equal(404);
    expect((await t.call('POST', `/mail-log/${ids[2]}/resend`, admin)).json().code).to.equal('MAIL_NOT_FINISHED');
    await drain();
    const sent = (await t.call('GET', '/mail-log?kind=paging&status=sent', admin)).json();
    expect(sent.total).to.equal(3);
    // No mail settings and no SMTP_URL: only the service log has them, and the log says so.
    for (const entry of sent.entries) {
      expect(entry.providerAnswer).to.equal(
        'not delivered: only written to the service log (no mail settings and no SMTP_URL)',
      );
      expect(entry.delivered, 'a stored field says it was not delivered').to.equal(false);
    }
  });

  it('retention: off until mailLogRetentionDays is set; then old finished entries go, audited as retention.purge', async () => {
    const port = t.kernel.resolve('mail');
    await port.send({ to: 'old@example.test', subject: 'Old', text: 'x', kind: 'retention' });
    await drain();
    await t.runJob('mail', 'mail-log.retention');
    expect((await t.call('GET', '/mail-log?kind=retention', admin)).json().total).to.equal(1);
    expect(await auditRows(t, 'retention.purge')).to.have.length(0);

    const set = await t.call('PUT', '/security-settings', admin, { mailLogRetentionDays: 30 });
    expect(set.statusCode, set.body).to.equal(200);
    await t.advanceClock(31 * 24 * 3600_000);
    // The old session expired meanwhile.
    admin = { ...admin, cookie: await t.newSession(admin.id) };
    await port.send({ to: 'new@example.test', subject: 'New', text: 'x', kind: 'retention' });
    await t.runJob('mail', 'mail-log.retention');
    const left = (await t.call('GET', '/mail-log?kind=retention', admin)).json().entries;
    expect(left.map((e: { subject: string }) => e.subject)).to.deep.equal(['New']);
    const [purge] = await auditRows(t, 'retention.purge');
    expect(purge).to.include({ actor_type: 'system', target_type: 'mail_log' });
    expect(purge.after).to.include({ retentionDays: 30 });
    expect(purge.after.deleted).to.be.at.least(1);
  });

  it('data-subject contribution: entries by recipient (to), optionally a word in subject or body', async () => {
    const port = t.kernel.resolve('mail');
    await port.send({ to: 'Jane.Doe@Example.test', subject: 'Your order', text: 'Thanks', kind: 'ds' });
    await port.send({ to: 'shop@example.test', subject: 'Order by jane.doe@example.test', text: 'x', kind: 'ds' });
    await port.send({ to: 'shop@example.test', subject: 'About xjane.doe@example.test', text: 'x', kind: 'ds' });
    // Identity (loaded here too) contributes staff accounts; the mail plugin's item is the mail log.
    const source = collected.sources.find((s) => s.plugin === 'mail');
    expect(source!.kind).to.equal('mails');
    const byRecipient = await source!.find('JANE.DOE@example.test', {});
    expect(byRecipient.count).to.equal(1);
    expect(byRecipient.items[0]).to.include({ label: 'Your order' });
    expect(byRecipient.items[0]!.matched).to.deep.equal(['recipients']);
    const inText = await source!.find('jane.doe@example.test', { lookInsideText: true });
    expect(inText.count).to.equal(2);
    expect(inText.items.map((i) => i.label)).to.deep.equal(['Order by jane.doe@example.test', 'Your order']);
  });
});

describe('mail: production without MAIL_SETTINGS_ENCRYPTION_KEY', function () {
  this.timeout(60_000);
  let t: TestKernel;
  before(async () => {
    t = await startTestKernel({
      plugins: ['identity', 'mail'],
      env: { NODE_ENV: 'production', MAIL_WORKER_ENABLED: '0' },
    });
  });
  after(() => t?.close());

  it('refuses to save a password naming the variable, and saves settings without a secret', async () => {
    const admin = await t.admin();
    const res = await t.call('PUT', '/mail-settings', admin, {
      provider: 'smtp',
      smtp: { host: 'smtp.example.test', user: 'u', password: 'p4ssword' },
    });
    expect(res.statusCode).to.equal(503);
    expect(res.json().code).to.equal('MAIL_SETTINGS_ENCRYPTION_KEY_MISSING');
    expect(res.json().message).to.include('MAIL_SETTINGS_ENCRYPTION_KEY');
    expect(await t.db('mail_settings')).to.have.length(0);
    expect(await auditRows(t, 'setting.mail_update')).to.have.length(0);
    const plain = await t.call('PUT', '/mail-settings', admin, {
      provider: 'smtp',
      smtp: { host: 'smtp.example.test' },
    });
    expect(plain.statusCode, plain.body).to.equal(200);
  });

  it('still sends a reset link (from memory, at once), and stores it neither in clear nor sealed', async () => {
    await t.db('mail_settings').delete();
    const box = mailbox(t);
    const user = await t.createUser({ email: 'prod-reset@example.test', roles: ['viewer'] });
    const res = await t.call('POST', '/auth/forgot-password', null, { email: user.email });
    expect(res.statusCode).to.equal(202);
    const mail = await box.next(user.email, 10_000);
    const token = /token=([^\s&]+)/.exec(mail.text)?.[1];
    expect(token).to.be.a('string');
    const row = await eventually(async () => {
      const r = await t.db('mail_outbox').where({ kind: 'password-reset' }).first();
      return r?.status === 'sent' ? r : false;
    });
    expect(row.secrets_sealed).to.equal(null);
    expect(JSON.stringify(row)).not.to.include(decodeURIComponent(token!));
    expect(row.text).to.match(/\[hidden:[0-9a-f]{8}:0\]/);
    box.stop();
  });
});
