import { expect } from 'chai';
import { startTestKernel, type TestKernel, type TestUser } from '../../../test/helpers/kernel.ts';

const PLUGINS = ['data', 'content', 'assets', 'bundles'];

/** What an import could have written. */
async function footprint(t: TestKernel) {
  const count = async (table: string) => Number((await t.db(table).count('* as n'))[0].n);
  return {
    websites: await count('content_websites'),
    pages: await count('content_pages'),
    paths: await count('content_website_paths'),
    themes: await count('content_themes'),
    layouts: await count('content_layouts'),
    classes: await count('data_classes'),
    objects: await count('data_objects'),
  };
}

let sites = 0;
function manifest(extra: Record<string, unknown> = {}, website: Record<string, unknown> = {}) {
  sites++;
  return {
    version: 2,
    website: { id: `w${sites}`, name: 'Rules', rootPath: `/rules${sites}`, locales: ['en'], ...website },
    ...extra,
  };
}

describe('bundles: every value an import writes passes the rules of the route that writes it', function () {
  this.timeout(60_000);
  let t: TestKernel;
  let admin: TestUser;

  before(async () => {
    t = await startTestKernel({ plugins: PLUGINS, ownDataDir: true });
    admin = await t.admin();
  });
  after(() => t?.close());

  const importJson = (body: unknown, query = '') => t.call('POST', `/cms-one/websites/import${query}`, admin, body);

  /** The dry run and the apply answer the same 4xx naming `field`; neither writes anything. */
  async function refusedBoth(body: unknown, field: string, status = 400) {
    const before = await footprint(t);
    const answers = [];
    for (const query of ['?dryRun=1', '']) {
      const res = await importJson(body, query);
      expect(res.statusCode, `${query || 'apply'}: ${res.body}`).to.equal(status);
      expect(res.json().field, res.body).to.equal(field);
      answers.push(res.json());
    }
    expect(answers[0].code).to.equal(answers[1].code);
    expect(await footprint(t)).to.deep.equal(before);
    return answers;
  }

  it('website settings pass the website route: upload types that cannot be checked (text/html) are refused', async () => {
    // The website route refuses this with 400; the import stored it, and every website read then answered 400.
    const direct = await t.call('POST', '/cms-one/websites', admin, {
      name: 'Direct',
      rootPath: '/direct-html',
      settings: { uploads: { allowedTypes: ['text/html'] } },
    });
    expect(direct.statusCode).to.equal(400);
    await refusedBoth(
      manifest({}, { settings: { uploads: { allowedTypes: ['text/html'] } } }),
      'website.settings.uploads.allowedTypes.0',
    );
    await refusedBoth(
      manifest({}, { settings: { uploads: { visibility: 'public' } } }),
      'website.settings.uploads.visibility',
    );
    await refusedBoth(manifest({}, { settings: { themes: 'not a list' } }), 'website.settings.themes');
    const list = await t.call('GET', '/cms-one/websites', admin);
    expect(list.statusCode, list.body).to.equal(200);
  });

  it('a public upload folder confirmed in the bundle is kept; exported settings carry that confirmation', async () => {
    const body = manifest({}, { settings: { uploads: { visibility: 'public', allowPublicFolder: true } } });
    const applied = await importJson(body);
    expect(applied.statusCode, applied.body).to.equal(201);
    const site = await t.call('GET', `/cms-one/websites/${applied.json().websiteId}`, admin);
    expect(site.json().settings.uploads).to.include({ visibility: 'public' });
    expect(site.json().settings.uploads).not.to.have.property('allowPublicFolder');
    const exported = await t.inject({
      method: 'GET',
      url: `/cms-one/websites/${applied.json().websiteId}/export`,
      headers: { cookie: admin.cookie },
    });
    expect(exported.statusCode).to.equal(200);
    const again = await t.inject({
      method: 'POST',
      url: '/cms-one/websites/import?rootPath=/rules-again',
      payload: exported.rawPayload,
      headers: { 'content-type': 'application/zip', cookie: admin.cookie },
    });
    expect(again.statusCode, again.body).to.equal(201);
  });

  it('values are checked again after the remapping of ids: a record id that turns a menu path into an id is refused', async () => {
    // The snippet's id "/about" is replaced by a new uuid wherever the text "/about" stands, the menu
    // entry's path included: the stored path would be a bare uuid, which the menu editor refuses.
    const body = manifest({
      snippets: [{ id: '/about', name: 'Footer', content: { type: 'p', text: 'Bye' } }],
      websitePaths: [{ id: 'm1', label: 'About', path: '/about', position: 0 }],
    });
    const [dry, apply] = await refusedBoth(body, 'websitePaths.0.path');
    expect(apply.code).to.equal('IMPORT_ROLLED_BACK');
    expect(dry.message).to.match(/dry run/i);
  });
});

describe('bundles: a dry run that passes is an apply that passes (the same checks)', function () {
  this.timeout(60_000);
  let t: TestKernel;
  let admin: TestUser;

  before(async () => {
    t = await startTestKernel({ plugins: PLUGINS, ownDataDir: true });
    admin = await t.admin();
  });
  after(() => t?.close());

  const importJson = (body: unknown, query = '') => t.call('POST', `/cms-one/websites/import${query}`, admin, body);

  async function sameAnswer(body: unknown, status: number, field?: string) {
    const before = await footprint(t);
    const dry = await importJson(body, '?dryRun=1');
    const apply = await importJson(body);
    expect(dry.statusCode, `dry run: ${dry.body}`).to.equal(status);
    expect(apply.statusCode, `apply: ${apply.body}`).to.equal(status);
    expect(dry.json().code).to.equal(apply.json().code);
    if (field) expect(apply.json().field, apply.body).to.equal(field);
    expect(await footprint(t)).to.deep.equal(before);
  }

  it('two default themes: refused by the dry run as by the apply (the dry run said fine, the apply 409)', async () => {
    const themes = [
      { id: 't1', name: 'Light', isDefault: true },
      { id: 't2', name: 'Dark', isDefault: true },
    ];
    await sameAnswer(manifest({ themes }), 400, 'themes.1.isDefault');
  });

  it('two default layouts: refused by both (the apply stored both)', async () => {
    const websiteTemplates = [
      { id: 'l1', name: 'Main', isDefault: true },
      { id: 'l2', name: 'Other', isDefault: true },
    ];
    await sameAnswer(manifest({ websiteTemplates }), 400, 'websiteTemplates.1.isDefault');
  });

  it('an object whose attributes its class refuses: refused by the dry run as by the apply', async () => {
    const body = manifest({
      dataClasses: [{ id: 'c1', name: 'Gadget', label: 'Gadget', fields: [{ name: 'weight', type: 'number' }] }],
      dataObjects: [{ id: 'o1', className: 'Gadget', key: 'g1', locale: 'en', attributes: { weight: 'heavy' } }],
    });
    await sameAnswer(body, 400);
  });

  it('a clean bundle: the dry run and the apply both pass, and the dry run leaves no trace', async () => {
    const body = manifest({
      themes: [{ id: 't1', name: 'Light', isDefault: true }],
      pages: [{ id: 'p1', path: '/a', title: 'A', locale: 'en', content: { type: 'section', children: [] } }],
    });
    const before = await footprint(t);
    const audit = Number((await t.db('audit_log').count('* as n'))[0].n);
    const dry = await importJson(body, '?dryRun=1');
    expect(dry.statusCode, dry.body).to.equal(200);
    expect(dry.json()).to.include({ state: 'dry run' });
    expect(await footprint(t)).to.deep.equal(before);
    expect(Number((await t.db('audit_log').count('* as n'))[0].n)).to.equal(audit);
    const apply = await importJson(body);
    expect(apply.statusCode, apply.body).to.equal(201);
  });
});
