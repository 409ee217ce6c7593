import { expect } from 'chai';
import { startTestKernel, type TestKernel, type TestUser } from '../../../test/helpers/kernel.ts';
import { type OpenAiStandIn, type StandInReply, startOpenAiStandIn } from '../../../test/helpers/openai-stand-in.ts';

const structure = {
  name: 'Shop',
  rootPath: '/attack-shop',
  locales: ['en'],
  pages: [
    { path: '/', title: 'Home', locale: 'en', content: { type: 'section', children: [{ type: 'p', text: 'Hi' }] } },
  ],
  menu: [{ title: 'Home', path: '/' }],
};

/** No stack trace, no internal path, no 500: a clear error body with a code. */
function expectClearError(res: { statusCode: number; body: string; json(): { code?: unknown } }, what: string) {
  expect(res.statusCode, `${what}: ${res.body}`).not.to.equal(500);
  expect(res.body, what).not.to.match(/\n\s+at |node_modules|\.ts:\d+/);
  expect(res.json().code, what).to.be.a('string');
}

describe('ai: refusals without ai:use, garbage and silence from the provider, oversized input', function () {
  this.timeout(60_000);
  let t: TestKernel;
  let ai: OpenAiStandIn;
  let admin: TestUser;
  let pageId: string;

  before(async () => {
    ai = await startOpenAiStandIn();
    t = await startTestKernel({ plugins: ['identity', 'assets', 'content', 'ai'], env: { AI_RETRIES: '0' } });
    admin = await t.admin();
    for (const path of ['/ai/settings', '/ai/image-settings']) {
      const put = await t.call('PUT', path, admin, {
        provider: 'openai-compatible',
        baseUrl: ai.baseUrl,
        model: 'm',
        timeoutSeconds: 1,
      });
      expect(put.statusCode, put.body).to.equal(200);
    }
    const site = await t.call('POST', '/cms-one/websites/from-ai', admin, { structure });
    expect(site.statusCode, site.body).to.equal(201);
    pageId = site.json().pageIds[0];
    await t.call('PATCH', `/cms-one/websites/${site.json().website.id}`, admin, { locales: ['en', 'de'] });
  });
  after(async () => {
    await t?.close();
    await ai?.close();
  });

  it('a user without ai:use gets 403 on every AI route, and the provider is never called', async () => {
    // Page editing and uploads, but no ai:use (objects:write would grant it).
    const noAi = await t.createUser({ permissions: ['objects:read', 'pages:edit', 'assets:upload'] });
    const before = ai.requests.length;
    const calls: [string, string, unknown?][] = [
      ['GET', '/ai/settings'],
      ['PUT', '/ai/settings', { provider: 'openai', model: 'gpt-4o-mini' }],
      ['GET', '/ai/image-settings'],
      ['PUT', '/ai/image-settings', { provider: 'openai', model: 'gpt-image-1' }],
      ['GET', '/ai/translate-settings'],
      ['PUT', '/ai/translate-settings', { useTextSettings: true }],
      ['POST', '/ai/generate', { prompt: 'hi' }],
      ['POST', '/ai/generate', { prompt: 'hi', stream: true }],
      ['GET', '/ai/generated'],
      ['POST', '/ai/generate-website-structure', { brief: 'A bakery' }],
      ['POST', '/ai/generate-image', { prompt: 'A loaf' }],
      ['POST', `/cms-one/pages/${pageId}/translate`, { locale: 'de' }],
      ['POST', '/cms-one/websites/from-ai', { structure: { ...structure, rootPath: '/attack-other' } }],
    ];
    for (const [method, url, body] of calls) {
      const res = await t.call(method, url, noAi, body);
      expect(res.statusCode, `${method} ${url}: ${res.body}`).to.equal(403);
      expectClearError(res, `${method} ${url}`);
    }
    expect(ai.requests.length).to.equal(before);
    expect(await t.db('content_websites').where({ root_path: '/attack-other' }).first()).to.equal(undefined);
  });

  it('garbage or silence from the provider is a 502 or 504 on every generating route, never a 500', async () => {
    const routes: [string, string, unknown][] = [
      ['POST', '/ai/generate', { prompt: 'x' }],
      ['POST', '/ai/generate', { prompt: 'x', stream: true }],
      ['POST', '/ai/generate-website-structure', { brief: 'A bakery' }],
      ['POST', '/ai/generate-image', { prompt: 'A loaf' }],
      ['POST', `/cms-one/pages/${pageId}/translate`, { locale: 'de' }],
    ];
    // Every request of a case gets the same fault (a second try of a route too).
    const faults: [string, StandInReply, number[]][] = [
      ['malformed JSON', { raw: '{"choices": [' }, [502]],
      ['JSON of the wrong shape', { raw: '{"data": 42, "choices": null}' }, [502]],
      ['HTML instead of JSON', { raw: '<html>Bad gateway</html>' }, [502]],
      ['an empty body', { raw: '' }, [502]],
      ['a 500', { status: 500, error: 'boom' }, [502]],
      ['a hang past the timeout', { hang: true }, [504]],
    ];
    const pagesBefore = await t.db('content_pages').count<{ n: string }[]>('* as n');
    const assetsBefore = await t.db('assets').count<{ n: string }[]>('* as n');
    for (const [what, reply, statuses] of faults) {
      for (const [method, url, body] of routes) {
        ai.reply = () => reply;
        const res = await t.call(method, url, admin, body);
        const label = `${what}: ${method} ${url} ${JSON.stringify(body)}`;
        // A stream already under way ends with an `error` event in the error body's shape.
        const streamed = String(res.headers['content-type']).startsWith('text/event-stream');
        const error = streamed ? /event: error\ndata: (.*)\n/.exec(res.body)?.[1] : undefined;
        if (streamed) expect(error, `${label}: ${res.body}`).to.be.a('string');
        const status = error ? (JSON.parse(error) as { statusCode: number }).statusCode : res.statusCode;
        expect(statuses, `${label}: ${res.statusCode} ${res.body}`).to.include(status);
        expectClearError(error ? { statusCode: status, body: error, json: () => JSON.parse(error) } : res, label);
        ai.reply = undefined;
        while (ai.open() > 0) await new Promise((r) => setTimeout(r, 20));
      }
    }
    // Nothing half-created stays behind.
    expect(await t.db('content_pages').count<{ n: string }[]>('* as n')).to.deep.equal(pagesBefore);
    expect(await t.db('assets').count<{ n: string }[]>('* as n')).to.deep.equal(assetsBefore);
  });

  it('prompts beyond the limits are 400 naming the field, a body beyond the request limit 413', async () => {
    const long = await t.call('POST', '/ai/generate', admin, { prompt: 'x'.repeat(50_001) });
    expect(long.statusCode).to.equal(400);
    expect(long.body).to.contain('prompt');
    const system = await t.call('POST', '/ai/generate', admin, { prompt: 'x', system: 's'.repeat(20_001) });
    expect(system.statusCode).to.equal(400);
    const brief = await t.call('POST', '/ai/generate-website-structure', admin, { brief: 'b'.repeat(20_001) });
    expect(brief.statusCode).to.equal(400);
    const empty = await t.call('POST', '/ai/generate', admin, { prompt: '' });
    expect(empty.statusCode).to.equal(400);
    const tokens = await t.call('POST', '/ai/generate', admin, { prompt: 'x', maxOutputTokens: 10_000_000 });
    expect(tokens.statusCode).to.equal(400);
    const image = await t.call('POST', '/ai/generate-image', admin, { prompt: 'p'.repeat(50_001) });
    expect(image.statusCode).to.equal(400);
    const huge = await t.call('POST', '/ai/generate', admin, { prompt: 'y'.repeat(26 * 1024 * 1024) });
    expect(huge.statusCode).to.equal(413);
    for (const res of [long, system, brief, empty, tokens, image, huge]) expectClearError(res, res.body.slice(0, 80));
  });
});
