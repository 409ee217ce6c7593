import { expect } from 'chai';
import { expectNoLeaks } from '../../../test/helpers/answer-leaks.ts';
import { auditRows, startTestKernel, type TestKernel, type TestUser } from '../../../test/helpers/kernel.ts';
import { type OpenAiStandIn, startOpenAiStandIn } from '../../../test/helpers/openai-stand-in.ts';

const KEY = 'sk-test-0123456789abcdef';

/** Events of a text/event-stream body: `[{ event, data }]`. */
function events(body: string) {
  return body
    .split('\n\n')
    .filter((b) => b.trim())
    .map((block) => {
      const event = /^event: (.*)$/m.exec(block)?.[1];
      const data = /^data: (.*)$/m.exec(block)?.[1];
      return { event, data: data ? JSON.parse(data) : undefined };
    });
}

describe('ai: settings and text generation against an OpenAI wire-format stand-in', function () {
  this.timeout(30_000);
  let t: TestKernel;
  let ai: OpenAiStandIn;
  let admin: TestUser;
  let user: TestUser;

  const settings = (over: Record<string, unknown> = {}) => ({
    provider: 'openai-compatible',
    baseUrl: ai.baseUrl,
    model: 'llama3.2',
    apiKey: KEY,
    timeoutSeconds: 2,
    ...over,
  });

  before(async () => {
    ai = await startOpenAiStandIn();
    ai.apiKey = KEY;
    t = await startTestKernel({
      plugins: ['identity', 'content', 'ai'],
      env: { INTEGRATION_SECRETS_ENCRYPTION_KEY: 'd4'.repeat(32), AI_RETRIES: '1', AI_MAX_IN_FLIGHT_PER_USER: '2' },
    });
    admin = await t.admin();
    user = await t.createUser({ permissions: ['ai:use'] });
  });
  after(async () => {
    await t?.close();
    await ai?.close();
  });

  it('keeps the key sealed, never answers it, keeps it on a blank key and audits it as changed', async () => {
    expect((await t.call('GET', '/ai/settings', admin)).json()).to.deep.equal({ configured: false, apiKeySet: false });
    const put = await t.call('PUT', '/ai/settings', admin, settings());
    expect(put.statusCode, put.body).to.equal(200);
    expect(put.body).not.to.contain(KEY);
    expect(put.json()).to.include({ configured: true, apiKeySet: true, model: 'llama3.2', baseUrl: ai.baseUrl });
    const [row] = await t.db('ai_settings').where({ kind: 'text' });
    expect(row.api_key).to.match(/^v1:INTEGRATION_SECRETS_ENCRYPTION_KEY:/);
    expect(JSON.stringify(row)).not.to.contain(KEY);

    const blank = await t.call('PUT', '/ai/settings', admin, settings({ apiKey: '', model: 'qwen2.5' }));
    expect(blank.json()).to.include({ apiKeySet: true, model: 'qwen2.5' });
    expect((await t.db('ai_settings').where({ kind: 'text' }).first()).api_key).to.equal(row.api_key);

    const audits = await auditRows(t, 'setting.update', 'ai/settings');
    expect(audits).to.have.length(2);
    expect(audits[0].after).to.include({ apiKey: 'changed', model: 'llama3.2' });
    expect(audits[1].after).to.deep.equal({ model: 'qwen2.5' });
    expect(JSON.stringify(audits)).not.to.contain(KEY);

    // Nothing changed: no row.
    await t.call('PUT', '/ai/settings', admin, settings({ apiKey: '', model: 'qwen2.5' }));
    expect(await auditRows(t, 'setting.update', 'ai/settings')).to.have.length(2);
  });

  it('refuses settings without a base URL for openai-compatible, and a bad URL, naming the field', async () => {
    const missing = await t.call('PUT', '/ai/image-settings', admin, { provider: 'openai-compatible', model: 'x' });
    expect(missing.statusCode).to.equal(400);
    expect(missing.json()).to.include({ field: 'baseUrl' });
    const bad = await t.call('PUT', '/ai/image-settings', admin, settings({ baseUrl: 'ftp://example.test' }));
    expect(bad.statusCode).to.equal(400);
    expect(bad.json().field).to.equal('baseUrl');
    const creds = await t.call('PUT', '/ai/image-settings', admin, settings({ baseUrl: 'http://u:p@example.test/v1' }));
    expect(creds.json().field).to.equal('baseUrl');
    expect((await t.call('GET', '/ai/image-settings', admin)).json().configured).to.equal(false);
  });

  it('translate settings may use the text settings', async () => {
    const put = await t.call('PUT', '/ai/translate-settings', admin, { useTextSettings: true });
    expect(put.statusCode, put.body).to.equal(200);
    expect(put.json()).to.deep.equal({ configured: true, useTextSettings: true, apiKeySet: false });
  });

  it("tests a kind's connection through the provider's model list, generating nothing", async () => {
    const test = (kind: string, who: TestUser = admin) => t.call('POST', '/ai/test-connection', who, { kind });
    const unset = await test('image');
    expect(unset.statusCode, unset.body).to.equal(409);
    expect(unset.json().code).to.equal('AI_NOT_CONFIGURED');
    expect((await test('text', user)).statusCode).to.equal(403);
    expect((await test('video')).statusCode).to.equal(400);

    const before = ai.requests.length;
    const text = await test('text');
    expect(text.statusCode, text.body).to.equal(200);
    const model = (await t.call('GET', '/ai/settings', admin)).json().model;
    expect(text.json()).to.deep.equal({
      ok: true,
      host: new URL(ai.baseUrl).host,
      model,
      modelListed: false,
      models: 3,
    });
    // Translations use the text settings here; one GET /models each, with the key.
    expect((await test('translate')).json()).to.include({ ok: true, model });
    const calls = ai.requests.slice(before);
    expect(calls.map((r) => r.path)).to.deep.equal(['/models', '/models']);
    expect(calls[0].headers.authorization).to.equal(`Bearer ${KEY}`);

    const put = await t.call('PUT', '/ai/image-settings', admin, settings({ model: 'gpt-image-1' }));
    expect(put.statusCode, put.body).to.equal(200);
    expect((await test('image')).json()).to.include({ modelListed: true, model: 'gpt-image-1' });
    // A wrong key: the provider's refusal, named.
    ai.apiKey = 'sk-other';
    try {
      const refused = await test('image');
      expect(refused.statusCode).to.equal(502);
      expect(refused.json().code).to.equal('AI_PROVIDER_UNAUTHORIZED');
      expect(refused.body).not.to.contain(KEY);
    } finally {
      ai.apiKey = KEY;
    }
  });

  it('settings need settings:manage; generation needs ai:use', async () => {
    expect((await t.call('GET', '/ai/settings', user)).statusCode).to.equal(403);
    expect((await t.call('PUT', '/ai/translate-settings', user, { useTextSettings: true })).statusCode).to.equal(403);
    const none = await t.createUser({ permissions: ['objects:read'] });
    expect((await t.call('POST', '/ai/generate', none, { prompt: 'hi' })).statusCode).to.equal(403);
    expect((await t.call('GET', '/ai/generated', none)).statusCode).to.equal(403);
    expect((await t.call('POST', '/ai/generate', null, { prompt: 'hi' })).statusCode).to.equal(401);
    // The built-in editor role holds ai:use through objects:write.
    const editor = await t.createUser({ roles: ['editor'] });
    expect((await t.call('GET', '/ai/generated', editor)).statusCode).to.equal(200);
  });

  it('generates text through chat completions, with the key, and keeps it for /ai/generated', async () => {
    const res = await t.call('POST', '/ai/generate', user, {
      prompt: 'Write a slogan',
      system: 'Be brief',
      maxOutputTokens: 50,
    });
    expect(res.statusCode, res.body).to.equal(200);
    const body = res.json();
    expect(body).to.include({ text: 'Echo: Write a slogan', model: 'qwen2.5' });
    expect(body.usage).to.deep.equal({ inputTokens: 14, outputTokens: 20 });
    const seen = ai.requests.at(-1)!;
    expect(seen.path).to.equal('/chat/completions');
    expect(seen.headers.authorization).to.equal(`Bearer ${KEY}`);
    expect(seen.body).to.deep.include({
      model: 'qwen2.5',
      max_tokens: 50,
      messages: [
        { role: 'system', content: 'Be brief' },
        { role: 'user', content: 'Write a slogan' },
      ],
    });
    const list = (await t.call('GET', '/ai/generated?kind=text&limit=5', user)).json();
    expect(list.items[0]).to.include({ id: body.id, kind: 'text', prompt: 'Write a slogan', result: body.text });
    expect(list.items[0].createdBy).to.equal(user.id);
    expect(list.total).to.be.at.least(1);
  });

  it('streams deltas as server-sent events, ending with the whole result', async () => {
    const res = await t.call('POST', '/ai/generate', user, { prompt: 'one two three', stream: true });
    expect(res.statusCode).to.equal(200);
    expect(res.headers['content-type']).to.match(/^text\/event-stream/);
    const list = events(res.body);
    const deltas = list.filter((e) => e.event === 'delta').map((e) => e.data.text);
    expect(deltas.join('')).to.equal('Echo: one two three');
    expect(deltas.length).to.be.greaterThan(1);
    const done = list.at(-1)!;
    expect(done.event).to.equal('done');
    expect(done.data).to.include({ text: 'Echo: one two three' });
    expect(done.data.usage.outputTokens).to.equal(19);
    expect(ai.requests.at(-1)!.body).to.deep.include({ stream: true, stream_options: { include_usage: true } });
    const list2 = (await t.call('GET', '/ai/generated?kind=text', user)).json();
    expect(list2.items[0].id).to.equal(done.data.id);
  });

  it('a stream cut in the middle ends with an error event, in the error body shape', async () => {
    ai.next({ cutStream: true });
    const res = await t.call('POST', '/ai/generate', user, { prompt: 'cut me off', stream: true });
    const list = events(res.body);
    expect(list[0]).to.deep.equal({ event: 'delta', data: { text: 'Echo: ' } });
    const last = list.at(-1)!;
    expect(last.event).to.equal('error');
    expect(last.data).to.include({ statusCode: 502, code: 'AI_INVALID_OUTPUT' });
  });

  it('maps provider faults to clear errors: 401, 429 after its Retry-After, 500, malformed JSON, a hang', async () => {
    ai.next({ status: 401, error: 'Incorrect API key provided.' });
    const unauthorized = await t.call('POST', '/ai/generate', user, { prompt: 'x' });
    expect(unauthorized.statusCode).to.equal(502);
    expect(unauthorized.json().code).to.equal('AI_PROVIDER_UNAUTHORIZED');
    expect(unauthorized.body).not.to.contain(KEY);

    // One 429 with Retry-After: 1, then an answer: the retry waits and succeeds.
    ai.next({ status: 429, error: 'Rate limit reached', headers: { 'retry-after': '1' } });
    const started = Date.now();
    const retried = await t.call('POST', '/ai/generate', user, { prompt: 'after a wait' });
    expect(retried.statusCode, retried.body).to.equal(200);
    expect(Date.now() - started).to.be.at.least(950);

    // Rate limited on every try (AI_RETRIES=1): 429 with the provider's Retry-After.
    ai.next(
      { status: 429, error: 'Rate limit reached', headers: { 'retry-after-ms': '10' } },
      { status: 429, error: 'Rate limit reached', headers: { 'retry-after': '7' } },
    );
    const limited = await t.call('POST', '/ai/generate', user, { prompt: 'x' });
    expect(limited.statusCode).to.equal(429);
    expect(limited.json().code).to.equal('AI_PROVIDER_RATE_LIMITED');
    expect(limited.headers['retry-after']).to.equal('7');

    ai.next({ status: 500, error: 'boom', headers: { 'retry-after-ms': '10' } }, { status: 500, error: 'boom again' });
    const failed = await t.call('POST', '/ai/generate', user, { prompt: 'x' });
    expect(failed.statusCode).to.equal(502);
    expect(failed.json()).to.include({ code: 'AI_PROVIDER_FAILED' });
    expect(failed.json().message).to.contain('500').and.contain('boom again');

    ai.next({ raw: '{"choices": [' });
    const garbage = await t.call('POST', '/ai/generate', user, { prompt: 'x' });
    expect(garbage.statusCode).to.equal(502);
    expect(garbage.json().code).to.equal('AI_INVALID_OUTPUT');

    ai.next({ hang: true });
    const hung = Date.now();
    const slow = await t.call('POST', '/ai/generate', user, { prompt: 'x' });
    expect(slow.statusCode).to.equal(504);
    expect(slow.json().code).to.equal('AI_PROVIDER_TIMEOUT');
    expect(Date.now() - hung).to.be.within(1500, 5000);
  });

  it('an unreachable provider is a 502 naming it', async () => {
    await t.call('PUT', '/ai/image-settings', admin, settings({ baseUrl: 'http://127.0.0.1:9/v1' }));
    // Images come later; the text kind is what is asked here.
    await t.call('PUT', '/ai/settings', admin, settings({ baseUrl: 'http://127.0.0.1:9/v1' }));
    const down = await t.call('POST', '/ai/generate', user, { prompt: 'x' });
    expect(down.statusCode).to.equal(502);
    expect(down.json()).to.include({ code: 'AI_PROVIDER_UNREACHABLE' });
    expect(down.json().message).to.contain('127.0.0.1:9');
    await t.call('PUT', '/ai/settings', admin, settings());
  });

  it('bounds the calls one user has running at once (429 AI_BUSY)', async () => {
    ai.next({ hang: true }, { hang: true });
    const running = [1, 2].map(() => t.call('POST', '/ai/generate', user, { prompt: 'slow' }));
    await new Promise((r) => setTimeout(r, 200));
    const third = await t.call('POST', '/ai/generate', user, { prompt: 'one too many' });
    expect(third.statusCode).to.equal(429);
    expect(third.json().code).to.equal('AI_BUSY');
    expect(Number(third.headers['retry-after'])).to.be.at.least(1);
    const other = await t.createUser({ permissions: ['ai:use'] });
    expect((await t.call('POST', '/ai/generate', other, { prompt: 'mine' })).statusCode).to.equal(200);
    await Promise.all(running);
    expect((await t.call('POST', '/ai/generate', user, { prompt: 'free again' })).statusCode).to.equal(200);
  });

  it('purges results older than AI_GENERATED_RETENTION_DAYS', async () => {
    const before = (await t.call('GET', '/ai/generated', user)).json().total;
    expect(before).to.be.greaterThan(0);
    // Older than the retention (the kernel clock would also expire the session).
    await t.db('ai_generated').update({ created_at: t.db.raw("created_at - interval '91 days'") });
    await t.call('POST', '/ai/generate', user, { prompt: 'fresh' });
    await t.runJob('ai', 'purge-generated');
    const after = (await t.call('GET', '/ai/generated', user)).json();
    expect(after.total).to.equal(1);
    expect(after.items[0].prompt).to.equal('fresh');
  });

  it('no answer carries the key, sealed or in clear, or an internal column', async () => {
    const [row] = await t.db('ai_settings').where({ kind: 'text' });
    const answers = [
      await t.call('GET', '/ai/settings', admin),
      await t.call('PUT', '/ai/settings', admin, settings()),
      await t.call('GET', '/ai/translate-settings', admin),
      await t.call('POST', '/ai/generate', user, { prompt: 'leak?' }),
      await t.call('GET', '/ai/generated', user),
    ];
    for (const a of answers) expect(a.statusCode, a.body).to.equal(200);
    expectNoLeaks(answers, { values: [KEY, row.api_key, 'api_key', 'created_by'] });
  });
});
