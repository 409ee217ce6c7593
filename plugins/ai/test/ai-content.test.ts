import { expect } from 'chai';
import { auditRows, startTestKernel, type TestKernel, type TestUser } from '../../../test/helpers/kernel.ts';
import { ONE_PIXEL_PNG, type OpenAiStandIn, startOpenAiStandIn } from '../../../test/helpers/openai-stand-in.ts';

const page = (heading: string, text: string, extra: unknown[] = []) => ({
  type: 'section',
  props: { id: 'hero' },
  children: [
    { type: 'h1', text: heading },
    { type: 'p', text },
    { type: 'a', props: { href: '/contact', title: 'Contact us' }, children: [{ type: 'span', text: 'Write to us' }] },
    { type: 'img', props: { src: '/dam-asset/hero.png', alt: 'A bakery' } },
    ...extra,
  ],
});

const structure = (over: Record<string, unknown> = {}) => ({
  name: 'Bakery Sonnenschein',
  rootPath: '/bakery',
  locales: ['en'],
  pages: [
    { path: '/', title: 'Home', locale: 'en', content: page('Fresh bread', 'Every morning.') },
    { path: '/about', title: 'About us', locale: 'en', content: page('About', 'Since 1920.') },
  ],
  menu: [{ title: 'Home', path: '/', children: [{ title: 'About us', path: '/about' }] }],
  ...over,
});

describe('ai: website structures, websites from a structure and page translations', function () {
  this.timeout(30_000);
  let t: TestKernel;
  let ai: OpenAiStandIn;
  let admin: TestUser;
  let editor: TestUser;

  before(async () => {
    ai = await startOpenAiStandIn();
    t = await startTestKernel({ plugins: ['identity', 'assets', 'content', 'ai'] });
    admin = await t.admin();
    editor = await t.createUser({ roles: ['editor'] });
  });
  after(async () => {
    await t?.close();
    await ai?.close();
  });

  it('answers 409 AI_NOT_CONFIGURED before any settings exist', async () => {
    const res = await t.call('POST', '/ai/generate-website-structure', editor, { brief: 'A bakery' });
    expect(res.statusCode).to.equal(409);
    expect(res.json().code).to.equal('AI_NOT_CONFIGURED');
    const put = await t.call('PUT', '/ai/settings', admin, {
      provider: 'openai-compatible',
      baseUrl: ai.baseUrl,
      model: 'llama3.2',
      timeoutSeconds: 5,
    });
    expect(put.statusCode, put.body).to.equal(200);
  });

  it('asks for JSON by the structure schema and answers a checked structure', async () => {
    ai.next({ content: JSON.stringify(structure()) });
    const res = await t.call('POST', '/ai/generate-website-structure', editor, { brief: 'A bakery', maxPages: 5 });
    expect(res.statusCode, res.body).to.equal(200);
    expect(res.json().structure).to.deep.equal(structure());
    expect(res.json().warnings).to.deep.equal([]);
    const asked = ai.requests.at(-1)!.body as { response_format: { type: string; json_schema: { schema: object } } };
    expect(asked.response_format.type).to.equal('json_schema');
    expect(asked.response_format.json_schema.schema).to.have.nested.property('properties.pages');
    const kept = (await t.call('GET', '/ai/generated?kind=structure', editor)).json();
    expect(kept.items[0]).to.include({ kind: 'structure', prompt: 'A bakery' });
  });

  it('asks again once with the problems, then 502 AI_INVALID_OUTPUT naming what was wrong', async () => {
    const scripted = structure({
      pages: [{ path: '/', title: 'Home', locale: 'en', content: { type: 'script', text: 'alert(1)' } }],
    });
    const fixed = structure();
    ai.next({ content: JSON.stringify(scripted) }, { content: JSON.stringify(fixed) });
    const second = await t.call('POST', '/ai/generate-website-structure', editor, { brief: 'Try twice' });
    expect(second.statusCode, second.body).to.equal(200);
    const retry = ai.requests.at(-1)!.body as { messages: { role: string; content: string }[] };
    expect(retry.messages.at(-1)!.content).to.contain('script');

    const onclick = structure({
      pages: [{ path: '/', title: 'Home', locale: 'en', content: { type: 'div', props: { onclick: 'x()' } } }],
    });
    const huge = structure({
      pages: [
        {
          path: '/',
          title: 'Home',
          locale: 'en',
          content: { type: 'div', children: Array.from({ length: 10_000 }, () => ({ type: 'p', text: 'x' })) },
        },
      ],
    });
    ai.next({ content: JSON.stringify(onclick) }, { content: JSON.stringify(huge) });
    const failed = await t.call('POST', '/ai/generate-website-structure', editor, { brief: 'Bad twice' });
    expect(failed.statusCode).to.equal(502);
    expect(failed.json().code).to.equal('AI_INVALID_OUTPUT');
    expect(failed.json().message).to.contain('nodes');

    ai.next({ content: 'not json at all' }, { content: '{"name": 1}' });
    const garbage = await t.call('POST', '/ai/generate-website-structure', editor, { brief: 'Garbage' });
    expect(garbage.statusCode).to.equal(502);
    expect(garbage.json().code).to.equal('AI_INVALID_OUTPUT');
  });

  it('falls back to tool calling when the provider refuses response_format', async () => {
    ai.next({ status: 400, error: "Invalid parameter: 'response_format'" }, { content: JSON.stringify(structure()) });
    const res = await t.call('POST', '/ai/generate-website-structure', editor, { brief: 'With a tool' });
    expect(res.statusCode, res.body).to.equal(200);
    const asked = ai.requests.at(-1)!.body as { tools: { function: { name: string } }[]; response_format?: unknown };
    expect(asked.tools[0].function.name).to.equal('website_structure');
    expect(asked.response_format).to.equal(undefined);
  });

  let websiteId: string;
  it('creates the website, its draft pages and its menu in one transaction, audited once', async () => {
    const res = await t.call('POST', '/cms-one/websites/from-ai', editor, { structure: structure() });
    expect(res.statusCode, res.body).to.equal(201);
    const { website, pageIds, menuEntryIds } = res.json();
    websiteId = website.id;
    expect(website).to.include({ name: 'Bakery Sonnenschein', rootPath: '/bakery' });
    expect(pageIds).to.have.length(2);
    expect(menuEntryIds).to.have.length(2);
    const pages = (await t.call('GET', `/cms-one/pages?websiteId=${website.id}`, editor)).json();
    expect(pages.map((p: { path: string }) => p.path).sort()).to.deep.equal(['/', '/about']);
    expect(pages.every((p: { published: boolean }) => !p.published)).to.equal(true);
    const menu = await t.db('content_website_paths').where({ website_id: website.id }).orderBy('created_at');
    const about = menu.find((m) => m.label === 'About us');
    expect(about.parent_id).to.equal(menu.find((m) => m.label === 'Home').id);
    expect(about.page_id).to.equal(pageIds[1]);
    expect(await auditRows(t, 'website.create_from_ai', website.id)).to.have.length(1);
    expect(await auditRows(t, 'website.create', website.id)).to.have.length(0);
    expect(await auditRows(t, 'website_path.create')).to.have.length(0);
  });

  it('refuses a reserved or taken root path (409 naming it) and unsafe content (400), leaving nothing behind', async () => {
    const count = async () => Number((await t.db('content_websites').count('* as n'))[0].n);
    const before = await count();
    const taken = await t.call('POST', '/cms-one/websites/from-ai', editor, { structure: structure() });
    expect(taken.statusCode).to.equal(409);
    expect(taken.json().message).to.contain('/bakery');
    const reserved = await t.call('POST', '/cms-one/websites/from-ai', editor, {
      structure: structure({ rootPath: '/ai' }),
    });
    expect(reserved.statusCode).to.equal(409);
    expect(reserved.json()).to.include({ code: 'ROOT_PATH_RESERVED', field: 'structure.rootPath' });
    const js = structure({
      rootPath: '/js',
      pages: [
        {
          path: '/',
          title: 'Home',
          locale: 'en',
          content: { type: 'a', props: { href: 'javascript:alert(1)' } },
        },
      ],
    });
    const unsafe = await t.call('POST', '/cms-one/websites/from-ai', editor, { structure: js });
    expect(unsafe.statusCode).to.equal(400);
    expect(unsafe.json().message).to.contain('pages.0.content');
    // A page the content plugin refuses late (a path it does not take): the website goes too.
    const badPath = structure({
      rootPath: '/late',
      pages: [{ path: '/a b', title: 'Bad', locale: 'en', content: page('x', 'y') }],
      menu: [],
    });
    const late = await t.call('POST', '/cms-one/websites/from-ai', editor, { structure: badPath });
    expect(late.statusCode).to.equal(400);
    expect(late.json().field).to.match(/^structure\.pages\.0/);
    expect(await count()).to.equal(before);
    expect(await t.db('content_websites').where({ root_path: '/late' })).to.have.length(0);
    const viewer = await t.createUser({ permissions: ['objects:read', 'ai:use'] });
    const denied = await t.call('POST', '/cms-one/websites/from-ai', viewer, {
      structure: structure({ rootPath: '/x' }),
    });
    expect(denied.statusCode).to.equal(403);
  });

  it('translates only the texts of a page into a draft of the same translation group', async () => {
    await t.call('PATCH', `/cms-one/websites/${websiteId}`, admin, { locales: ['en', 'de'] });
    const [source] = (await t.call('GET', `/cms-one/pages?websiteId=${websiteId}`, editor))
      .json()
      .filter((p: { path: string }) => p.path === '/about');
    const full = (await t.call('GET', `/cms-one/pages/${source.id}`, editor)).json();
    const texts = ['Über uns', 'Über', 'Seit 1920.', 'Kontakt', 'Schreiben Sie uns', 'Eine Bäckerei'];
    ai.next({ content: JSON.stringify({ texts }) });
    const res = await t.call('POST', `/cms-one/pages/${source.id}/translate`, editor, { locale: 'de' });
    expect(res.statusCode, res.body).to.equal(201);
    const created = res.json();
    expect(created).to.include({ locale: 'de', path: '/about', title: 'Über uns', published: false });
    expect(created.translationGroupId).to.equal(full.translationGroupId);
    const sent = JSON.parse((ai.requests.at(-1)!.body as { messages: { content: string }[] }).messages[1].content);
    expect(sent.texts).to.deep.equal(['About us', 'About', 'Since 1920.', 'Contact us', 'Write to us', 'A bakery']);
    // Structure, ids, links and images as they were; only the texts changed.
    const tree = created.content;
    expect(tree.props).to.deep.equal({ id: 'hero' });
    expect(tree.children[2].props).to.deep.equal({ href: '/contact', title: 'Kontakt' });
    expect(tree.children[3].props).to.deep.equal({ src: '/dam-asset/hero.png', alt: 'Eine Bäckerei' });
    expect(tree.children[1].text).to.equal('Seit 1920.');
    expect(tree.children[2].children[0].text).to.equal('Schreiben Sie uns');
    const group = (await t.call('GET', `/cms-one/pages/${source.id}/translations`, editor)).json();
    expect(group.map((p: { locale: string }) => p.locale).sort()).to.deep.equal(['de', 'en']);

    const again = await t.call('POST', `/cms-one/pages/${source.id}/translate`, editor, { locale: 'de' });
    expect(again.statusCode).to.equal(409);
    const missing = await t.call('POST', `/cms-one/pages/${source.id}/translate`, editor, { locale: 'fr' });
    expect(missing.statusCode).to.equal(400);
    expect(missing.json().field).to.equal('locale');
    const noAi = await t.createUser({ permissions: ['pages:edit'] });
    expect((await t.call('POST', `/cms-one/pages/${source.id}/translate`, noAi, { locale: 'fr' })).statusCode).to.equal(
      403,
    );
    expect(
      (await t.call('POST', '/cms-one/pages/00000000-0000-4000-8000-000000000000/translate', editor, { locale: 'de' }))
        .statusCode,
    ).to.equal(404);
  });

  it('sends a long page in chunks and refuses an answer with the wrong number of texts', async () => {
    await t.call('PATCH', `/cms-one/websites/${websiteId}`, admin, { locales: ['en', 'de', 'fr', 'it'] });
    const long = Array.from({ length: 30 }, (_, i) => ({ type: 'p', text: `${'Paragraph '.repeat(40)}${i}` }));
    const created = await t.call('POST', '/cms-one/pages', editor, {
      websiteId,
      locale: 'en',
      path: '/long',
      title: 'Long',
      content: { type: 'div', children: long },
    });
    expect(created.statusCode, created.body).to.equal(201);
    const before = ai.requests.length;
    const res = await t.call('POST', `/cms-one/pages/${created.json().id}/translate`, editor, { locale: 'fr' });
    // The stand-in echoes, which is no JSON of texts: asked twice per chunk at most, then 502.
    expect(res.statusCode).to.equal(502);
    expect(res.json().code).to.equal('AI_INVALID_OUTPUT');
    expect(ai.requests.length - before).to.equal(2);
    expect(await t.db('content_pages').where({ locale: 'fr' })).to.have.length(0);

    // Each chunk answered with as many texts as it sent.
    const sent = (body: Record<string, unknown>) =>
      JSON.parse((body.messages as { content: string }[])[1].content).texts as string[];
    ai.reply = (req) => ({ content: JSON.stringify({ texts: sent(req.body).map((x) => `[it] ${x}`) }) });
    const from = ai.requests.length;
    const ok = await t.call('POST', `/cms-one/pages/${created.json().id}/translate`, editor, { locale: 'it' });
    ai.reply = undefined;
    expect(ok.statusCode, ok.body).to.equal(201);
    const chunks = ai.requests.slice(from).map((r) => sent(r.body));
    expect(chunks.length).to.be.greaterThan(1);
    for (const c of chunks) expect(c.join('').length).to.be.at.most(6_000);
    expect(chunks.flat()).to.have.length(31);
    expect(ok.json().title).to.equal('[it] Long');
    expect(ok.json().content.children[29].text).to.equal(`[it] ${'Paragraph '.repeat(40)}29`);
  });

  it('stores a generated image (b64_json) in the library as an upload by the user', async () => {
    const none = await t.call('POST', '/ai/generate-image', editor, { prompt: 'A loaf of bread' });
    expect(none.statusCode).to.equal(409);
    expect(none.json().code).to.equal('AI_NOT_CONFIGURED');
    await t.call('PUT', '/ai/image-settings', admin, {
      provider: 'openai-compatible',
      baseUrl: ai.baseUrl,
      model: 'dall-e-3',
      timeoutSeconds: 5,
    });
    const changes = t.recordChanges('asset');
    const res = await t.call('POST', '/ai/generate-image', editor, {
      prompt: 'A loaf of bread',
      size: '512x512',
      folder: '/generated',
    });
    expect(res.statusCode, res.body).to.equal(201);
    const { asset } = res.json();
    expect(asset).to.include({ folder: 'generated', mimeType: 'image/png', size: ONE_PIXEL_PNG.length });
    expect(asset.filename).to.match(/^ai-\d{8}T\d{6}-[0-9a-f]{8}\.png$/);
    expect(ai.requests.at(-1)!).to.deep.include({ path: '/images/generations' });
    expect(ai.requests.at(-1)!.body).to.deep.include({
      model: 'dall-e-3',
      prompt: 'A loaf of bread',
      size: '512x512',
      response_format: 'b64_json',
    });
    const [row] = await t.db('assets').where({ id: asset.id });
    expect(row.created_by).to.equal(editor.id);
    expect(changes.map((c) => c.kind)).to.include('created');
    const kept = (await t.call('GET', '/ai/generated?kind=image', editor)).json();
    expect(kept.items[0]).to.include({ kind: 'image', result: asset.id });

    // Not an image: refused, nothing stored.
    const count = Number((await t.db('assets').count('* as n'))[0].n);
    ai.next({ content: Buffer.from('<script>alert(1)</script>').toString('base64') });
    const html = await t.call('POST', '/ai/generate-image', editor, { prompt: 'x', folder: '/generated' });
    expect(html.statusCode).to.equal(502);
    expect(html.json().code).to.equal('AI_INVALID_OUTPUT');
    expect(Number((await t.db('assets').count('* as n'))[0].n)).to.equal(count);
    // assets:upload is needed too.
    const noUpload = await t.createUser({ permissions: ['ai:use'] });
    expect((await t.call('POST', '/ai/generate-image', noUpload, { prompt: 'x' })).statusCode).to.equal(403);
  });
});
