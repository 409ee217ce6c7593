import { expect } from 'chai';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  auditRows,
  eventually,
  startTestKernel,
  type TestKernel,
  type TestUser,
} from '../../../test/helpers/kernel.ts';
import { OUTBOX_QUEUE } from '../services/outbox.ts';

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}
type Reply = { status: number; headers?: Record<string, string>; body?: string };

/** A local stand-in for a provider's API: records each request and answers what the test queued. */
async function startApi() {
  const seen: Seen[] = [];
  const replies: Reply[] = [];
  const fallback: Reply = { status: 200, body: '{}' };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({
        method: req.method!,
        url: req.url!,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      const r = replies.shift() ?? fallback;
      res.writeHead(r.status, { 'content-type': 'application/json', ...r.headers });
      res.end(r.body ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    reply: (...r: Reply[]) => void replies.push(...r),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

type Api = Awaited<ReturnType<typeof startApi>>;

/**
 * Each shipped HTTP provider against a local server that checks the request the way the provider's
 * public API documents it (auth header, body fields) and answers with that API's success and error
 * shapes: 2xx sent, 429 and 5xx retried, other 4xx refused for good.
 */
describe('mail: HTTP providers (Postmark, Mailgun, SendGrid)', function () {
  this.timeout(60_000);
  let t: TestKernel;
  let admin: TestUser;
  let api: Api;

  before(async () => {
    api = await startApi();
    t = await startTestKernel({ plugins: ['identity', 'gateway', 'content', 'mail'] });
    admin = await t.admin();
  });
  after(async () => {
    await t?.close();
    await api?.close();
  });

  const send = (to: string) =>
    t.kernel
      .resolve('mail')
      .send({ to, subject: 'Grüße', text: 'plain body', html: '<p>html body</p>', kind: 'probe' });
  const entryFor = (to: string, status: string) =>
    eventually(async () => {
      const [e] = (await t.call('GET', `/mail-log?recipient=${encodeURIComponent(to)}`, admin)).json().entries;
      return e?.status === status ? e : false;
    });
  const configure = async (provider: string, providerConfig: Record<string, string>) => {
    const res = await t.call('PUT', '/mail-settings', admin, {
      provider,
      providerConfig: { ...providerConfig, baseUrl: api.url },
      from: 'news@example.test',
      fromName: 'Newsroom',
    });
    expect(res.statusCode, res.body).to.equal(200);
    return res.json();
  };

  it('lists the installed providers with their config fields', async () => {
    const res = await t.call('GET', '/mail-providers', admin);
    expect(res.statusCode).to.equal(200);
    const ids = res.json().providers.map((p: { id: string }) => p.id);
    expect(ids).to.include.members(['mailgun', 'postmark', 'sendgrid']);
    const mailgun = res.json().providers.find((p: { id: string }) => p.id === 'mailgun');
    expect(mailgun.fields.map((f: { name: string }) => f.name)).to.deep.equal(['domain', 'apiKey', 'baseUrl']);
    expect(mailgun.fields[1]).to.include({ type: 'secret', required: true });
  });

  it('refuses an unknown provider, an unknown config field and a missing key, naming the field', async () => {
    const unknown = await t.call('PUT', '/mail-settings', admin, { provider: 'pigeon', providerConfig: {} });
    expect(unknown.statusCode).to.equal(400);
    expect(unknown.json().field).to.equal('provider');
    const field = await t.call('PUT', '/mail-settings', admin, {
      provider: 'postmark',
      providerConfig: { serverToken: 'x', color: 'red' },
    });
    expect(field.json()).to.include({ statusCode: 400, field: 'providerConfig.color' });
    const missing = await t.call('PUT', '/mail-settings', admin, { provider: 'postmark', providerConfig: {} });
    expect(missing.json()).to.include({ statusCode: 400, field: 'providerConfig.serverToken' });
    const url = await t.call('PUT', '/mail-settings', admin, {
      provider: 'sendgrid',
      providerConfig: { apiKey: 'k', baseUrl: 'ftp://x' },
    });
    expect(url.json()).to.include({ statusCode: 400, field: 'providerConfig.baseUrl' });
  });

  it('Postmark: X-Postmark-Server-Token, JSON fields; 200 sent, 422 refused for good', async () => {
    const token = 'pm-server-token-1234';
    const saved = await configure('postmark', { serverToken: token, messageStream: 'outbound' });
    expect(saved.secretsSet).to.deep.equal({ serverToken: true });
    expect(JSON.stringify(saved)).not.to.include(token);
    api.reply({
      status: 200,
      body: JSON.stringify({
        To: 'a@example.test',
        SubmittedAt: '2026-01-01T00:00:00Z',
        MessageID: 'b7bc2f4a-e38e-4336-af7d-e6c392c2f817',
        ErrorCode: 0,
        Message: 'OK',
      }),
    });
    const before = api.seen.length;
    await send('pm@example.test');
    const sent = await entryFor('pm@example.test', 'sent');
    expect(sent.providerAnswer).to.equal('200 id b7bc2f4a-e38e-4336-af7d-e6c392c2f817');
    const req = api.seen[before]!;
    expect(req.method).to.equal('POST');
    expect(req.url).to.equal('/email');
    expect(req.headers['x-postmark-server-token']).to.equal(token);
    expect(req.headers.accept).to.equal('application/json');
    expect(req.headers['content-type']).to.equal('application/json');
    const body = JSON.parse(req.body);
    expect(body).to.deep.include({
      From: '"Newsroom" <news@example.test>',
      To: 'pm@example.test',
      Subject: 'Grüße',
      HtmlBody: '<p>html body</p>',
      TextBody: 'plain body',
      MessageStream: 'outbound',
    });
    expect(body).not.to.have.property('Cc');

    api.reply({ status: 422, body: JSON.stringify({ ErrorCode: 300, Message: 'Invalid email request' }) });
    await send('pm-bad@example.test');
    const failed = await entryFor('pm-bad@example.test', 'failed');
    expect(failed.error).to.equal('Postmark answered 422: Invalid email request');
    expect(failed.attempts).to.equal(1);
    const rows = await t.db('mail_outbox').select('*');
    expect(JSON.stringify(rows)).not.to.include(token);
    const audit = await auditRows(t, 'setting.mail_update');
    expect(JSON.stringify(audit)).not.to.include(token);
    expect(audit.at(-1).after['secret.serverToken']).to.equal('changed');
  });

  it('Mailgun: basic auth api:key, form fields to /v3/<domain>/messages; 429 then 5xx retried, then sent once', async () => {
    const key = 'key-3ax6xnjp29jd6fds4gc373sgvjxteol0';
    await configure('mailgun', { domain: 'mg.example.test', apiKey: key });
    api.reply(
      { status: 429, headers: { 'retry-after': '5' }, body: JSON.stringify({ message: 'Too many requests' }) },
      { status: 503, body: 'upstream unavailable' },
      { status: 200, body: JSON.stringify({ id: '<20260101.1@mg.example.test>', message: 'Queued. Thank you.' }) },
    );
    const before = api.seen.length;
    await send('mg@example.test');
    let e = await entryFor('mg@example.test', 'retrying');
    expect(e.error).to.equal('Mailgun answered 429: Too many requests');
    await t.advanceClock(61_000);
    e = await eventually(async () => {
      const [x] = (await t.call('GET', '/mail-log?recipient=mg@example.test', admin)).json().entries;
      return x.attempts === 2 ? x : false;
    });
    expect(e.status).to.equal('retrying');
    expect(e.error).to.match(/^Mailgun answered 503/);
    await t.advanceClock(5 * 60_000 + 1_000);
    const sent = await entryFor('mg@example.test', 'sent');
    expect(sent.attempts).to.equal(3);
    expect(sent.providerAnswer).to.equal('200 id <20260101.1@mg.example.test>');
    expect(api.seen.length - before).to.equal(3);
    const req = api.seen.at(-1)!;
    expect(req.url).to.equal('/v3/mg.example.test/messages');
    expect(req.headers.authorization).to.equal(`Basic ${Buffer.from(`api:${key}`).toString('base64')}`);
    expect(req.headers['content-type']).to.equal('application/x-www-form-urlencoded');
    const form = new URLSearchParams(req.body);
    expect(form.get('from')).to.equal('"Newsroom" <news@example.test>');
    expect(form.getAll('to')).to.deep.equal(['mg@example.test']);
    expect(form.get('subject')).to.equal('Grüße');
    expect(form.get('text')).to.equal('plain body');
    expect(form.get('html')).to.equal('<p>html body</p>');
    expect(form.get('h:Message-Id')).to.equal(sent.messageId);

    api.reply({ status: 401, body: 'Forbidden' });
    await send('mg-bad@example.test');
    const failed = await entryFor('mg-bad@example.test', 'failed');
    expect(failed.error).to.equal('Mailgun answered 401: Forbidden');
  });

  it('SendGrid: Bearer key, personalizations and content; 202 with X-Message-Id; 400 errors refused', async () => {
    const key = 'SG.abcdefghijklmnop.qrstuvwxyz0123456789';
    await configure('sendgrid', { apiKey: key });
    api.reply({ status: 202, headers: { 'x-message-id': 'sg-msg-1' }, body: '' });
    const before = api.seen.length;
    await send('sg@example.test');
    const sent = await entryFor('sg@example.test', 'sent');
    expect(sent.providerAnswer).to.equal('202 id sg-msg-1');
    const req = api.seen[before]!;
    expect(req.url).to.equal('/v3/mail/send');
    expect(req.headers.authorization).to.equal(`Bearer ${key}`);
    const body = JSON.parse(req.body);
    expect(body.personalizations).to.deep.equal([{ to: [{ email: 'sg@example.test' }] }]);
    expect(body.from).to.deep.equal({ email: 'news@example.test', name: 'Newsroom' });
    expect(body.subject).to.equal('Grüße');
    expect(body.content).to.deep.equal([
      { type: 'text/plain', value: 'plain body' },
      { type: 'text/html', value: '<p>html body</p>' },
    ]);

    api.reply({
      status: 400,
      body: JSON.stringify({
        errors: [{ message: 'The from email does not contain a valid address.', field: 'from.email' }],
      }),
    });
    await send('sg-bad@example.test');
    const failed = await entryFor('sg-bad@example.test', 'failed');
    expect(failed.error).to.equal('SendGrid answered 400: The from email does not contain a valid address.');
    const rows = await t.db('mail_outbox').select('*');
    expect(JSON.stringify(rows)).not.to.include(key);
  });

  it('a provider that echoes the key in its error: the log keeps [hidden] instead', async () => {
    const key = 'SG.echoed-secret-value-0001';
    await configure('sendgrid', { apiKey: key });
    api.reply({ status: 401, body: JSON.stringify({ errors: [{ message: `key ${key} is not valid` }] }) });
    await send('echo@example.test');
    const failed = await entryFor('echo@example.test', 'failed');
    expect(failed.error).to.equal('SendGrid answered 401: key [hidden] is not valid');
  });
});

describe('mail: HTTP providers under the outbound policy (production)', function () {
  this.timeout(60_000);
  let t: TestKernel;
  let api: Api;
  before(async () => {
    api = await startApi();
    t = await startTestKernel({
      plugins: ['gateway', 'mail'],
      env: { NODE_ENV: 'production', MAIL_SETTINGS_ENCRYPTION_KEY: 'b2'.repeat(32) },
    });
  });
  after(async () => {
    await t?.close();
    await api?.close();
  });

  it('refuses a loopback provider address for good, naming OUTBOUND_ALLOW_HOSTS; nothing reaches it', async () => {
    const admin = await t.admin();
    const put = await t.call('PUT', '/mail-settings', admin, {
      provider: 'postmark',
      providerConfig: { serverToken: 'pm-token-prod', baseUrl: api.url },
    });
    expect(put.statusCode, put.body).to.equal(200);
    await t.kernel.resolve('mail').send({ to: 'prod@example.test', subject: 'x', text: 'x' });
    await t.kernel.resolve('jobs').settled(OUTBOX_QUEUE);
    const row = await t.db('mail_outbox').first();
    expect(row.status).to.equal('failed');
    expect(row.last_error).to.include('OUTBOUND_ALLOW_HOSTS');
    expect(api.seen).to.have.length(0);
  });
});
