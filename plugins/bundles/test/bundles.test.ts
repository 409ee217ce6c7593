import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { auditRows, startTestKernel, type TestKernel, type TestUser } from '../../../test/helpers/kernel.ts';
import { pdf } from '../../../test/helpers/media.ts';
import { rawZip, readZip } from '../../../test/helpers/zip.ts';

const PLUGINS = ['data', 'content', 'assets', 'bundles'];

function multipart(name: string, data: Buffer, fields: Record<string, string>) {
  const boundary = `----b${randomBytes(6).toString('hex')}`;
  const parts = Object.entries(fields).map(
    ([k, v]) => `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`,
  );
  const head = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: application/pdf\r\n\r\n`;
  return {
    payload: Buffer.concat([Buffer.from(parts.join('') + head), data, Buffer.from(`\r\n--${boundary}--\r\n`)]),
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
  };
}

async function startSite(env: Record<string, string> = {}) {
  const t = await startTestKernel({ plugins: PLUGINS, ownDataDir: true, env });
  const admin = await t.admin();
  return { t, admin };
}

/** Raw bytes of a response (zip downloads). */
const bytesOf = (res: { rawPayload: Buffer }) => res.rawPayload;

async function importZip(t: TestKernel, user: TestUser, zip: Buffer, query = '') {
  return t.inject({
    method: 'POST',
    url: `/cms-one/websites/import${query}`,
    payload: zip,
    headers: { 'content-type': 'application/zip', cookie: user.cookie },
  });
}

/** Counts of what an import could have written: websites, pages, classes, objects, assets. */
async function footprint(t: TestKernel) {
  const count = async (table: string) => Number((await t.db(table).count('* as n'))[0].n);
  return {
    websites: await count('content_websites'),
    pages: await count('content_pages'),
    classes: await count('data_classes'),
    objects: await count('data_objects'),
    assets: await count('assets'),
  };
}

describe('bundles: website export and import', function () {
  this.timeout(60_000);
  let source: Awaited<ReturnType<typeof startSite>>;
  let target: Awaited<ReturnType<typeof startSite>>;
  let site: { id: string; rootPath: string };
  let product: { id: string };
  let page: { id: string };
  let zip: Buffer;
  const manual = pdf();

  before(async () => {
    source = await startSite();
    target = await startSite({ ASSET_MAX_FILE_BYTES: '4096' });
    const { t, admin } = source;
    const ok = async (method: string, url: string, body: unknown, status = 201) => {
      const res = await t.call(method, url, admin, body);
      if (res.statusCode !== status) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
      return res.json();
    };
    site = await ok('POST', '/cms-one/websites', {
      name: 'Shop',
      rootPath: '/shop',
      locales: ['en'],
      settings: { color: 'red', analytics: { id: 'UA-1', apiToken: 'never-exported' } },
    });
    await ok('POST', '/data-classes', {
      name: 'Product',
      label: 'Product',
      fields: [
        { name: 'title', type: 'text' },
        { name: 'manual', type: 'text' },
      ],
    });
    const up = multipart('manual.pdf', manual, { folder: 'docs' });
    const stored = await t.inject({
      method: 'POST',
      url: '/api/v1/dam/upload',
      payload: up.payload,
      headers: { ...up.headers, cookie: admin.cookie },
    });
    expect(stored.statusCode, stored.body).to.equal(201);
    product = await ok('POST', '/data-objects', {
      className: 'Product',
      key: 'lamp',
      published: true,
      attributes: { title: 'Lamp', manual: 'docs/manual.pdf' },
    });
    await ok('POST', '/data-objects', { className: 'Product', key: 'chair', attributes: { title: 'Chair' } });
    page = await ok('POST', '/cms-one/pages', {
      websiteId: site.id,
      locale: 'en',
      path: '/lamp',
      title: 'The lamp',
      published: true,
      content: {
        type: 'section',
        children: [
          { type: 'product', props: { objectId: product.id } },
          { type: 'a', props: { href: '/dam-asset/docs/manual.pdf' } },
        ],
      },
    });
    await ok('POST', '/cms-one/website-paths', { websiteId: site.id, label: 'Lamp', pageId: page.id });
    await ok('POST', '/cms-one/snippets', { name: 'Footer', websiteId: site.id, content: { type: 'p', text: 'Bye' } });
  });
  after(async () => {
    await source?.t.close();
    await target?.t.close();
  });

  it('exports a zip: bundle.json version 2 with every section, and the files under assets/0001-<name>', async () => {
    const res = await source.t.inject({
      method: 'GET',
      url: `/cms-one/websites/${site.id}/export`,
      headers: { cookie: source.admin.cookie },
    });
    expect(res.statusCode, res.body).to.equal(200);
    expect(res.headers['content-type']).to.equal('application/zip');
    expect(res.headers['content-disposition']).to.match(/^attachment; filename="website-shop-\d{4}-\d\d-\d\d\.zip"$/);
    zip = bytesOf(res);
    const entries = await readZip(zip);
    const manifest = JSON.parse(entries.get('bundle.json')!.toString());
    expect(manifest.version).to.equal(2);
    expect(manifest.website).to.include({ name: 'Shop', rootPath: '/shop', versions: 'current' });
    expect(manifest.website).not.to.have.property('siteKeyHash');
    expect(manifest.website.settings).to.deep.equal({ color: 'red', analytics: { id: 'UA-1' } });
    expect(entries.get('bundle.json')!.toString()).not.to.include('never-exported');
    expect(manifest.pages.map((p: { path: string }) => p.path)).to.deep.equal(['/lamp']);
    expect(manifest.websitePaths).to.have.length(1);
    expect(manifest.snippets).to.have.length(1);
    expect(manifest.dataClasses.map((c: { name: string }) => c.name)).to.deep.equal(['Product']);
    expect(manifest.dataObjects.map((o: { key: string }) => o.key).sort()).to.deep.equal(['chair', 'lamp']);
    expect(manifest.assets).to.have.length(1);
    expect(manifest.assets[0]).to.include({ path: 'docs/manual.pdf', file: 'assets/0001-manual.pdf' });
    expect(entries.get('assets/0001-manual.pdf')!.equals(manual)).to.equal(true);
    for (const key of ['website', 'pages', 'websiteTemplates', 'websitePaths', 'themes', 'snippets'])
      expect(manifest, key).to.have.property(key);
  });

  it('?dataObjects=referenced keeps only the objects the content references; objects:read is needed', async () => {
    const res = await source.t.inject({
      method: 'GET',
      url: `/cms-one/websites/${site.id}/export?dataObjects=referenced`,
      headers: { cookie: source.admin.cookie },
    });
    const manifest = JSON.parse((await readZip(bytesOf(res))).get('bundle.json')!.toString());
    expect(manifest.dataObjects.map((o: { key: string }) => o.key)).to.deep.equal(['lamp']);
    const { nobody } = await source.t.users({ nobody: [] });
    expect((await source.t.call('GET', `/cms-one/websites/${site.id}/export`, nobody)).statusCode).to.equal(403);
    expect((await source.t.call('GET', `/cms-one/websites/${randomUuid()}/export`, source.admin)).statusCode).to.equal(
      404,
    );
  });

  it('a dry run writes nothing and reports counts, class actions, the asset plan and warnings', async () => {
    const before = await footprint(target.t);
    const res = await importZip(target.t, target.admin, zip, '?dryRun=1');
    expect(res.statusCode, res.body).to.equal(200);
    const report = res.json();
    expect(report.state).to.equal('dry run');
    expect(report.counts).to.include({ website: 1, pages: 1, dataClasses: 1, dataObjects: 2, assets: 1, snippets: 1 });
    expect(report.classActions).to.deep.equal([{ kind: 'class', name: 'Product', action: 'create' }]);
    expect(report.assetPlan).to.deep.equal([
      {
        id: report.assetPlan[0].id,
        path: 'docs/manual.pdf',
        size: manual.length,
        action: 'upload',
        targetPath: 'docs/manual.pdf',
      },
    ]);
    expect(await footprint(target.t)).to.deep.equal(before);
  });

  it('the apply writes the website in one go; the public site reads the same, ids remapped; audited', async () => {
    const pageEvents = target.t.recordChanges('page');
    const res = await importZip(target.t, target.admin, zip);
    expect(res.statusCode, res.body).to.equal(201);
    const out = res.json();
    expect(out).to.include({ state: 'applied', rootPath: '/shop' });
    expect(out.assets).to.deep.equal({ uploaded: 1, reused: 0, notStored: [] });
    expect(out.created).to.include({
      website: 1,
      pages: 1,
      dataClasses: 1,
      dataObjects: 2,
      websitePaths: 1,
      snippets: 1,
    });
    const there = await target.t.call('GET', '/public/pages/en/shop/lamp', null);
    const here = await source.t.call('GET', '/public/pages/en/shop/lamp', null);
    expect(there.statusCode).to.equal(200);
    const a = there.json();
    const b = here.json();
    expect(a.title).to.equal(b.title);
    expect(a.id).not.to.equal(b.id);
    const newObjectId = a.content.children[0].props.objectId;
    expect(newObjectId).not.to.equal(product.id);
    expect(a.content.children[1]).to.deep.equal(b.content.children[1]);
    const obj = await target.t.call('GET', `/public/data-objects/${newObjectId}`, null);
    expect(obj.statusCode, obj.body).to.equal(200);
    expect(obj.json().attributes).to.deep.equal({ title: 'Lamp', manual: 'docs/manual.pdf' });
    const file = await target.t.call('GET', '/dam-asset/docs/manual.pdf', null);
    expect(file.statusCode).to.equal(200);
    expect(file.rawPayload.equals(manual)).to.equal(true);
    const rows = await auditRows(target.t, 'website.import');
    expect(rows).to.have.length(1);
    expect(rows[0]).to.include({ target_id: out.websiteId, target_label: 'Shop' });
    expect(pageEvents.map((e) => e.kind)).to.deep.equal(['created', 'published']);
  });

  it('a second import reports the taken root path and reuses the class; 409 without ?rootPath, fine with it', async () => {
    const dry = (await importZip(target.t, target.admin, zip, '?dryRun=1')).json();
    expect(dry.classActions[0]).to.include({ action: 'reuse' });
    expect(dry.actions[0]).to.include({ kind: 'website', action: 'conflict' });
    expect(dry.assetPlan[0]).to.include({ action: 'reuse', targetPath: 'docs/manual.pdf' });
    const before = await footprint(target.t);
    const refused = await importZip(target.t, target.admin, zip);
    expect(refused.statusCode).to.equal(409);
    expect(refused.json().code).to.equal('IMPORT_CONFLICT');
    expect(await footprint(target.t)).to.deep.equal(before);
    const copy = await importZip(target.t, target.admin, zip, '?rootPath=/shop-copy');
    expect(copy.statusCode, copy.body).to.equal(201);
    expect((await target.t.call('GET', '/public/pages/en/shop-copy/lamp', null)).statusCode).to.equal(200);
  });

  it('a failing record rolls the whole apply back and the answer names it; stored files stay', async () => {
    const manifest = JSON.parse((await readZip(zip)).get('bundle.json')!.toString());
    manifest.website.rootPath = '/broken';
    manifest.dataObjects.push({
      id: randomUuid(),
      className: 'Product',
      key: 'bad',
      locale: 'en',
      attributes: { nope: 1 },
    });
    const before = await footprint(target.t);
    const res = await target.t.call('POST', '/cms-one/websites/import', target.admin, { manifest });
    expect(res.statusCode).to.be.within(400, 499);
    expect(res.json().code).to.equal('IMPORT_ROLLED_BACK');
    expect(res.json().message).to.include('object "bad"');
    expect(await footprint(target.t)).to.deep.equal(before);
    expect(await auditRows(target.t, 'website.import')).to.have.length(2);
  });

  it('imports a plain .json manifest of version 1; assets map onto library files with assetMap', async () => {
    const manifest = JSON.parse((await readZip(zip)).get('bundle.json')!.toString());
    manifest.version = 1;
    manifest.website.rootPath = '/v1';
    const library = await target.t.db('assets').where({ path: 'docs/manual.pdf' }).first();
    const oldId = manifest.assets[0].id;
    delete manifest.assets[0].file;
    manifest.assets[0].path = 'elsewhere/gone.pdf';
    const dry = await target.t.call('POST', '/cms-one/websites/import?dryRun=1', target.admin, manifest);
    expect(dry.json().assetPlan[0]).to.include({ action: 'conflict' });
    const assetMap = { [oldId]: { id: library.id, pimcorePath: 'docs/manual.pdf' } };
    const mapped = await target.t.call('POST', '/cms-one/websites/import?dryRun=1', target.admin, {
      manifest,
      assetMap,
    });
    expect(mapped.json().assetPlan[0]).to.include({
      action: 'reuse',
      targetPath: 'docs/manual.pdf',
      reason: 'assetMap',
    });
    const applied = await target.t.call('POST', '/cms-one/websites/import', target.admin, { manifest, assetMap });
    expect(applied.statusCode, applied.body).to.equal(201);
    expect(applied.json().assets).to.include({ uploaded: 0, reused: 1 });
  });

  it('a file over the asset limit is reported as not stored and the import continues', async () => {
    const manifest = JSON.parse((await readZip(zip)).get('bundle.json')!.toString());
    manifest.website.rootPath = '/big';
    manifest.assets = [
      {
        id: randomUuid(),
        path: 'big/huge.pdf',
        filename: 'huge.pdf',
        size: 8000,
        visibility: 'public',
        file: 'assets/0001-huge.pdf',
      },
    ];
    const bundle = rawZip([
      { name: 'bundle.json', data: JSON.stringify(manifest) },
      { name: 'assets/0001-huge.pdf', data: Buffer.alloc(8000, 1) },
    ]);
    const dry = (await importZip(target.t, target.admin, bundle, '?dryRun=1')).json();
    expect(dry.assetPlan[0]).to.include({ action: 'upload', stored: false });
    expect(dry.warnings.join(' ')).to.include('big/huge.pdf');
    const res = await importZip(target.t, target.admin, bundle);
    expect(res.statusCode, res.body).to.equal(201);
    expect(res.json().assets.notStored).to.deep.equal([{ path: 'big/huge.pdf', reason: 'larger than 4096 bytes' }]);
    expect((await target.t.call('GET', '/public/pages/en/big/lamp', null)).statusCode).to.equal(200);
  });

  it('publishing needs objects:publish: an editor imports drafts; objects:write is needed at all', async () => {
    const { editor, reader } = await target.t.users({
      editor: ['objects:read', 'objects:write'],
      reader: ['objects:read'],
    });
    expect((await importZip(target.t, reader, zip, '?dryRun=1')).statusCode).to.equal(403);
    const dry = (await importZip(target.t, editor, zip, '?dryRun=1&rootPath=/drafts')).json();
    expect(dry.warnings.join(' ')).to.include('imported as drafts');
    const res = await importZip(target.t, editor, zip, '?rootPath=/drafts');
    expect(res.statusCode, res.body).to.equal(201);
    expect((await target.t.call('GET', '/public/pages/en/drafts/lamp', null)).statusCode).to.equal(404);
  });

  describe('hostile bundles: a clear 400, nothing written', () => {
    const manifestText = () => JSON.stringify({ version: 2, website: { name: 'X', rootPath: '/x' }, assets: [] });
    const cases: Array<[string, () => Buffer, string]> = [
      [
        'a zip-slip path',
        () =>
          rawZip([
            { name: 'bundle.json', data: manifestText() },
            { name: 'assets/../../etc/passwd', data: 'x' },
          ]),
        'BUNDLE_UNSAFE_PATH',
      ],
      [
        'an absolute path',
        () =>
          rawZip([
            { name: 'bundle.json', data: manifestText() },
            { name: '/etc/passwd', data: 'x' },
          ]),
        'BUNDLE_UNSAFE_PATH',
      ],
      [
        'a Windows path',
        () =>
          rawZip([
            { name: 'bundle.json', data: manifestText() },
            { name: 'C:\\evil.txt', data: 'x' },
          ]),
        'BUNDLE_UNSAFE_PATH',
      ],
      [
        'a symbolic link',
        () =>
          rawZip([
            { name: 'bundle.json', data: manifestText() },
            { name: 'assets/0001-link', data: '/etc/passwd', mode: 0o120777 },
          ]),
        'BUNDLE_SYMLINK',
      ],
      [
        'a duplicate name',
        () =>
          rawZip([
            { name: 'bundle.json', data: manifestText() },
            { name: 'bundle.json', data: manifestText() },
          ]),
        'BUNDLE_DUPLICATE_ENTRY',
      ],
      [
        'a zip bomb (ratio)',
        () =>
          rawZip([
            { name: 'bundle.json', data: manifestText() },
            { name: 'assets/0001-z', data: Buffer.alloc(4 * 1024 * 1024), deflate: true },
          ]),
        'BUNDLE_RATIO',
      ],
      [
        'a manifest naming a missing file',
        () =>
          rawZip([
            {
              name: 'bundle.json',
              data: JSON.stringify({
                version: 2,
                website: { name: 'X', rootPath: '/x' },
                assets: [{ id: 'a1', path: 'a/b.pdf', file: 'assets/0001-b.pdf' }],
              }),
            },
          ]),
        'BUNDLE_FILE_MISSING',
      ],
      [
        'a file the manifest does not name',
        () =>
          rawZip([
            { name: 'bundle.json', data: manifestText() },
            { name: 'notes.txt', data: 'x' },
          ]),
        'BUNDLE_UNKNOWN_ENTRY',
      ],
      [
        'manifest version 3',
        () =>
          rawZip([
            { name: 'bundle.json', data: JSON.stringify({ version: 3, website: { name: 'X', rootPath: '/x' } }) },
          ]),
        'UNSUPPORTED_MANIFEST_VERSION',
      ],
      [
        'malformed JSON',
        () => rawZip([{ name: 'bundle.json', data: '{"version": 2, "website": ' }]),
        'INVALID_MANIFEST',
      ],
      ['no manifest', () => rawZip([{ name: 'readme.txt', data: 'x' }]), 'BUNDLE_NO_MANIFEST'],
      ['not a zip', () => Buffer.from('hello, not a zip'), 'BUNDLE_NOT_ZIP'],
    ];
    for (const [what, build, code] of cases)
      it(what, async () => {
        const before = await footprint(target.t);
        const res = await importZip(target.t, target.admin, build());
        expect(res.statusCode, res.body).to.equal(400);
        expect(res.json().code).to.equal(code);
        expect(res.json().message.length).to.be.greaterThan(10);
        expect(await footprint(target.t)).to.deep.equal(before);
      });

    it('a total size cap (zip bomb of many entries) and an entry count cap', async () => {
      const t = await startTestKernel({
        plugins: PLUGINS,
        env: { BUNDLE_MAX_UNCOMPRESSED_BYTES: '2048', BUNDLE_MAX_ENTRIES: '3' },
      });
      try {
        const admin = await t.admin();
        const big = rawZip([
          { name: 'bundle.json', data: manifestText() },
          { name: 'assets/0001-a', data: Buffer.alloc(3000) },
        ]);
        expect((await importZip(t, admin, big)).json().code).to.equal('BUNDLE_TOO_LARGE');
        const many = rawZip(
          ['bundle.json', 'a', 'b', 'c'].map((name) => ({ name, data: name === 'bundle.json' ? manifestText() : 'x' })),
        );
        expect((await importZip(t, admin, many)).json().code).to.equal('BUNDLE_TOO_MANY_ENTRIES');
      } finally {
        await t.close();
      }
    });

    it('a wrong manifest version or malformed JSON as a plain .json manifest', async () => {
      const v9 = await target.t.call('POST', '/cms-one/websites/import?dryRun=1', target.admin, {
        version: 9,
        website: {},
      });
      expect(v9.statusCode).to.equal(400);
      expect(v9.json()).to.include({ code: 'UNSUPPORTED_MANIFEST_VERSION', field: 'version' });
      const bad = await target.t.inject({
        method: 'POST',
        url: '/cms-one/websites/import',
        payload: '{"version": 2,',
        headers: { 'content-type': 'application/json', cookie: target.admin.cookie },
      });
      expect(bad.statusCode).to.equal(400);
    });
  });
});

function randomUuid() {
  return crypto.randomUUID();
}
