import { expect } from 'chai';
import { eventually, startTestKernel, type TestKernel, type TestUser } from '../../../test/helpers/kernel.ts';
import { startSmtpCatcher, type SmtpCatcher } from '../../../test/helpers/smtp-catcher.ts';

/**
 * Form notifications through the real forms, content and mail plugins: the `notify` block sends mail
 * only when an author saved exactly that block in a form of a page for the class; one plain recipient;
 * at most 3 mails an hour per address; the outbox row commits with the object or not at all.
 */
describe('mail: form notifications', function () {
  this.timeout(60_000);
  let t: TestKernel;
  let smtp: SmtpCatcher;
  let admin: TestUser;
  let classId: string;
  let websiteId: string;
  const saved = { to: 'owner@example.test', subject: 'New lead: {{not a variable}}' };
  let ip = 0;

  before(async () => {
    smtp = await startSmtpCatcher();
    t = await startTestKernel({
      plugins: ['data', 'assets', 'content', 'forms', 'mail'],
      env: { TRUST_PROXY: '1' },
    });
    admin = await t.admin();
    await t.call('PUT', '/mail-settings', admin, {
      provider: 'smtp',
      smtp: {
        host: '127.0.0.1',
        port: smtp.port,
        user: smtp.user,
        password: smtp.password,
        allowInvalidCertificate: true,
      },
      from: 'forms@example.test',
    });
    const cls = await t.call('POST', '/data-classes', admin, {
      name: `lead_${Date.now()}`,
      fields: [
        { name: 'email', type: 'text', required: true, unique: true },
        { name: 'message', type: 'text' },
      ],
    });
    expect(cls.statusCode, cls.body).to.equal(201);
    classId = cls.json().id;
    const site = await t.call('POST', '/cms-one/websites', admin, {
      name: 'Leads',
      rootPath: '/leads',
      locales: ['en'],
    });
    expect(site.statusCode, site.body).to.equal(201);
    websiteId = site.json().id;
    // A form of another class (a page's forms name existing classes: the save checks them).
    const other = await t.call('POST', '/data-classes', admin, {
      name: `other_${Date.now()}`,
      fields: [{ name: 'email', type: 'text' }],
    });
    expect(other.statusCode, other.body).to.equal(201);
    const form = (notify: unknown, cid = classId) => ({ type: 'form', props: { classId: cid, notify } });
    const page = await t.call('POST', '/cms-one/pages', admin, {
      websiteId,
      locale: 'en',
      path: '/contact',
      title: 'Contact',
      // Published: a submit is accepted only for a class a published form names.
      published: true,
      content: {
        type: 'section',
        children: [
          form(saved),
          // Saved too, but not one plain recipient: never used.
          form({ to: 'Boss <boss@example.test>' }),
          form({ to: 'a@example.test, b@example.test' }),
          // A form of another class.
          form({ to: 'other@example.test' }, other.json().id),
        ],
      },
    });
    expect(page.statusCode, page.body).to.equal(201);
  });
  after(async () => {
    await t?.close();
    await smtp?.close();
  });

  const submit = (body: Record<string, unknown>) =>
    t.inject({
      method: 'POST',
      url: `/public/forms/${classId}/submit`,
      payload: body,
      headers: { 'x-forwarded-for': `10.9.0.${++ip}` },
    });
  const notifications = () => t.db('mail_outbox').where({ kind: 'form-notification' }).orderBy('seq');

  it('a saved notify block produces exactly one mail, through the form-notification template, for the website', async () => {
    const res = await submit({
      attributes: { email: 'anna@example.test', message: 'Hällo <b>there</b>' },
      notify: { subject: saved.subject, to: saved.to },
    });
    expect(res.statusCode, res.body).to.equal(201);
    const [mail] = await smtp.waitFor(1);
    expect(mail!.envelope.to).to.deep.equal(['owner@example.test']);
    expect(mail!.parsed.subject).to.equal('New lead: {{not a variable}}');
    expect(mail!.parsed.text).to.include('message: Hällo <b>there</b>');
    expect(mail!.parsed.text).to.include(`Record: ${res.json().id}`);
    // Escaped by the content renderer: a submitted value adds no markup.
    expect(mail!.parsed.html).to.include('message: Hällo &lt;b&gt;there&lt;/b&gt;');
    const rows = await notifications();
    expect(rows).to.have.length(1);
    expect(rows[0]).to.include({ website_id: websiteId, template_key: 'form-notification' });
    await eventually(async () => (await notifications())[0].status === 'sent');
    expect(smtp.received).to.have.length(1);
  });

  it('a forged notify block (another recipient, extra keys, a block of another class) sends nothing', async () => {
    for (const notify of [
      { to: 'attacker@example.test', subject: saved.subject },
      { ...saved, cc: 'attacker@example.test' },
      { to: 'other@example.test' },
      'owner@example.test',
      [saved],
    ]) {
      const res = await submit({ attributes: { email: `f${ip}@example.test` }, notify });
      expect(res.statusCode, res.body).to.equal(201);
    }
    expect(await notifications()).to.have.length(1);
  });

  it('a saved block without one plain recipient sends nothing', async () => {
    for (const notify of [{ to: 'Boss <boss@example.test>' }, { to: 'a@example.test, b@example.test' }]) {
      const res = await submit({ attributes: { email: `p${ip}@example.test` }, notify });
      expect(res.statusCode).to.equal(201);
    }
    expect(await notifications()).to.have.length(1);
  });

  it('a block saved only in a page that is not published sends nothing (visitors never saw that form)', async () => {
    const draftOnly = { to: 'draft-owner@example.test' };
    const page = await t.call('POST', '/cms-one/pages', admin, {
      websiteId,
      locale: 'en',
      path: '/contact-draft',
      title: 'Contact (draft)',
      content: { type: 'section', children: [{ type: 'form', props: { classId, notify: draftOnly } }] },
    });
    expect(page.statusCode, page.body).to.equal(201);
    const res = await submit({ attributes: { email: `d${ip}@example.test` }, notify: draftOnly });
    expect(res.statusCode, res.body).to.equal(201);
    expect(await notifications()).to.have.length(1);
  });

  it('a refused submit leaves neither object nor mail (one transaction)', async () => {
    const res = await submit({ attributes: { email: 'anna@example.test' }, notify: saved });
    expect(res.statusCode).to.equal(409);
    expect(await notifications()).to.have.length(1);
  });

  it('at most 3 mails an hour per recipient address; the submits themselves succeed', async () => {
    for (let i = 0; i < 3; i++) {
      const res = await submit({ attributes: { email: `limit${i}@example.test` }, notify: saved });
      expect(res.statusCode).to.equal(201);
    }
    // 1 from the first test + 2 more reach the limit of 3; the third of this loop is dropped.
    expect(await notifications()).to.have.length(3);
    await t.advanceClock(3600_000 + 1_000);
    const res = await submit({ attributes: { email: 'after-hour@example.test' }, notify: saved });
    expect(res.statusCode).to.equal(201);
    expect(await notifications()).to.have.length(4);
  });
});
