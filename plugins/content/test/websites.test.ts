import { expect } from 'chai';
import { startContentKernel, type ContentKernel } from './content-kernel.ts';
import { contentContributions } from './contributions.ts';

describe('content: websites', () => {
  let k: ContentKernel;
  before(async () => {
    k = await startContentKernel();
  });
  after(() => k.t.close());

  const auditRows = (targetId: string) =>
    k.t.db('audit_log').where({ target_id: targetId }).orderBy('at').select('action', 'before', 'after');

  it('creates, reads, updates and deletes a website, each write audited', async () => {
    const site = await k.createWebsite({ kind: 'documentation', domains: ['Docs.Example.test'] });
    expect(site).to.include({ kind: 'documentation' });
    expect(site.domains).to.deep.equal(['docs.example.test']);
    expect(site.siteKey).to.deep.equal({ set: false });
    expect(site.settings.uploads.visibility).to.equal('private');
    const got = await k.call('GET', `/cms-one/websites/${site.id}`, k.reader);
    expect(got.statusCode).to.equal(200);
    expect(got.json().name).to.equal(site.name);
    const patched = await k.call('PATCH', `/cms-one/websites/${site.id}`, k.editor, { name: 'Renamed' });
    expect(patched.statusCode).to.equal(200);
    expect(patched.json().name).to.equal('Renamed');
    const same = await k.call('PATCH', `/cms-one/websites/${site.id}`, k.editor, { name: 'Renamed' });
    expect(same.statusCode).to.equal(200);
    expect((await k.call('DELETE', `/cms-one/websites/${site.id}`, k.editor)).statusCode).to.equal(204);
    expect((await k.call('GET', `/cms-one/websites/${site.id}`, k.reader)).statusCode).to.equal(404);
    const rows = await auditRows(site.id);
    expect(rows.map((r) => r.action)).to.deep.equal(['website.create', 'website.update', 'website.delete']);
    expect(rows[1].before).to.deep.equal({ name: site.name });
    expect(rows[1].after).to.deep.equal({ name: 'Renamed' });
  });

  it('deleting a website announces the removal of each of its pages and drops their history', async () => {
    const site = await k.createWebsite();
    const page = await k.createPage({ websiteId: site.id, path: '/gone', published: true });
    await k.call('PATCH', `/cms-one/pages/${page.id}`, k.editor, { content: { type: 'p', text: 'v2' } });
    k.clearEvents();
    expect((await k.call('DELETE', `/cms-one/websites/${site.id}`, k.admin)).statusCode).to.equal(204);
    expect(k.events.map((e) => [e.kind, e.recordId])).to.deep.equal([
      ['unpublished', page.id],
      ['deleted', page.id],
    ]);
    expect(await k.t.db('content_versions').where({ owner_id: page.id })).to.have.length(0);
    expect((await k.call('GET', `/cms-one/pages/${page.id}`, k.reader)).statusCode).to.equal(404);
  });

  it('refuses root paths the host or the edge table uses, and a duplicate', async () => {
    for (const root of [
      '/api',
      '/auth',
      '/assets',
      '/login',
      '/settings',
      '/cms-one',
      '/editor',
      '/public',
      '/documents',
      '/data-anything',
      '/object-event-x',
      '/metrics',
      '/health',
    ]) {
      const res = await k.call('POST', '/cms-one/websites', k.admin, { name: 'x', rootPath: root });
      expect(res.statusCode, root).to.equal(400);
      expect(res.json().field, root).to.equal('rootPath');
    }
    const site = await k.createWebsite();
    const dup = await k.call('POST', '/cms-one/websites', k.admin, { name: 'x', rootPath: site.rootPath });
    expect(dup.statusCode).to.equal(409);
    expect(dup.json().code).to.equal('UNIQUE_VIOLATION');
    const withDomain = await k.createWebsite({ domains: ['taken.example.test'] });
    const taken = await k.call('POST', '/cms-one/websites', k.admin, {
      name: 'x',
      rootPath: `/${k.unique('d')}`,
      domains: ['free.example.test', 'Taken.example.test'],
    });
    expect(taken.statusCode).to.equal(409);
    expect(taken.json().field).to.equal('domains.1');
    expect(
      (
        await k.call('PATCH', `/cms-one/websites/${withDomain.id}`, k.admin, {
          domains: ['taken.example.test', 'more.example.test'],
        })
      ).statusCode,
    ).to.equal(200);
    const bad = await k.call('POST', '/cms-one/websites', k.admin, { name: 'x', rootPath: '/a/b' });
    expect(bad.statusCode).to.equal(400);
    expect(bad.json().field).to.equal('rootPath');
  });

  it('site key: plaintext once, salted hash stored, checked in constant time through the gateway binding source, cleared', async () => {
    const site = await k.createWebsite();
    const sites = contentContributions(k.t).bindings;
    expect(await sites.checkSiteKey(site.id, undefined)).to.equal(true);
    const res = await k.call('POST', `/cms-one/websites/${site.id}/gateway-api-key/regenerate`, k.editor);
    expect(res.statusCode).to.equal(200);
    const key = res.json().siteKey as string;
    expect(key).to.match(/^wsk_/);
    const row = await k.t.db('content_websites').where({ id: site.id }).first();
    expect(row.site_key_hash).to.be.a('string').and.not.include(key);
    expect((await k.call('GET', `/cms-one/websites/${site.id}`, k.reader)).json().siteKey).to.deep.equal({ set: true });
    k.services().directory.invalidate();
    expect(await sites.checkSiteKey(site.id, key)).to.equal(true);
    expect(await sites.checkSiteKey(site.id, key + 'x')).to.equal(false);
    expect(await sites.checkSiteKey(site.id, undefined)).to.equal(false);
    expect(await sites.checkSiteKey('00000000-0000-4000-8000-000000000000', key)).to.equal(false);
    expect((await k.call('DELETE', `/cms-one/websites/${site.id}/gateway-api-key`, k.editor)).statusCode).to.equal(204);
    expect(await sites.checkSiteKey(site.id, undefined)).to.equal(true);
    const actions = (await auditRows(site.id)).map((r) => r.action);
    expect(actions).to.include.members(['website.api_key_regenerate', 'website.api_key_clear']);
    expect(JSON.stringify(await auditRows(site.id))).not.to.include(key);
  });

  it('upload settings: checkable types only, numbers clamped, public folder only when allowed explicitly', async () => {
    const site = await k.createWebsite();
    const url = `/cms-one/websites/${site.id}/upload-settings`;
    for (const type of ['text/html', 'image/svg+xml', 'application/javascript', 'application/x-msdownload']) {
      const res = await k.call('PUT', url, k.editor, { allowedTypes: ['image/png', type] });
      expect(res.statusCode, type).to.equal(400);
      expect(res.json().field).to.equal('allowedTypes.1');
    }
    const pub = await k.call('PUT', url, k.editor, { visibility: 'public' });
    expect(pub.statusCode).to.equal(400);
    expect(pub.json().field).to.equal('visibility');
    const ok = await k.call('PUT', url, k.editor, {
      enabled: true,
      allowedTypes: ['image/png', 'application/pdf'],
      maxFileBytes: 10 ** 12,
      maxFilesPerSubmit: 500,
      dailyBytes: 10 ** 13,
    });
    expect(ok.statusCode).to.equal(200);
    expect(ok.json()).to.include({
      enabled: true,
      maxFileBytes: 50 * 1024 * 1024,
      maxFilesPerSubmit: 10,
      dailyBytes: 1024 ** 3,
      visibility: 'private',
    });
    const allowed = await k.call('PUT', url, k.editor, {
      visibility: 'public',
      allowPublicFolder: true,
      folder: '/public-forms',
    });
    expect(allowed.json()).to.include({ visibility: 'public', folder: '/public-forms' });
    expect((await k.call('GET', url, k.reader)).json().folder).to.equal('/public-forms');
    k.services().directory.invalidate();
    expect(await contentContributions(k.t).uploadRules.uploadSettings(site.id)).to.include({
      enabled: true,
      visibility: 'public',
    });
    expect((await auditRows(site.id)).filter((r) => r.action === 'website.upload_settings')).to.have.length(2);
    // The same rules apply to settings.uploads inside a website write.
    const viaSettings = await k.call('PATCH', `/cms-one/websites/${site.id}`, k.editor, {
      settings: { uploads: { allowedTypes: 'image/png' } },
    });
    expect(viaSettings.statusCode).to.equal(400);
    expect(viaSettings.json().field).to.equal('settings.uploads.allowedTypes');
    const html = await k.call('PATCH', `/cms-one/websites/${site.id}`, k.editor, {
      settings: { uploads: { allowedTypes: ['text/html'] } },
    });
    expect(html.json().field).to.equal('settings.uploads.allowedTypes.0');
    const clamped = await k.call('PATCH', `/cms-one/websites/${site.id}`, k.editor, {
      settings: { uploads: { maxFilesPerSubmit: 99 }, themes: ['light'] },
    });
    expect(clamped.json().settings.uploads.maxFilesPerSubmit).to.equal(10);
    expect(clamped.json().settings.themes).to.deep.equal(['light']);
    expect(
      (await k.call('PATCH', `/cms-one/websites/${site.id}`, k.editor, { settings: { themes: 'light' } })).json().field,
    ).to.equal('settings.themes');
    expect(
      (
        await k.call('PATCH', `/cms-one/websites/${site.id}`, k.editor, { settings: { big: 'x'.repeat(300_000) } })
      ).json().field,
    ).to.equal('settings');
  });

  it('generate-pwa: manifest and service worker config from the website, theme and published pages; audited', async () => {
    const site = await k.createWebsite();
    await k.createPage({ websiteId: site.id, path: '/about', published: true });
    await k.createPage({ websiteId: site.id, path: '/draft' });
    const theme = (
      await k.call('POST', `/cms-one/websites/${site.id}/themes`, k.editor, {
        name: 'T',
        colors: { primary: '#112233' },
      })
    ).json();
    await k.call('PUT', `/cms-one/websites/${site.id}/theme`, k.editor, { themeId: theme.id });
    const res = await k.call('POST', `/cms-one/websites/${site.id}/generate-pwa`, k.editor, { shortName: 'Shop' });
    expect(res.statusCode, res.body).to.equal(200);
    const pwa = res.json();
    expect(pwa.manifest).to.include({
      name: site.name,
      short_name: 'Shop',
      start_url: `${site.rootPath}/`,
      theme_color: '#112233',
      lang: 'en',
    });
    expect(pwa.serviceWorker.precache).to.deep.equal([`${site.rootPath}/about`]);
    expect(pwa.version).to.equal(1);
    const again = await k.call('POST', `/cms-one/websites/${site.id}/generate-pwa`, k.editor, {});
    expect(again.statusCode, again.body).to.equal(200);
    expect(again.json().serviceWorker.cacheName).to.equal(`site-${site.id}-v2`);
    expect((await k.call('GET', `/cms-one/websites/${site.id}`, k.reader)).json().settings.pwa.version).to.equal(2);
    expect((await auditRows(site.id)).filter((r) => r.action === 'website.pwa_generate')).to.have.length(2);
    const url = `/cms-one/websites/${site.id}/generate-pwa`;
    expect((await k.call('POST', url, null, {})).statusCode).to.equal(401);
    expect((await k.call('POST', url, k.reader, {})).statusCode).to.equal(403);
    expect(
      (
        await k.call('POST', url, k.editor, { icons: [{ src: 'javascript:x', sizes: '1x1', type: 'image/png' }] })
      ).json().field,
    ).to.equal('icons.0.src');
    expect(
      (await k.call('POST', '/cms-one/websites/00000000-0000-4000-8000-000000000000/generate-pwa', k.editor, {}))
        .statusCode,
    ).to.equal(404);
  });

  it('upload rules: findWebsite by id, path and host', async () => {
    const site = await k.createWebsite({ domains: ['port.example.test'] });
    const sites = contentContributions(k.t).uploadRules;
    const expected = { id: site.id, name: site.name, rootPath: site.rootPath };
    expect(await sites.findWebsite({ id: site.id })).to.deep.equal(expected);
    expect(await sites.findWebsite({ path: `${site.rootPath}/about` })).to.deep.equal(expected);
    expect(await sites.findWebsite({ host: 'port.example.test:8080' })).to.deep.equal(expected);
    expect(await sites.findWebsite({ path: '/nothing-here' })).to.equal(undefined);
  });

  it('permissions: 401 without session, 403 without the key, 400 on bad input', async () => {
    const site = await k.createWebsite();
    const routes: Array<[string, string, unknown?]> = [
      ['GET', '/cms-one/websites'],
      ['POST', '/cms-one/websites', { name: 'n', rootPath: '/zz' }],
      ['GET', `/cms-one/websites/${site.id}`],
      ['PATCH', `/cms-one/websites/${site.id}`, { name: 'n' }],
      ['DELETE', `/cms-one/websites/${site.id}`],
      ['POST', `/cms-one/websites/${site.id}/gateway-api-key/regenerate`],
      ['DELETE', `/cms-one/websites/${site.id}/gateway-api-key`],
      ['GET', `/cms-one/websites/${site.id}/upload-settings`],
      ['PUT', `/cms-one/websites/${site.id}/upload-settings`, {}],
    ];
    for (const [method, url, body] of routes) {
      expect((await k.call(method, url, null, body)).statusCode, `${method} ${url}`).to.equal(401);
      expect((await k.call(method, url, k.nobody, body)).statusCode, `${method} ${url}`).to.equal(403);
      if (method !== 'GET')
        expect((await k.call(method, url, k.reader, body)).statusCode, `${method} ${url}`).to.equal(403);
    }
    const editOnly = await k.t.createUser({ permissions: ['websites:edit'] });
    expect((await k.call('PATCH', `/cms-one/websites/${site.id}`, editOnly, { name: 'by key' })).statusCode).to.equal(
      200,
    );
    expect((await k.call('DELETE', `/cms-one/websites/${site.id}`, editOnly)).statusCode).to.equal(403);
    const bad = await k.call('POST', '/cms-one/websites', k.admin, { name: '', rootPath: '/ok' });
    expect(bad.statusCode).to.equal(400);
    expect(bad.json().field).to.equal('name');
    expect((await k.call('GET', '/cms-one/websites/not-a-uuid', k.reader)).statusCode).to.equal(400);
    expect(
      (await k.call('PATCH', `/cms-one/websites/${site.id}`, k.editor, { locales: ['en', 'not a locale'] })).json()
        .field,
    ).to.equal('locales.1');
  });
});
