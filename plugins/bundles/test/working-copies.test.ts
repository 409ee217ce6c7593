import { expect } from 'chai';
import { startTestKernel, type TestKernel, type TestUser } from '../../../test/helpers/kernel.ts';
import { readZip } from '../../../test/helpers/zip.ts';

/**
 * A bundle carries the live records, plus their working copies with `?drafts=1` (`workingCopy` per
 * record); an import stores them as working copies (the site shows live), and they pass the same
 * rules as the records.
 */
describe('bundles: working copies', function () {
  this.timeout(60_000);
  let t: TestKernel;
  let admin: TestUser;
  let manifest: Record<string, unknown> & { pages: Array<Record<string, unknown>> };
  let site: { id: string; rootPath: string };

  before(async () => {
    t = await startTestKernel({ plugins: ['data', 'content', 'assets', 'bundles'], ownDataDir: true });
    admin = await t.admin();
    const ok = async (res: ReturnType<TestKernel['call']>, status = 200) => {
      const answer = await res;
      expect(answer.statusCode, answer.body).to.equal(status);
      return answer.json();
    };
    site = await ok(
      t.call('POST', '/cms-one/websites', admin, { name: 'Drafts', rootPath: '/wc', locales: ['en'] }),
      201,
    );
    const page = await ok(
      t.call('POST', '/cms-one/pages', admin, {
        websiteId: site.id,
        locale: 'en',
        path: '/home',
        title: 'Home',
        published: true,
        content: { type: 'p', text: 'Live text' },
      }),
      201,
    );
    await ok(
      t.call('PATCH', `/cms-one/pages/${page.id}?draft=true`, admin, { content: { type: 'p', text: 'Draft text' } }),
    );
    const layout = await ok(
      t.call('POST', `/cms-one/websites/${site.id}/templates`, admin, {
        name: 'Main',
        isDefault: true,
        regions: { header: { type: 'p', text: 'Live header' } },
      }),
      201,
    );
    await ok(
      t.call('PATCH', `/cms-one/websites/${site.id}/templates/${layout.id}?draft=true`, admin, {
        regions: { header: { type: 'p', text: 'Draft header' } },
      }),
    );
  });
  after(() => t?.close());

  const exportManifest = async (query: string) => {
    const res = await t.inject({
      method: 'GET',
      url: `/cms-one/websites/${site.id}/export${query}`,
      headers: { cookie: admin.cookie },
    });
    expect(res.statusCode, res.body).to.equal(200);
    return JSON.parse((await readZip(res.rawPayload)).get('bundle.json')!.toString());
  };

  it('exports live records only, unless ?drafts=1 asks for the working copies too', async () => {
    const plain = await exportManifest('');
    expect(plain.pages[0].content.text).to.equal('Live text');
    expect(plain.pages[0]).to.not.have.property('workingCopy');
    manifest = await exportManifest('?drafts=1');
    expect(manifest.pages[0].content).to.deep.equal({ type: 'p', text: 'Live text' });
    expect((manifest.pages[0].workingCopy as { content: unknown }).content).to.deep.equal({
      type: 'p',
      text: 'Draft text',
    });
    const layout = (manifest.websiteTemplates as Array<{ workingCopy: { regions: { header: { text: string } } } }>)[0];
    expect(layout.workingCopy.regions.header.text).to.equal('Draft header');
  });

  it('an import stores the working copies; the site shows the live text; a publish makes the copy live', async () => {
    const res = await t.call('POST', '/cms-one/websites/import?rootPath=/wc2', admin, manifest);
    expect(res.statusCode, res.body).to.equal(201);
    expect(res.json().created.workingCopies).to.equal(2);
    const pub = await t.call('GET', '/public/pages/en/wc2/home', null);
    expect(pub.json().content.text).to.equal('Live text');
    const imported = await t.db('content_pages').where({ path: '/home' }).whereNot({ website_id: site.id }).first();
    const staff = (await t.call('GET', `/cms-one/pages/${imported.id}`, admin)).json();
    expect(staff.content.text).to.equal('Draft text');
    expect(staff.draft.updatedBy).to.equal(admin.id);
    expect((await t.call('POST', `/cms-one/pages/${imported.id}/publish-draft`, admin)).statusCode).to.equal(200);
    expect((await t.call('GET', '/public/pages/en/wc2/home', null)).json().content.text).to.equal('Draft text');
  });

  it('a working copy passes the same rules as a record: script in a copy is refused, nothing written', async () => {
    const bad = structuredClone(manifest);
    (bad.pages[0].workingCopy as Record<string, unknown>).content = { type: 'script', text: 'alert(1)' };
    const before = await t.db('content_websites').count('* as n');
    const res = await t.call('POST', '/cms-one/websites/import?rootPath=/wc3', admin, bad);
    expect(res.statusCode, res.body).to.equal(400);
    expect(res.json().field).to.include('pages.0.content');
    expect(res.json().field).to.include('workingCopy');
    expect(await t.db('content_websites').count('* as n')).to.deep.equal(before);
    const badPath = structuredClone(manifest);
    (badPath.pages[0].workingCopy as Record<string, unknown>).title = '';
    expect(
      (await t.call('POST', '/cms-one/websites/import?rootPath=/wc3&dryRun=1', admin, badPath)).statusCode,
    ).to.equal(400);
    const notObject = structuredClone(manifest);
    notObject.pages[0].workingCopy = 'text';
    expect((await t.call('POST', '/cms-one/websites/import?rootPath=/wc3', admin, notObject)).statusCode).to.equal(400);
  });
});
