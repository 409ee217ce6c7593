import { expect } from 'chai';
import {
  auditRows,
  eventually,
  startTestKernel,
  type TestKernel,
  type TestUser,
} from '../../../test/helpers/kernel.ts';
import { startSmtpCatcher, type SmtpCatcher } from '../../../test/helpers/smtp-catcher.ts';

/**
 * The README's journey against a real SMTP server (STARTTLS with a throwaway certificate, AUTH after
 * TLS only): configure SMTP, send a test mail, read it in the log, resend it, edit the reset template
 * and receive the edited reset mail; what arrives is parsed (headers, both parts, non-ASCII).
 */
describe('mail: SMTP settings, test mail, log, resend and the reset template', function () {
  this.timeout(60_000);
  let t: TestKernel;
  let smtp: SmtpCatcher;
  let admin: TestUser;

  before(async () => {
    smtp = await startSmtpCatcher();
    t = await startTestKernel({ plugins: ['identity', 'content', 'mail'] });
    admin = await t.admin();
  });
  after(async () => {
    await t?.close();
    await smtp?.close();
  });

  const smtpBody = (extra: Record<string, unknown> = {}) => ({
    provider: 'smtp',
    smtp: {
      host: '127.0.0.1',
      port: smtp.port,
      secure: false,
      requireTls: true,
      user: smtp.user,
      password: smtp.password,
      allowInvalidCertificate: true,
    },
    from: 'noreply@example.test',
    fromName: 'Zoë Ünïcode Büro',
    ...extra,
  });

  it('saves SMTP settings, answers only whether the password is set, and audits the secret as changed', async () => {
    const res = await t.call('PUT', '/mail-settings', admin, smtpBody());
    expect(res.statusCode, res.body).to.equal(200);
    const body = res.json();
    expect(body.smtp).to.include({ host: '127.0.0.1', port: smtp.port, passwordSet: true, user: smtp.user });
    expect(res.body).not.to.include(smtp.password);
    const stored = await t.db('mail_settings').where({ scope: 'default' }).first();
    expect(JSON.stringify(stored)).not.to.include(smtp.password);
    expect(stored.secrets_sealed).to.match(/^v1:MAIL_SETTINGS_ENCRYPTION_KEY:/);
    const [row] = await auditRows(t, 'setting.mail_update', 'default');
    expect(row.after['secret.password']).to.equal('changed');
    expect(row.after['smtp.host']).to.equal('127.0.0.1');
    expect(JSON.stringify(row)).not.to.include(smtp.password);
  });

  it('keeps the stored password when PUT sends it blank, and a save without change writes no audit row', async () => {
    const before = (await auditRows(t, 'setting.mail_update')).length;
    const res = await t.call('PUT', '/mail-settings', admin, smtpBody({ smtp: { ...smtpBody().smtp, password: '' } }));
    expect(res.json().smtp.passwordSet).to.equal(true);
    expect((await auditRows(t, 'setting.mail_update')).length).to.equal(before);
  });

  it('sends a test mail over STARTTLS with AUTH; headers, both parts and non-ASCII arrive intact; not audited', async () => {
    const auditBefore = await t.db('audit_log').count({ n: '*' });
    const res = await t.call('POST', '/mail-settings/test', admin, { to: 'Ops@Example.test' });
    expect(res.statusCode, res.body).to.equal(200);
    const [mail] = await smtp.waitFor(1);
    expect(mail!.secure).to.equal(true);
    expect(mail!.user).to.equal(smtp.user);
    expect(mail!.envelope.to.map((a) => a.toLowerCase())).to.deep.equal(['ops@example.test']);
    const parsed = mail!.parsed;
    expect(parsed.from?.value[0]).to.deep.include({ address: 'noreply@example.test', name: 'Zoë Ünïcode Büro' });
    expect(parsed.subject).to.match(/^Test mail from /);
    expect(parsed.text).to.include('This is a test mail');
    expect(parsed.html).to.be.a('string').and.include('<table role="presentation"');
    expect(parsed.messageId).to.equal(`<${res.json().id}@localhost>`);
    expect(await t.db('audit_log').count({ n: '*' })).to.deep.equal(auditBefore);

    const log = await t.call('GET', '/mail-log?kind=test', admin);
    expect(log.json().total).to.equal(1);
    const [entry] = log.json().entries;
    expect(entry).to.include({ status: 'sent', provider: 'smtp', kind: 'test' });
    expect(entry.providerAnswer).to.match(/^250/);
    expect(entry.delivered).to.equal(true);
    const one = (await t.call('GET', `/mail-log/${entry.id}`, admin)).json();
    expect(one.text).to.include('This is a test mail');
    expect(one.html).to.include('This is a test mail');
  });

  it('encodes a non-ASCII subject and keeps it through a template edit and a resend', async () => {
    const list = (await t.call('GET', '/mail-templates', admin)).json().templates;
    const test = list.find((x: { key: string }) => x.key === 'test');
    const patched = await t.call('PATCH', `/mail-templates/${test.id}`, admin, {
      subject: 'Grüße aus 東京 — {{siteUrl}}',
    });
    expect(patched.statusCode, patched.body).to.equal(200);
    await t.call('POST', '/mail-settings/test', admin, { to: 'ops@example.test' });
    const mails = await smtp.waitFor(2);
    const site = t.kernel.resolve('config').PUBLIC_BASE_URL.replace(/\/+$/, '');
    expect(mails[1]!.parsed.subject).to.equal(`Grüße aus 東京 — ${site}`);
    const entries = (await t.call('GET', '/mail-log?recipient=OPS@example.test&limit=1', admin)).json().entries;
    const resent = await t.call('POST', `/mail-log/${entries[0].id}/resend`, admin);
    expect(resent.statusCode, resent.body).to.equal(202);
    expect(resent.json().resentFrom).to.equal(entries[0].id);
    const all = await smtp.waitFor(3);
    expect(all[2]!.parsed.subject).to.equal(`Grüße aus 東京 — ${site}`);
    await eventually(
      async () => (await t.call('GET', `/mail-log/${resent.json().id}`, admin)).json().status === 'sent',
    );
  });

  it('sends the password reset through the edited template; the log hides the link and refuses a resend', async () => {
    const user = await t.createUser({ email: 'reader@example.test', roles: ['viewer'] });
    const list = (await t.call('GET', '/mail-templates', admin)).json().templates;
    const reset = list.find((x: { key: string }) => x.key === 'password-reset');
    const res = await t.call('PATCH', `/mail-templates/${reset.id}`, admin, {
      subject: 'Your new password, {{email}}',
      text: 'Follow {{link}} (valid {{validFor}}).',
    });
    expect(res.statusCode, res.body).to.equal(200);
    const before = smtp.received.length;
    expect((await t.call('POST', '/auth/forgot-password', null, { email: user.email })).statusCode).to.equal(202);
    const mails = await smtp.waitFor(before + 1);
    const mail = mails[before]!.parsed;
    expect(mail.subject).to.equal('Your new password, reader@example.test');
    const link = /Follow (\S+) \(valid 60 minutes\)/.exec(mail.text ?? '')?.[1];
    expect(link).to.match(/\/reset-password\?token=/);
    // The HTML part (the built-in tree) carries the link too, escaped by the content renderer.
    expect(mail.html).to.include(link);

    const entry = (await t.call('GET', '/mail-log?kind=password-reset', admin)).json().entries[0];
    // The outcome is recorded a moment after the server accepted the mail.
    await eventually(async () => (await t.call('GET', `/mail-log/${entry.id}`, admin)).json().status === 'sent');
    const one = (await t.call('GET', `/mail-log/${entry.id}`, admin)).json();
    expect(one.text).to.equal('Follow [hidden] (valid 60 minutes).');
    const token = new URL(link!).searchParams.get('token')!;
    const row = await t.db('mail_outbox').where({ id: entry.id }).first();
    expect(JSON.stringify(row)).not.to.include(token);
    expect(row.secrets_sealed).to.equal(null);
    expect((await t.call('POST', `/mail-log/${entry.id}/resend`, admin)).json().code).to.equal('MAIL_NOT_RESENDABLE');

    // The link works: the mail really carried the token.
    const done = await t.call('POST', '/auth/reset-password', null, { token, password: 'a-new-Password-42' });
    expect(done.statusCode).to.equal(204);
  });

  it('refuses a permanent SMTP refusal without retrying, and retries a temporary one', async () => {
    smtp.answerNext({ code: 550, message: 'mailbox unavailable' });
    await t.kernel.resolve('mail').send({ to: 'gone@example.test', subject: 'Hello', text: 'x', kind: 'probe' });
    const failed = await eventually(async () => {
      const [e] = (await t.call('GET', '/mail-log?recipient=gone@example.test', admin)).json().entries;
      return e?.status === 'failed' ? e : false;
    });
    expect(failed.attempts).to.equal(1);
    expect(failed.error).to.match(/550/);

    smtp.answerNext({ code: 451, message: 'try later' });
    const before = smtp.received.length;
    await t.kernel.resolve('mail').send({ to: 'later@example.test', subject: 'Later', text: 'x', kind: 'probe' });
    const retrying = await eventually(async () => {
      const [e] = (await t.call('GET', '/mail-log?recipient=later@example.test', admin)).json().entries;
      return e?.status === 'retrying' ? e : false;
    });
    expect(retrying.error).to.match(/451/);
    expect(new Date(retrying.nextAttemptAt).getTime() - t.clock.now().getTime()).to.be.closeTo(60_000, 1_000);
    // Moving the clock brings the retry due and wakes the queue's runner.
    await t.advanceClock(61_000);
    await smtp.waitFor(before + 1);
    const sent = await eventually(async () => {
      const [e] = (await t.call('GET', '/mail-log?recipient=later@example.test', admin)).json().entries;
      return e?.status === 'sent' ? e : false;
    });
    expect(sent.attempts).to.equal(2);
  });

  it('reports a wrong password as a failed test mail (502) without the password anywhere', async () => {
    const res = await t.call(
      'PUT',
      '/mail-settings',
      admin,
      smtpBody({ smtp: { ...smtpBody().smtp, password: 'wrong-Password-1' } }),
    );
    expect(res.statusCode).to.equal(200);
    const test = await t.call('POST', '/mail-settings/test', admin, { to: 'ops@example.test' });
    expect(test.statusCode).to.equal(502);
    expect(test.json().code).to.equal('MAIL_TEST_FAILED');
    expect(test.body).to.include('535');
    const rows = await t.db('mail_outbox').select('*');
    expect(JSON.stringify(rows)).not.to.include('wrong-Password-1');
    expect(JSON.stringify(rows)).not.to.include(smtp.password);
    await t.call('PUT', '/mail-settings', admin, smtpBody());
  });

  it('sends over implicit TLS (secure: true) to a server that speaks TLS from the first byte', async () => {
    const tls = await startSmtpCatcher({ implicitTls: true });
    try {
      const put = await t.call('PUT', '/mail-settings', admin, {
        ...smtpBody(),
        smtp: { ...smtpBody().smtp, port: tls.port, secure: true, requireTls: false, password: tls.password },
      });
      expect(put.statusCode, put.body).to.equal(200);
      const test = await t.call('POST', '/mail-settings/test', admin, { to: 'tls@example.test' });
      expect(test.statusCode, test.body).to.equal(200);
      const [mail] = await tls.waitFor(1);
      expect(mail!.secure).to.equal(true);
      expect(mail!.user).to.equal(tls.user);
      expect(mail!.envelope.to).to.deep.equal(['tls@example.test']);
    } finally {
      await t.call('PUT', '/mail-settings', admin, smtpBody());
      await tls.close();
    }
  });

  it('accepts the older flat PUT body', async () => {
    const res = await t.call('PUT', '/mail-settings', admin, {
      host: '127.0.0.1',
      port: smtp.port,
      user: smtp.user,
      password: '',
      allowInvalidCertificate: true,
      from: 'flat@example.test',
    });
    expect(res.statusCode, res.body).to.equal(200);
    expect(res.json()).to.deep.include({ provider: 'smtp', from: 'flat@example.test' });
    expect(res.json().smtp.passwordSet).to.equal(true);
    const test = await t.call('POST', '/mail-settings/test', admin, { to: 'ops@example.test' });
    expect(test.statusCode, test.body).to.equal(200);
  });
});
