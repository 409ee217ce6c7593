import { expect } from 'chai';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { eventually, startTestKernel, type TestKernel, type TestUser } from '../../../test/helpers/kernel.ts';

/** A server posing as an HTTP mail provider: whatever is sent through it lands here. */
async function startCatcher() {
  const bodies: string[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      bodies.push(Buffer.concat(chunks).toString('utf8'));
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"MessageID":"caught"}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    bodies,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * The default mail settings and the account templates decide where password-reset links go, so
 * whoever changes them can take over any account, administrators included: like the single-sign-on
 * settings, changing them needs every key (`*`), not `mail:manage` alone.
 */
describe('mail: a mail:manage holder cannot redirect account mail (privilege escalation)', function () {
  this.timeout(60_000);
  let t: TestKernel;
  let admin: TestUser;
  let mailManager: TestUser;
  let catcher: Awaited<ReturnType<typeof startCatcher>>;

  before(async () => {
    catcher = await startCatcher();
    t = await startTestKernel({ plugins: ['identity', 'gateway', 'content', 'mail'], env: { MAIL_POLL_MS: '100' } });
    admin = await t.admin();
    mailManager = await t.createUser({ permissions: ['mail:manage'] });
  });
  after(async () => {
    await t?.close();
    await catcher?.close();
  });

  const hijack = {
    provider: 'postmark',
    providerConfig: { serverToken: 'attacker-token', baseUrl: '' },
    from: 'noreply@example.test',
  };

  it('the default settings: 403 for mail:manage alone, nothing stored, and no reset link reaches the catcher', async () => {
    const body = { ...hijack, providerConfig: { ...hijack.providerConfig, baseUrl: catcher.url } };
    const before = await t.db('mail_settings').select();
    const res = await t.call('PUT', '/mail-settings', mailManager, body);
    expect(res.statusCode, res.body).to.equal(403);
    expect(res.json().code).to.equal('PERMISSION_ESCALATION');
    expect(await t.db('mail_settings').select()).to.deep.equal(before);

    // The attack the refusal prevents: a reset of the administrator's password mailed to the catcher.
    expect((await t.call('POST', '/auth/forgot-password', null, { email: admin.email })).statusCode).to.equal(202);
    await eventually(
      async () =>
        (await t.db('mail_outbox').where({ kind: 'password-reset' }).whereIn('status', ['sent', 'failed']).first()) ??
        false,
    );
    expect(catcher.bodies.join('\n')).not.to.contain('reset-password');
  });

  it('reading stays open to mail:manage; an administrator changes the default settings, the secret never returned', async () => {
    const list = await t.call('GET', '/mail-settings', mailManager);
    expect(list.statusCode, list.body).to.equal(200);
    const put = await t.call('PUT', '/mail-settings', admin, {
      ...hijack,
      providerConfig: { serverToken: 'admin-token', baseUrl: catcher.url },
    });
    expect(put.statusCode, put.body).to.equal(200);
    expect(put.body).not.to.contain('admin-token');
  });

  it('the password-reset templates: 403 for mail:manage alone on change, rename and delete; others stay open', async () => {
    const templates = (await t.call('GET', '/mail-templates', mailManager)).json().templates as Array<{
      id: string;
      key: string;
    }>;
    const reset = templates.find((x) => x.key === 'password-reset')!;
    const forced = templates.find((x) => x.key === 'password-reset-forced')!;
    const form = templates.find((x) => x.key === 'form-notification')!;
    const phishing = { text: 'Open https://evil.example/?next={{link}}' };
    for (const [method, url, body] of [
      ['PATCH', `/mail-templates/${reset.id}`, phishing],
      ['PATCH', `/mail-templates/${forced.id}`, { key: 'renamed' }],
      ['PATCH', `/mail-templates/${form.id}`, { key: 'password-reset' }],
      ['DELETE', `/mail-templates/${reset.id}`, undefined],
    ] as const) {
      const res = await t.call(method, url, mailManager, body);
      expect(res.statusCode, `${method} ${url}: ${res.body}`).to.equal(403);
      expect(res.json().code).to.equal('PERMISSION_ESCALATION');
    }
    const kept = (await t.call('GET', `/mail-templates/${reset.id}`, admin)).json();
    expect(kept.text).not.to.contain('evil.example');
    const other = await t.call('PATCH', `/mail-templates/${form.id}`, mailManager, {
      subject: 'New form: {{subject}}',
    });
    expect(other.statusCode, other.body).to.equal(200);
    const byAdmin = await t.call('PATCH', `/mail-templates/${reset.id}`, admin, { subject: 'Reset it' });
    expect(byAdmin.statusCode, byAdmin.body).to.equal(200);
  });
});

/**
 * Provider settings become request headers, paths and bodies. A value that cannot travel in a header
 * (a line break, a non-ASCII key) or a base URL with credentials was saved and then made every mail
 * fail with "could not be reached"; it is refused at the save, naming the field, and nothing changes.
 */
describe('mail: provider settings that cannot be sent are refused when saved', function () {
  this.timeout(60_000);
  let t: TestKernel;
  let admin: TestUser;

  before(async () => {
    t = await startTestKernel({
      plugins: ['identity', 'gateway', 'content', 'mail'],
      env: { MAIL_WORKER_ENABLED: '0' },
    });
    admin = await t.admin();
  });
  after(() => t?.close());

  it('line breaks, control characters, non-ASCII keys and credentials in the base URL: 400 naming the field', async () => {
    const base = { serverToken: 'pm-token-1234', baseUrl: 'https://api.example.test' };
    const before = await t.db('mail_settings').select();
    for (const [config, field] of [
      [{ serverToken: 'abc\r\nX-Injected: 1' }, 'providerConfig.serverToken'],
      [{ serverToken: 'ab\u0000c' }, 'providerConfig.serverToken'],
      [{ serverToken: 'tökén€' }, 'providerConfig.serverToken'],
      [{ messageStream: 'outbound\r\nX-Injected: 1' }, 'providerConfig.messageStream'],
      [{ messageStream: 'out\u2028bound' }, 'providerConfig.messageStream'],
      [{ baseUrl: 'https://user:secret@api.example.test' }, 'providerConfig.baseUrl'],
    ] as const) {
      const res = await t.call('PUT', '/mail-settings', admin, {
        provider: 'postmark',
        providerConfig: { ...base, ...config },
        from: 'news@example.test',
      });
      expect(res.statusCode, `${JSON.stringify(config)}: ${res.body}`).to.equal(400);
      expect(res.json().field, res.body).to.equal(field);
      expect(res.body).not.to.contain('secret@');
    }
    expect(await t.db('mail_settings').select()).to.deep.equal(before);
    const fine = await t.call('PUT', '/mail-settings', admin, {
      provider: 'postmark',
      providerConfig: { ...base, messageStream: 'Grüße' },
      from: 'news@example.test',
    });
    expect(fine.statusCode, fine.body).to.equal(200);
  });

  it('a template name of spaces or with a line break is refused (it was stored as an empty name)', async () => {
    for (const name of ['   ', 'a\r\nb']) {
      const res = await t.call('POST', '/mail-templates', admin, { key: 'blank-name', name, subject: 's', text: 't' });
      expect(res.statusCode, res.body).to.equal(400);
      expect(res.json().field).to.equal('name');
    }
    expect(await t.db('mail_templates').where({ key: 'blank-name' })).to.have.length(0);
  });
});

/**
 * SMTP reaches addresses as HTTP does: the gateway's outbound address policy applies to an SMTP host
 * (link-local and cloud metadata addresses always; loopback in production unless OUTBOUND_ALLOW_HOSTS
 * names it), when the settings are saved and again when a mail is sent.
 */
describe('mail: an SMTP host the outbound policy refuses (SSRF through SMTP)', function () {
  this.timeout(60_000);
  let t: TestKernel;
  let admin: TestUser;

  before(async () => {
    t = await startTestKernel({
      plugins: ['identity', 'gateway', 'content', 'mail'],
      env: { MAIL_WORKER_ENABLED: '0' },
    });
    admin = await t.admin();
  });
  after(() => t?.close());

  const smtpTo = (host: string) => ({ provider: 'smtp', smtp: { host, port: 25 }, from: 'noreply@example.test' });

  it('saving a metadata or link-local host answers 400 naming smtp.host and stores nothing', async () => {
    const before = await t.db('mail_settings').select();
    for (const host of ['169.254.169.254', '169.254.10.20', '[fe80::1]']) {
      const res = await t.call('PUT', '/mail-settings', admin, smtpTo(host));
      expect(res.statusCode, `${host}: ${res.body}`).to.equal(400);
      expect(res.json().field, host).to.equal('smtp.host');
      expect(res.json().message, host).to.match(/refused by the outbound policy/);
    }
    expect(await t.db('mail_settings').select()).to.deep.equal(before);
    // An ordinary address is still saved (loopback outside production: a local relay in tests).
    expect((await t.call('PUT', '/mail-settings', admin, smtpTo('127.0.0.1'))).statusCode).to.equal(200);
  });

  it('settings stored before the check are refused at sending, before any connection: the log says why', async () => {
    expect((await t.call('PUT', '/mail-settings', admin, smtpTo('127.0.0.1'))).statusCode).to.equal(200);
    // As a row written before this check existed would hold it.
    const row = await t.db('mail_settings').where({ scope: 'default' }).first();
    await t
      .db('mail_settings')
      .where({ scope: 'default' })
      .update({ config: { ...row.config, host: '169.254.169.254' }, updated_at: new Date() });
    const res = await t.call('POST', '/mail-settings/test', admin, { to: 'ops@example.test' });
    expect(res.statusCode, res.body).to.equal(502);
    expect(res.json().message).to.match(/not sent: 169\.254\.169\.254 resolves to the link-local address/);
    const log = (await t.call('GET', '/mail-log?kind=test', admin)).json();
    expect(log.entries[0].status).to.equal('failed');
  });
});

/** A template of many placeholders filled with long values cannot make a mail of hundreds of megabytes. */
describe('mail: filled templates are capped', function () {
  this.timeout(60_000);
  let t: TestKernel;
  let admin: TestUser;

  before(async () => {
    t = await startTestKernel({ plugins: ['identity', 'content', 'mail'], env: { MAIL_WORKER_ENABLED: '0' } });
    admin = await t.admin();
  });
  after(() => t?.close());

  const many = '{{x}} '.repeat(5_000);
  const long = 'y'.repeat(10_000);

  it('the text part stops at 1,000,000 characters and says values were left out', async () => {
    const created = await t.call('POST', '/mail-templates', admin, {
      key: 'bomb-text',
      name: 'Bomb text',
      subject: 'Hi {{x}}',
      text: many,
    });
    expect(created.statusCode, created.body).to.equal(201);
    const res = await t.call('POST', `/mail-templates/${created.json().id}/render`, admin, { variables: { x: long } });
    expect(res.statusCode, res.body.slice(0, 300)).to.equal(200);
    const { text, subject } = res.json();
    expect(text.length).to.be.within(900_000, 1_000_200);
    expect(text).to.match(/Some values were left out: this mail would have been longer than 1,000,000 characters/);
    expect(subject.length).to.be.at.most(998);
  });

  it('an HTML part past the cap is refused by the render route, naming html', async () => {
    const created = await t.call('POST', '/mail-templates', admin, {
      key: 'bomb-html',
      name: 'Bomb HTML',
      subject: 'Hi',
      text: 'short',
      html: { type: 'p', text: many },
    });
    expect(created.statusCode, created.body).to.equal(201);
    const res = await t.call('POST', `/mail-templates/${created.json().id}/render`, admin, { variables: { x: long } });
    expect(res.statusCode, res.body.slice(0, 300)).to.equal(400);
    expect(res.json().field).to.equal('html');
    // The same template with short values renders whole.
    const fine = await t.call('POST', `/mail-templates/${created.json().id}/render`, admin, { variables: { x: 'z' } });
    expect(fine.statusCode).to.equal(200);
    expect(fine.json().html).to.include('z z z');
  });
});
