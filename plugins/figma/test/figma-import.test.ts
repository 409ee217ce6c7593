import { expect } from 'chai';
import { INTERNAL_KEYS, leaksIn } from '../../../test/helpers/answer-leaks.ts';
import { FIGMA_KEYS, type FigmaStandIn, startFigmaStandIn } from '../../../test/helpers/figma-server.ts';
import { startTestKernel, type TestKernel, type TestUser } from '../../../test/helpers/kernel.ts';

interface Node {
  type: string;
  props?: Record<string, unknown>;
  children?: Node[];
  text?: string;
}
const all = (root: Node): Node[] => {
  const out: Node[] = [];
  const stack = [root];
  while (stack.length) {
    const n = stack.pop()!;
    out.push(n);
    for (const c of [...(n.children ?? [])].reverse()) stack.push(c);
  }
  return out;
};
const textOf = (n: Node): string =>
  all(n)
    .map((x) => x.text ?? '')
    .join('');
const link = (key: string, node?: string) =>
  `https://www.figma.com/design/${key}/Landing-page${node ? `?node-id=${node}` : ''}`;

describe('figma: import a design as a page', function () {
  this.timeout(60_000);
  let figma: FigmaStandIn;
  let t: TestKernel;
  let admin: TestUser;
  let editor: TestUser;
  let pagesOnly: TestUser;
  let websiteId: string;

  before(async () => {
    figma = await startFigmaStandIn();
    t = await startTestKernel({ env: { FIGMA_API_URL: figma.url, FIGMA_MAX_FILE_BYTES: String(2 * 1024 * 1024) } });
    admin = await t.admin();
    ({ editor, pagesOnly } = await t.users({
      editor: ['objects:read', 'pages:edit', 'assets:upload', 'assets:read'],
      pagesOnly: ['objects:read', 'pages:edit'],
    }));
    const site = await t.call('POST', '/cms-one/websites', admin, {
      name: 'Figma site',
      rootPath: '/figma-site',
      locales: ['en'],
    });
    expect(site.statusCode, site.body).to.equal(201);
    websiteId = site.json().id;
  });
  after(async () => {
    await t?.close();
    await figma?.close();
  });

  const importAs = (user: TestUser, body: Record<string, unknown>) =>
    t.call('POST', '/figma/import', user, { websiteId, locale: 'en', ...body });

  it('keeps the token sealed, shows it masked, audits a change as `changed`; blank keeps, null removes', async () => {
    expect((await t.call('GET', '/figma/settings', admin)).json()).to.deep.equal({
      tokenSet: false,
      tokenHint: null,
      apiUrl: figma.url,
    });
    expect((await t.call('PUT', '/figma/settings', editor, { token: 'x' })).statusCode).to.equal(403);
    expect((await t.call('GET', '/figma/settings', editor)).statusCode).to.equal(403);
    const bad = await t.call('PUT', '/figma/settings', admin, { token: 'has space inside' });
    expect(bad.statusCode).to.equal(400);
    expect(bad.json().field).to.equal('token');

    const put = await t.call('PUT', '/figma/settings', admin, { token: figma.token });
    expect(put.statusCode, put.body).to.equal(200);
    expect(put.json()).to.deep.equal({ tokenSet: true, tokenHint: figma.token.slice(-4), apiUrl: figma.url });
    const forbidden = { keys: [...INTERNAL_KEYS, 'token_stored', 'token'], values: [figma.token] };
    expect(leaksIn(put.json(), forbidden)).to.deep.equal([]);
    expect(leaksIn((await t.call('GET', '/figma/settings', admin)).json(), forbidden)).to.deep.equal([]);
    const row = await t.db('figma_settings').first();
    expect(row.token_stored).to.match(/^v1:INTEGRATION_SECRETS_ENCRYPTION_KEY:/);
    expect(row.token_stored).not.to.contain(figma.token);

    const audits = () => t.db('audit_log').where({ action: 'setting.figma_update' }).orderBy('id');
    const [entry] = await audits();
    expect(entry.after).to.deep.equal({ token: 'changed' });
    expect(JSON.stringify(entry)).not.to.contain(figma.token);

    // Blank keeps it, the same token again is no change: neither writes an audit row.
    expect((await t.call('PUT', '/figma/settings', admin, { token: '  ' })).json().tokenSet).to.equal(true);
    expect((await t.call('PUT', '/figma/settings', admin, { token: figma.token })).json().tokenSet).to.equal(true);
    expect(await audits()).to.have.length(1);

    expect((await t.call('PUT', '/figma/settings', admin, { token: null })).json()).to.deep.equal({
      tokenSet: false,
      tokenHint: null,
      apiUrl: figma.url,
    });
    expect(await audits()).to.have.length(2);
    const missing = await importAs(editor, { url: link(FIGMA_KEYS.landing, '1-2') });
    expect(missing.statusCode).to.equal(409);
    expect(missing.json().code).to.equal('FIGMA_TOKEN_MISSING');

    await t.call('PUT', '/figma/settings', admin, { token: figma.token });
  });

  it('maps a landing page frame to headings, paragraphs with marks, a button, images and layout containers', async () => {
    const res = await importAs(editor, { url: link(FIGMA_KEYS.landing, '1-2') });
    expect(res.statusCode, res.body).to.equal(200);
    const body = res.json();
    expect(leaksIn(body, { values: [figma.token] })).to.deep.equal([]);
    expect(body.source).to.deep.equal({ fileKey: FIGMA_KEYS.landing, nodeId: '1:2', name: 'Landing page' });
    expect(figma.requests).to.include(`/v1/files/${FIGMA_KEYS.landing}/nodes?ids=1%3A2`);
    expect(body).not.to.have.property('page');
    expect(body.frames).to.deep.equal([]);

    const nodes = all(body.content);
    const section = body.content.children[0];
    expect(section.type).to.equal('section');
    expect(section.props.style).to.contain('flex-direction:column').and.contain('gap:64px').and.contain('padding:80px');
    expect(section.props.style).to.contain('background-color:#ffffff');

    const hero = section.children[0];
    expect(hero).to.deep.include({ type: 'div' });
    expect(hero.props).to.deep.include({ className: 'columns' });
    expect(hero.props.style).to.contain('flex-direction:row').and.contain('align-items:center');

    expect(nodes.find((n) => n.type === 'h1')?.text).to.equal('Build pages from your designs');
    expect(nodes.find((n) => n.type === 'h2')?.text).to.equal('Everything you need');
    expect(nodes.filter((n) => n.type === 'h3').map((n) => n.text)).to.deep.equal(['Real blocks', 'Your images']);

    const lead = nodes.find((n) => n.type === 'p' && textOf(n).startsWith('Import a'))!;
    expect(textOf(lead)).to.equal('Import a Figma frame and edit it right away.');
    expect(lead.children!.find((c) => c.type === 'strong')?.children).to.deep.equal([{ type: 'text', text: 'Figma' }]);
    expect(lead.children!.find((c) => c.type === 'em')?.children).to.deep.equal([{ type: 'text', text: 'right away' }]);

    const button = nodes.find((n) => n.props?.className === 'button')!;
    expect(button).to.deep.equal({
      type: 'a',
      props: { href: 'https://example.com/start', className: 'button' },
      text: 'Get started',
    });
    expect(nodes.find((n) => n.type === 'a' && n.props?.href === 'mailto:hello@example.com')?.text).to.equal(
      'Questions? Write to us.',
    );
    expect(nodes.filter((n) => n.type === 'hr')).to.have.length(1);

    // The image fill and the node marked for export, both in the asset library.
    const images = nodes.filter((n) => n.type === 'img');
    expect(images.map((i) => i.props!.alt)).to.deep.equal(['Hero image', 'Partner logo']);
    expect(body.assets.map((a: { figmaNodeId: string }) => a.figmaNodeId)).to.deep.equal(['1:8', '1:20']);
    for (const [i, asset] of body.assets.entries()) {
      expect(images[i].props!.src).to.equal(asset.url);
      const file = await t.call('GET', `/api/v1/dam/assets/${asset.id}`, admin);
      expect(file.statusCode, file.body).to.equal(200);
      expect(file.json().mimeType).to.equal('image/png');
    }

    expect(body.fonts).to.deep.equal([
      {
        family: 'Inter',
        weights: [400, 600, 700],
        styles: ['Body/Caption', 'Body/Regular', 'Heading/H1', 'Heading/H2', 'Heading/H3'],
      },
    ]);
    const hexes = body.colors.map((c: { hex: string }) => c.hex);
    expect(hexes).to.include.members(['#ffffff', '#2663eb', '#111827']);
    const codes = body.warnings.map((w: { code: string; nodeName: string }) => `${w.code} ${w.nodeName}`);
    expect(codes).to.include('SHAPE_SKIPPED Blob');
  });

  it('creates a draft page that reads back as imported; importing again reuses the stored images', async () => {
    const first = await importAs(editor, { fileKey: FIGMA_KEYS.landing, nodeId: '1:2' });
    const res = await importAs(editor, {
      url: link(FIGMA_KEYS.landing, '1-2'),
      create: true,
      path: '/landing',
      title: 'Landing from Figma',
    });
    expect(res.statusCode, res.body).to.equal(201);
    const { page, content, assets } = res.json();
    expect(page).to.deep.include({
      websiteId,
      locale: 'en',
      path: '/landing',
      title: 'Landing from Figma',
      published: false,
    });
    expect(assets.map((a: { id: string }) => a.id)).to.deep.equal(first.json().assets.map((a: { id: string }) => a.id));
    const stored = await t.call('GET', `/cms-one/pages/${page.id}`, editor);
    expect(stored.statusCode).to.equal(200);
    expect(stored.json().content).to.deep.equal(content);
    expect(stored.json().published).to.equal(false);

    // The same path again: the page save's 409, and nothing new in the library.
    const count = Number((await t.db('assets').count({ n: '*' }))[0].n);
    const again = await importAs(editor, { url: link(FIGMA_KEYS.landing, '1-2'), create: true, path: '/landing' });
    expect(again.statusCode).to.equal(409);
    expect(Number((await t.db('assets').count({ n: '*' }))[0].n)).to.equal(count);
  });

  it('imports the first page of a whole file', async () => {
    const res = await importAs(editor, { fileKey: FIGMA_KEYS.landing });
    expect(res.statusCode, res.body).to.equal(200);
    expect(res.json().source.name).to.equal('Landing page');
    expect(all(res.json().content).some((n) => n.type === 'h1')).to.equal(true);
    // The page's frames, to pick one of (the dialog's frame list).
    expect(res.json().frames).to.deep.include({ id: '1:2', name: 'Landing page' });
  });

  it('needs pages:edit, and assets:upload for a design with images', async () => {
    const refused = await importAs(pagesOnly, { url: link(FIGMA_KEYS.landing, '1-2') });
    expect(refused.statusCode).to.equal(403);
    expect(refused.json().code).to.equal('ASSETS_UPLOAD_REQUIRED');
    const nobody = await t.createUser({ permissions: ['objects:read'] });
    expect((await importAs(nobody, { url: link(FIGMA_KEYS.landing, '1-2') })).statusCode).to.equal(403);
    expect((await t.call('POST', '/figma/import', null, {})).statusCode).to.equal(401);
    // A text-only frame needs no asset key.
    const text = await importAs(pagesOnly, { fileKey: FIGMA_KEYS.landing, nodeId: '1:4' });
    expect(text.statusCode, text.body).to.equal(200);
    expect(text.json().assets).to.deep.equal([]);
  });

  it('refuses bad links and targets with a 400 naming the field', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ url: 'https://evil.example/design/abcdefghijk/x' }, 'url'],
      [{ url: 'not a link' }, 'url'],
      [{ url: link(FIGMA_KEYS.landing, 'x-y') }, 'url'],
      [{ fileKey: 'bad key!' }, 'fileKey'],
      [{ fileKey: FIGMA_KEYS.landing, nodeId: '<script>' }, 'nodeId'],
      [{}, 'fileKey'],
      [{ fileKey: FIGMA_KEYS.landing, locale: 'fr' }, 'locale'],
    ];
    for (const [body, field] of cases) {
      const res = await importAs(editor, body);
      expect(res.statusCode, `${JSON.stringify(body)} ${res.body}`).to.equal(400);
      expect(res.json().field).to.equal(field);
    }
  });

  it("maps Figma's refusals to clear answers", async () => {
    const unknown = await importAs(editor, { fileKey: 'Unknown000000000000001' });
    expect(unknown.statusCode).to.equal(404);
    expect(unknown.json().code).to.equal('FIGMA_NOT_FOUND');
    const noNode = await importAs(editor, { fileKey: FIGMA_KEYS.landing, nodeId: '77:77' });
    expect(noNode.statusCode).to.equal(404);
    expect(noNode.json().code).to.equal('FIGMA_NODE_NOT_FOUND');
    const limited = await importAs(editor, { fileKey: FIGMA_KEYS.limited });
    expect(limited.statusCode).to.equal(429);
    expect(limited.headers['retry-after']).to.equal('30');
    expect(limited.json().code).to.equal('FIGMA_RATE_LIMITED');
    const broken = await importAs(editor, { fileKey: FIGMA_KEYS.broken });
    expect(broken.statusCode).to.equal(502);
    expect(broken.json().message).to.contain('500');

    await t.call('PUT', '/figma/settings', admin, { token: 'figd_wrong' });
    const denied = await importAs(editor, { fileKey: FIGMA_KEYS.landing });
    expect(denied.statusCode).to.equal(403);
    expect(denied.json().code).to.equal('FIGMA_ACCESS_DENIED');
    expect(denied.json().message).to.contain('Invalid token');
    await t.call('PUT', '/figma/settings', admin, { token: figma.token });
  });

  const assetCount = async () => Number((await t.db('assets').count({ n: '*' }))[0].n);
  const pageCount = async () => Number((await t.db('content_pages').count({ n: '*' }))[0].n);

  it('refuses a node tree too deep or too wide for a page with a 422, and stores nothing', async () => {
    const [assets, pages] = [await assetCount(), await pageCount()];
    const deep = await importAs(editor, { fileKey: FIGMA_KEYS.deep, create: true, path: '/deep' });
    expect(deep.statusCode, deep.body.slice(0, 500)).to.equal(422);
    expect(deep.json().code).to.equal('FIGMA_DESIGN_TOO_LARGE');
    expect(deep.json().message).to.contain('deeper than 40 levels').and.contain('import a smaller frame');
    const wide = await importAs(editor, { fileKey: FIGMA_KEYS.wide, create: true, path: '/wide' });
    expect(wide.statusCode, wide.body.slice(0, 500)).to.equal(422);
    expect(wide.json().code).to.equal('FIGMA_DESIGN_TOO_LARGE');
    expect(wide.json().message).to.contain('more than 10000 nodes');
    expect([await assetCount(), await pageCount()]).to.deep.equal([assets, pages]);
  });

  it('refuses a 200 MB answer before parsing it, and drops the connection', async () => {
    const huge = await importAs(editor, { fileKey: FIGMA_KEYS.huge });
    expect(huge.statusCode).to.equal(422);
    expect(huge.json().code).to.equal('FIGMA_FILE_TOO_LARGE');
    expect(figma.hugeBytesSent()).to.be.below(100 * 1024 * 1024);
  });

  it('follows no redirect of the API: a 502, and the token never reaches the other origin', async () => {
    const res = await importAs(editor, { fileKey: FIGMA_KEYS.redirect, create: true, path: '/redirected' });
    expect(res.statusCode, res.body).to.equal(502);
    expect(res.json().code).to.equal('FIGMA_UPSTREAM_FAILED');
    expect(res.json().message).to.contain('302').and.contain('redirect to localhost');
    expect(figma.sinkTokens).to.deep.equal([]);
    expect(JSON.stringify(res.json())).not.to.contain(figma.token);
  });

  it('refuses image URLs at a private address, redirecting to one or not http(s): a 502, no page, no asset', async () => {
    const [assets, pages] = [await assetCount(), await pageCount()];
    const cases: Array<[string, string]> = [
      [FIGMA_KEYS.privateImage, '169.254.169.254'],
      [FIGMA_KEYS.redirectImage, 'redirect to 169.254.169.254'],
      [FIGMA_KEYS.badImageUrl, 'file: is not an image URL scheme'],
    ];
    for (const [key, reason] of cases) {
      const res = await importAs(editor, { url: link(key, '1-2'), create: true, path: `/hostile-${key}` });
      expect(res.statusCode, `${key} ${res.body}`).to.equal(502);
      expect(res.json().code).to.equal('FIGMA_IMAGE_REFUSED');
      expect(res.json().message).to.contain('Hero image').and.contain(reason).and.contain('nothing was imported');
    }
    // Nothing stored: no asset (the rendered logo neither) and no draft.
    expect([await assetCount(), await pageCount()]).to.deep.equal([assets, pages]);
  });
});

describe('figma: the sandbox profile', function () {
  this.timeout(60_000);
  let t: TestKernel;
  before(async () => {
    t = await startTestKernel({ env: { SANDBOX: '1' } });
  });
  after(() => t?.close());

  it('blocks the import and the token change, and still shows the settings', async () => {
    const admin = await t.admin();
    const put = await t.call('PUT', '/figma/settings', admin, { token: 'figd_abc' });
    expect(put.statusCode).to.equal(403);
    expect(put.json().code).to.equal('SANDBOX_BLOCKED');
    const imp = await t.call('POST', '/figma/import', admin, { fileKey: FIGMA_KEYS.landing });
    expect(imp.statusCode).to.equal(403);
    expect(imp.json().code).to.equal('SANDBOX_BLOCKED');
    expect((await t.call('GET', '/figma/settings', admin)).statusCode).to.equal(200);
    expect(await t.db('figma_settings').first()).to.equal(undefined);
  });
});

describe('figma: a process without the gateway plugin', function () {
  this.timeout(60_000);
  let t: TestKernel;
  before(async () => {
    t = await startTestKernel({ plugins: ['data', 'assets', 'content', 'figma'] });
  });
  after(() => t?.close());

  it('loads, keeps its settings, and answers an import 503 naming the missing outbound policy', async () => {
    const admin = await t.admin();
    const put = await t.call('PUT', '/figma/settings', admin, { token: 'figd_abcd' });
    expect(put.statusCode, put.body).to.equal(200);
    const site = await t.call('POST', '/cms-one/websites', admin, { name: 'S', rootPath: '/s', locales: ['en'] });
    expect(site.statusCode, site.body).to.equal(201);
    const imp = await t.call('POST', '/figma/import', admin, {
      fileKey: FIGMA_KEYS.landing,
      websiteId: site.json().id,
      locale: 'en',
    });
    expect(imp.statusCode, imp.body).to.equal(503);
    expect(imp.json().code).to.equal('FIGMA_OUTBOUND_UNAVAILABLE');
    expect(await t.db('content_pages').count({ n: '*' }).first()).to.deep.equal({ n: 0 });
  });
});
