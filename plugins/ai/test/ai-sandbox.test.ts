import { expect } from 'chai';
import { startTestKernel, type TestKernel } from '../../../test/helpers/kernel.ts';
import { type OpenAiStandIn, startOpenAiStandIn } from '../../../test/helpers/openai-stand-in.ts';

describe('ai: the sandbox profile switches AI off', function () {
  this.timeout(30_000);
  let t: TestKernel;
  let ai: OpenAiStandIn;

  before(async () => {
    ai = await startOpenAiStandIn();
    t = await startTestKernel({ plugins: ['identity', 'content', 'ai'], env: { SANDBOX: '1' } });
    // Settings stored before the profile was switched on (SQL: the route is blocked).
    await t.db('ai_settings').insert({
      kind: 'text',
      settings: { provider: 'openai-compatible', baseUrl: ai.baseUrl, model: 'm', timeoutSeconds: 5 },
      api_key: null,
      updated_at: new Date(),
    });
  });
  after(async () => {
    await t?.close();
    await ai?.close();
  });

  it('answers every AI route 403 SANDBOX_BLOCKED and never reaches the provider', async () => {
    const admin = await t.admin();
    const id = '00000000-0000-4000-8000-000000000000';
    const calls: [string, string, unknown?][] = [
      ['GET', '/ai/settings'],
      ['PUT', '/ai/settings', { provider: 'openai', model: 'gpt-4o-mini' }],
      ['GET', '/ai/image-settings'],
      ['PUT', '/ai/translate-settings', { useTextSettings: true }],
      ['POST', '/ai/test-connection', { kind: 'text' }],
      ['POST', '/ai/generate', { prompt: 'hi' }],
      ['POST', '/ai/generate', { prompt: 'hi', stream: true }],
      ['GET', '/ai/generated'],
      ['POST', '/ai/generate-website-structure', { brief: 'A bakery' }],
      ['POST', '/ai/generate-image', { prompt: 'A loaf' }],
      ['POST', `/cms-one/pages/${id}/translate`, { locale: 'de' }],
      ['POST', '/cms-one/websites/from-ai', { structure: {} }],
    ];
    for (const [method, url, body] of calls) {
      const res = await t.call(method, url, admin, body);
      expect(res.statusCode, `${method} ${url}`).to.equal(403);
      expect(res.json().code, `${method} ${url}`).to.equal('SANDBOX_BLOCKED');
    }
    expect(ai.requests).to.have.length(0);
  });

  it('the provider client asks the outbound guard, which refuses every host', async () => {
    const { generation } = t.services<{
      generation: { generate(a: unknown, i: { prompt: string }): Promise<unknown> };
    }>('ai');
    const admin = await t.admin();
    const actor = {
      type: 'user',
      id: admin.id,
      email: admin.email,
      displayName: 'a',
      roles: [],
      permissions: new Set(),
    };
    const err = await generation.generate(actor, { prompt: 'hi' }).then(
      () => undefined,
      (e: { statusCode: number; code: string }) => e,
    );
    expect(err).to.include({ statusCode: 403, code: 'OUTBOUND_REFUSED' });
    expect(ai.requests).to.have.length(0);
  });
});

describe('ai: a process without the content plugin', function () {
  this.timeout(30_000);
  let t: TestKernel;
  before(async () => {
    t = await startTestKernel({ plugins: ['identity', 'ai'] });
  });
  after(() => t?.close());

  it('starts; a page translation needs pages:edit and answers 503 naming the missing content plugin', async () => {
    const admin = await t.admin();
    expect((await t.call('GET', '/ai/settings', admin)).statusCode).to.equal(200);
    const id = '00000000-0000-4000-8000-000000000000';
    const { aiOnly } = await t.users({ aiOnly: ['ai:use'] });
    const refused = await t.call('POST', `/cms-one/pages/${id}/translate`, aiOnly, { locale: 'de' });
    expect(refused.statusCode, refused.body).to.equal(403);
    expect(refused.json().message).to.match(/pages:edit/);
    const res = await t.call('POST', `/cms-one/pages/${id}/translate`, admin, { locale: 'de' });
    expect(res.statusCode, res.body).to.equal(503);
    expect(res.json().code).to.equal('CONTENT_UNAVAILABLE');
  });
});
