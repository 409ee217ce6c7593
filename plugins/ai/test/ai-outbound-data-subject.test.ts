import { createRequire, syncBuiltinESMExports } from 'node:module';
import { expect } from 'chai';
import { startTestKernel, type TestKernel, type TestUser } from '../../../test/helpers/kernel.ts';
import { type OpenAiStandIn, startOpenAiStandIn } from '../../../test/helpers/openai-stand-in.ts';

const require = createRequire(import.meta.url);
const dnsPromises = require('node:dns/promises') as typeof import('node:dns/promises');

/**
 * Points names under `.ai-test` at chosen addresses for the gateway's resolver (node:dns/promises):
 * `answers(host, n)` is the n-th answer for `host` (1 the first). Other names resolve as usual. The
 * system's callback resolver (what a plain undici connection would use) knows none of these names.
 */
function fakeDns(answers: (host: string, n: number) => string[]) {
  const original = dnsPromises.lookup;
  const seen = new Map<string, number>();
  (dnsPromises as { lookup: unknown }).lookup = async (host: string, opts: unknown) => {
    if (!host.endsWith('.ai-test')) return (original as (h: string, o: unknown) => Promise<unknown>)(host, opts);
    const n = (seen.get(host) ?? 0) + 1;
    seen.set(host, n);
    return answers(host, n).map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  syncBuiltinESMExports();
  return {
    lookups: (host: string) => seen.get(host) ?? 0,
    restore() {
      (dnsPromises as { lookup: unknown }).lookup = original;
      syncBuiltinESMExports();
    },
  };
}

describe('ai: provider connections pinned to the checked address; prompts in data-subject requests', function () {
  this.timeout(30_000);
  let t: TestKernel;
  let ai: OpenAiStandIn;
  let admin: TestUser;
  let dns: ReturnType<typeof fakeDns>;

  const useBaseUrl = async (host: string) => {
    const put = await t.call('PUT', '/ai/settings', admin, {
      provider: 'openai-compatible',
      baseUrl: `http://${host}:${new URL(ai.baseUrl).port}/v1`,
      model: 'llama3.2',
      timeoutSeconds: 2,
    });
    expect(put.statusCode, put.body).to.equal(200);
  };

  before(async () => {
    ai = await startOpenAiStandIn();
    dns = fakeDns((host, n) => {
      if (host === 'private.ai-test') return ['10.20.30.40'];
      // Public-looking first (the check), then a private address (a rebinding attempt).
      if (host === 'rebind.ai-test') return n === 1 ? ['127.0.0.1'] : ['10.20.30.40'];
      return ['127.0.0.1'];
    });
    t = await startTestKernel({
      plugins: ['identity', 'content', 'gateway', 'ai', 'data-subject'],
      // Loopback is allowed outside production; private ranges are closed.
      env: { OUTBOUND_ALLOW_PRIVATE: 'false', AI_RETRIES: '0' },
    });
    admin = await t.admin();
  });
  after(async () => {
    dns?.restore();
    await t?.close();
    await ai?.close();
  });

  it('refuses a provider base URL whose name resolves to a private address (403 OUTBOUND_REFUSED)', async () => {
    await useBaseUrl('private.ai-test');
    const before = ai.requests.length;
    for (const stream of [false, true]) {
      const res = await t.call('POST', '/ai/generate', admin, { prompt: 'hello', stream });
      expect(res.statusCode, res.body).to.equal(403);
      expect(res.json().code).to.equal('OUTBOUND_REFUSED');
      expect(res.json().message).to.contain('OUTBOUND_ALLOW_PRIVATE=false');
      expect(res.body).not.to.contain('hello');
    }
    expect(ai.requests.length).to.equal(before);
    // A literal private address is refused the same way.
    await useBaseUrl('10.20.30.40');
    expect((await t.call('POST', '/ai/generate', admin, { prompt: 'x' })).json().code).to.equal('OUTBOUND_REFUSED');
  });

  it('connects to the very address it checked: one lookup, no second resolution by the system', async () => {
    await useBaseUrl('rebind.ai-test');
    const res = await t.call('POST', '/ai/generate', admin, { prompt: 'pinned call' });
    // Only the gateway's resolver knows the name: a connection that resolved again would fail
    // (ENOTFOUND, 502), and a second answer of this name is a private address (403).
    expect(res.statusCode, res.body).to.equal(200);
    expect(res.json().text).to.contain('pinned call');
    expect(dns.lookups('rebind.ai-test')).to.equal(1);
    expect(ai.requests.at(-1)!.headers.host).to.equal(`rebind.ai-test:${new URL(ai.baseUrl).port}`);
  });

  it("a data-subject search finds a person's prompts (written by them or naming them); an erase deletes them", async () => {
    await useBaseUrl('127.0.0.1');
    const anna = await t.createUser({ email: 'anna.ai@example.test', permissions: ['ai:use'] });
    for (const prompt of ['Anna writes a first draft', 'Anna shortens the intro']) {
      expect((await t.call('POST', '/ai/generate', anna, { prompt })).statusCode).to.equal(200);
    }
    await t.call('POST', '/ai/generate', admin, { prompt: 'A letter to anna.ai@example.test about her order' });
    await t.call('POST', '/ai/generate', admin, { prompt: 'Nothing about her' });

    const identifier = 'anna.ai@example.test';
    const search = await t.call('POST', '/data-subject/search', admin, { identifier });
    expect(search.statusCode, search.body).to.equal(200);
    const found = search.json().results.aiGenerations as { label: string; matched: string[] }[];
    expect(found).to.have.length(3);
    expect(found.filter((i) => i.matched.includes('createdBy'))).to.have.length(2);
    expect(found.filter((i) => i.matched.includes('prompt'))).to.have.length(1);
    expect(search.json().counts.aiGenerations).to.equal(3);

    const rows = async () => Number((await t.db('ai_generated').count<{ n: string }[]>('* as n'))[0].n);
    const total = await rows();
    const dry = await t.call('POST', '/data-subject/erase', admin, { identifier });
    expect(dry.statusCode, dry.body).to.equal(200);
    expect(await rows()).to.equal(total);
    const erase = await t.call('POST', '/data-subject/erase', admin, {
      identifier,
      dryRun: false,
      confirm: identifier,
    });
    expect(erase.statusCode, erase.body).to.equal(200);
    const left = await t.db('ai_generated').pluck('prompt');
    expect(left).to.include('Nothing about her');
    expect(left).to.have.length(total - 3);
    expect(left.join('\n')).not.to.match(/Anna|anna\.ai/);
    const again = await t.call('POST', '/data-subject/search', admin, { identifier });
    expect(again.json().counts.aiGenerations ?? 0).to.equal(0);
  });
});
