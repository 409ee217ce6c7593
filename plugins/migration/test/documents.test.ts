import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { png } from '../../../test/helpers/images.ts';
import { auditRows, startTestKernel, type TestKernel, type TestUser } from '../../../test/helpers/kernel.ts';
import { PIMCORE_FIXTURES, type RunningMariaDb, startMariaDb } from '../../../test/helpers/mariadb.ts';

const KEY = { INTEGRATION_SECRETS_ENCRYPTION_KEY: 'c9'.repeat(32) };

interface Node {
  type: string;
  props?: Record<string, unknown>;
  children?: Node[];
  text?: string;
}
const all = (n: Node): Node[] => [n, ...(n.children ?? []).flatMap(all)];
const byEditable = (tree: Node, name: string) => all(tree).find((n) => n.props?.['data-editable'] === name);

describe('migration: import-documents and promote-documents from a Pimcore 11 database', function () {
  this.timeout(120_000);
  let t: TestKernel;
  let db: RunningMariaDb;
  let admin: TestUser;
  let assetsPath: string;
  let sourceId: string;
  let site: { id: string; rootPath: string };
  let staging: { id: string; rootPath: string };

  const website = async (name: string) => {
    const res = await t.call('POST', '/cms-one/websites', admin, {
      name,
      rootPath: `/${name}`,
      locales: ['en', 'de'],
    });
    expect(res.statusCode, res.body).to.equal(201);
    return res.json();
  };
  const counts = async () => ({
    pages: Number((await t.db('content_pages').count({ n: '*' }).first())?.n),
    staged: Number((await t.db('content_staged_pages').count({ n: '*' }).first())?.n),
    snippets: Number((await t.db('content_snippets').count({ n: '*' }).first())?.n),
    map: Number((await t.db('migration_id_map').count({ n: '*' }).first())?.n),
  });

  before(async () => {
    [db, t] = await Promise.all([
      startMariaDb(),
      startTestKernel({ plugins: ['gateway', 'data', 'assets', 'content', 'migration'], env: KEY }),
    ]);
    await db.loadPimcoreFixture();
    await db.sql(`USE ${db.database}; ${readFileSync(path.join(PIMCORE_FIXTURES, 'documents.sql'), 'utf8')}`);
    assetsPath = mkdtempSync(path.join(os.tmpdir(), 'cms-pimcore-doc-assets-'));
    mkdirSync(path.join(assetsPath, 'pages'));
    writeFileSync(path.join(assetsPath, 'pages', 'hero.png'), await png(8, 8));
    admin = await t.admin();
    const res = await t.call('POST', '/migration-sources', admin, {
      name: 'site',
      kind: 'pimcore',
      connection: { host: db.host, port: db.port, database: db.database, user: db.user, password: db.password },
      classPath: path.join(PIMCORE_FIXTURES, 'var', 'classes'),
      assetsPath,
    });
    expect(res.statusCode, res.body).to.equal(201);
    sourceId = res.json().id;
    site = await website('pimcore-site');
    staging = await website('pimcore-staging');
  });
  after(async () => {
    await t?.close();
    await db?.stop();
    if (assetsPath) rmSync(assetsPath, { recursive: true, force: true });
  });

  it('refuses an unknown website or locale with a 400 and writes nothing', async () => {
    const before = await counts();
    const unknown = await t.call('POST', `/migration-sources/${sourceId}/import-documents`, admin, {
      websiteId: '6f1c1a50-0000-4000-8000-000000000000',
    });
    expect(unknown.statusCode, unknown.body).to.equal(400);
    expect(unknown.json()).to.include({ code: 'WEBSITE_NOT_FOUND', field: 'websiteId' });
    const locale = await t.call('POST', `/migration-sources/${sourceId}/import-documents`, admin, {
      websiteId: site.id,
      locale: 'fr',
    });
    expect(locale.statusCode, locale.body).to.equal(400);
    expect(locale.json().field).to.equal('locale');
    const bad = await t.call('POST', `/migration-sources/${sourceId}/import-documents`, admin, { websiteId: 'x' });
    expect(bad.statusCode).to.equal(400);
    expect(await counts()).to.deep.equal(before);
    expect(await auditRows(t, 'migration_source.import_documents')).to.have.length(0);
  });

  it('imports pages, a snippet and a link with paths from the tree, trees from the editables, title and description', async () => {
    const res = await t.call('POST', `/migration-sources/${sourceId}/import-documents`, admin, { websiteId: site.id });
    expect(res.statusCode, res.body).to.equal(200);
    const answer = res.json();
    // Pages 1, 2, 4, the link 6 and the snippet 5; the folder 3 gives its key to /news/launch; 7 and 8 form a cycle.
    expect(answer.counts).to.deep.equal({ created: 5, updated: 0, skipped: 1, failed: 2 });
    expect(answer.failed).to.deep.include({ sourceId: '7', reason: 'the document tree has a cycle (7 → 8 → 7)' });
    expect(answer.failed.map((f: { sourceId: string }) => f.sourceId).sort()).to.deep.equal(['7', '8']);
    const paths = Object.fromEntries(
      answer.documents.map((d: { pimcoreId: number; kind: string; path: string }) => [
        d.pimcoreId,
        `${d.kind} ${d.path}`,
      ]),
    );
    expect(paths).to.deep.equal({
      1: 'page /',
      2: 'page /about',
      4: 'page /news/launch',
      5: 'snippet /footer',
      6: 'page /docs',
    });
    expect(answer.warnings).to.include('document 2: editable clip: type video is kept as data (data-value)');
    expect(answer.warnings.some((w: string) => w.startsWith('document 2: editable broken: serialized value'))).to.equal(
      true,
    );

    // The published page is public, with the title and description of documents_page.
    const about = await t.call('GET', `/public/pages/en${site.rootPath}/about`, null);
    expect(about.statusCode, about.body).to.equal(200);
    const page = about.json();
    expect(page.title).to.equal('About us');
    expect(page.seo).to.deep.include({ title: 'About us', description: 'Who we are' });
    const tree: Node = page.content;
    expect(byEditable(tree, 'headline')).to.deep.equal({
      type: 'p',
      props: { 'data-editable': 'headline' },
      text: 'About <us>',
    });
    // The image's file was copied into the library and the node points at it.
    const hero = byEditable(tree, 'hero')!;
    const asset = await t.db('assets').where({ path: 'pages/hero.png' }).first('id');
    expect(asset, 'the asset was copied').to.not.equal(undefined);
    expect(hero).to.deep.include({ type: 'img' });
    expect(hero.props).to.include({ alt: 'Our team', 'data-pimcore-id': 21 });
    expect(String(hero.props?.src)).to.match(/\/dam-asset\/pages\/hero\.png/);
    // An internal link to a document points at its page here.
    expect(byEditable(tree, 'cta')).to.deep.equal({
      type: 'a',
      props: { 'data-editable': 'cta', href: `${site.rootPath}/news/launch`, target: '_blank' },
      text: 'Read the launch',
    });
    // The areablock: one section per visible brick, holding its wysiwyg and its block of inputs.
    const content = byEditable(tree, 'content')!;
    expect(content.children).to.have.length(1);
    expect(content.children![0]).to.deep.equal({
      type: 'section',
      props: { 'data-area': 'text-block' },
      children: [
        {
          type: 'div',
          props: { 'data-editable': 'items' },
          children: [
            { type: 'div', children: [{ type: 'p', props: { 'data-editable': 'title' }, text: 'First' }] },
            { type: 'div', children: [{ type: 'p', props: { 'data-editable': 'title' }, text: 'Second' }] },
          ],
        },
        {
          type: 'div',
          props: { 'data-editable': 'text' },
          children: [{ type: 'h2', children: [{ type: 'text', text: 'Inside' }] }],
        },
      ],
    });
    expect(JSON.stringify(tree)).to.not.include('hidden brick');
    expect(byEditable(tree, 'color')).to.deep.equal({
      type: 'span',
      props: { 'data-editable': 'color', 'data-value': 'blue' },
      text: 'blue',
    });
    expect(byEditable(tree, 'featured')?.props).to.include({ 'data-checked': 'true' });
    expect(byEditable(tree, 'related')).to.deep.equal({
      type: 'relation',
      props: { 'data-editable': 'related', targetType: 'document', pimcoreId: 4, href: `${site.rootPath}/news/launch` },
    });
    const snippet = answer.documents.find((d: { pimcoreId: number }) => d.pimcoreId === 5);
    expect(byEditable(tree, 'footer')?.props).to.deep.equal({
      'data-editable': 'footer',
      snippetId: snippet.id,
      pimcoreId: 5,
    });
    expect(byEditable(tree, 'clip')?.props).to.deep.include({ 'data-type': 'video' });
    expect(JSON.parse(String(byEditable(tree, 'clip')?.props?.['data-value']))).to.deep.equal({
      id: 'dQw4w9WgXcQ',
      type: 'youtube',
      title: 'Intro',
    });

    // The snippet, with its own editables.
    const snip = await t.call('GET', `/cms-one/snippets/${snippet.id}`, admin);
    expect(snip.statusCode, snip.body).to.equal(200);
    expect(snip.json()).to.include({ name: 'footer', websiteId: site.id });
    expect(byEditable(snip.json().content, 'text')?.text).to.equal('Footer text');
    // The link document: a page holding a link to its target.
    const docs = (await t.call('GET', `/public/pages/en${site.rootPath}/docs`, null)).json();
    expect(all(docs.content).find((n) => n.type === 'a')?.props?.href).to.equal('https://docs.example.com/');
    // The root document is the website's home; Pimcore's unpublished page stays a draft.
    expect((await t.call('GET', `/public/pages/en${site.rootPath}`, null)).json().title).to.equal('Welcome');
    expect((await t.call('GET', `/public/pages/en${site.rootPath}/news/launch`, null)).statusCode).to.equal(404);
    const audits = await auditRows(t, 'migration_source.import_documents');
    expect(audits).to.have.length(1);
  });

  it('cleans wysiwyg by the content rules and reads PHP objects as data, never running them', async () => {
    const page = (await t.call('GET', `/public/pages/en${site.rootPath}/about`, null)).json();
    const body = byEditable(page.content, 'body')!;
    expect(body.children).to.deep.equal([
      {
        type: 'p',
        props: { className: 'lead' },
        children: [
          { type: 'text', text: 'Hello ' },
          { type: 'b', children: [{ type: 'text', text: 'world' }] },
          { type: 'text', text: ' & friends ' },
          { type: 'a', children: [{ type: 'text', text: 'x' }] },
        ],
      },
      { type: 'img', props: { src: 'x' } },
      { type: 'p', props: { style: 'color:red' }, children: [{ type: 'text', text: 'Red' }] },
    ]);
    // The gadget chain where Pimcore keeps an image: an image with no source, no class name kept.
    const gadget = byEditable(page.content, 'gadget')!;
    expect(gadget).to.deep.equal({ type: 'img', props: { 'data-editable': 'gadget', src: '', alt: '' } });
    const stored = JSON.stringify(await t.db('content_pages').select('content'));
    for (const bad of ['alert(', 'onclick', 'onerror', 'javascript:', 'Monolog', 'rm -rf', 'system'])
      expect(stored, bad).to.not.include(bad);
    const res = await t.call('GET', `/migration-sources/${sourceId}`, admin);
    expect(res.statusCode).to.equal(200);
  });

  it('a second run updates the pages and snippet it wrote instead of duplicating', async () => {
    await db.sql(`USE ${db.database}; UPDATE documents_page SET title = 'About the team' WHERE id = 2;`);
    const before = await counts();
    const res = await t.call('POST', `/migration-sources/${sourceId}/import-documents`, admin, { websiteId: site.id });
    expect(res.statusCode, res.body).to.equal(200);
    expect(res.json().counts).to.deep.equal({ created: 0, updated: 5, skipped: 1, failed: 2 });
    expect(await counts()).to.deep.equal(before);
    expect((await t.call('GET', `/public/pages/en${site.rootPath}/about`, null)).json().title).to.equal(
      'About the team',
    );
  });

  it('stages pages (not public) and promotes them (public once promoted), one by id or all', async () => {
    const res = await t.call('POST', `/migration-sources/${sourceId}/import-documents`, admin, {
      websiteId: staging.id,
      locale: 'de',
      staging: true,
    });
    expect(res.statusCode, res.body).to.equal(200);
    const staged = res.json().documents.filter((d: { kind: string }) => d.kind === 'staged');
    expect(staged.map((d: { path: string }) => d.path).sort()).to.deep.equal(['/', '/about', '/docs', '/news/launch']);
    for (const p of ['', '/about', '/docs'])
      expect((await t.call('GET', `/public/pages/de${staging.rootPath}${p}`, null)).statusCode, p).to.equal(404);
    const list = (await t.call('GET', `/cms-one/pages/staged?websiteId=${staging.id}`, admin)).json();
    expect(list).to.have.length(4);

    // Staging again updates the rows still staged.
    const again = await t.call('POST', `/migration-sources/${sourceId}/import-documents`, admin, {
      websiteId: staging.id,
      locale: 'de',
      staging: true,
    });
    expect(again.json().counts.created).to.equal(0);
    expect((await t.call('GET', `/cms-one/pages/staged?websiteId=${staging.id}`, admin)).json()).to.have.length(4);

    const bad = await t.call('POST', `/migration-sources/${sourceId}/promote-documents`, admin, {});
    expect(bad.statusCode, bad.body).to.equal(400);
    const foreign = await t.call('POST', `/migration-sources/${sourceId}/promote-documents`, admin, {
      ids: ['6f1c1a50-0000-4000-8000-000000000000'],
    });
    expect(foreign.statusCode, foreign.body).to.equal(404);

    const about = staged.find((d: { path: string }) => d.path === '/about');
    const one = await t.call('POST', `/migration-sources/${sourceId}/promote-documents`, admin, { ids: [about.id] });
    expect(one.statusCode, one.body).to.equal(200);
    expect(one.json().promoted).to.have.length(1);
    const live = await t.call('GET', `/public/pages/de${staging.rootPath}/about`, null);
    expect(live.statusCode, live.body).to.equal(200);
    expect(live.json().title).to.equal('About the team');
    expect((await t.call('GET', `/public/pages/de${staging.rootPath}/docs`, null)).statusCode).to.equal(404);

    const rest = await t.call('POST', `/migration-sources/${sourceId}/promote-documents`, admin, { all: true });
    expect(rest.statusCode, rest.body).to.equal(200);
    expect(
      rest
        .json()
        .promoted.map((p: { path: string }) => p.path)
        .sort(),
    ).to.deep.equal(['/', '/docs', '/news/launch']);
    expect((await t.call('GET', `/public/pages/de${staging.rootPath}/docs`, null)).statusCode).to.equal(200);
    // Pimcore's unpublished page is promoted as a draft.
    expect((await t.call('GET', `/public/pages/de${staging.rootPath}/news/launch`, null)).statusCode).to.equal(404);
    expect(await auditRows(t, 'migration_source.promote_documents')).to.have.length(2);
  });

  it('without objects:publish, imported pages are drafts; without pages:edit the import is refused', async () => {
    const editor = await t.createUser({
      permissions: ['migration:manage', 'pages:edit', 'snippets:edit', 'objects:read'],
    });
    const third = await website('pimcore-drafts');
    const res = await t.call('POST', `/migration-sources/${sourceId}/import-documents`, editor, {
      websiteId: third.id,
    });
    expect(res.statusCode, res.body).to.equal(200);
    expect(res.json().failed, res.body).to.deep.equal(
      res.json().failed.filter((f: { sourceId: string }) => ['7', '8'].includes(f.sourceId)),
    );
    expect((await t.call('GET', `/public/pages/en${third.rootPath}/about`, null)).statusCode).to.equal(404);
    const pages = await t.db('content_pages').where({ website_id: third.id }).select('published');
    expect(pages.length).to.equal(4);
    expect(pages.every((p) => p.published === false)).to.equal(true);
    const user = await t.createUser({ permissions: ['migration:manage'] });
    const refused = await t.call('POST', `/migration-sources/${sourceId}/import-documents`, user, {
      websiteId: third.id,
    });
    expect(refused.statusCode).to.equal(403);
  });
});
