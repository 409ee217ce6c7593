import { expect } from 'chai';
import { auditRows } from '../../../test/helpers/kernel.ts';
import { startContentKernel, type ContentKernel } from './content-kernel.ts';

const BROWSER = { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' };

describe('content: working copies of templates and layouts', () => {
  let k: ContentKernel;
  before(async () => {
    k = await startContentKernel();
  });
  after(() => k.t.close());

  const ok = async (res: ReturnType<ContentKernel['call']>, status = 200) => {
    const answer = await res;
    expect(answer.statusCode, answer.body).to.equal(status);
    return answer;
  };

  it('a template saved by an editor changes its working copy; diff, live read, publish by a publisher, discard', async () => {
    const path = `/t-${k.unique('x')}`;
    const created = (
      await ok(
        k.call('POST', '/cms-one/templates', k.editor, { path, name: 'Landing', content: { type: 'p', text: 'Live' } }),
        201,
      )
    ).json();
    const url = `/cms-one/templates/${created.id}`;
    const saved = await ok(k.call('PATCH', url, k.editor, { name: 'Landing 2', content: { type: 'p', text: 'Next' } }));
    expect(saved.json().name).to.equal('Landing 2');
    expect(saved.json().draft.updatedBy).to.equal(k.editor.id);
    expect(saved.headers.etag).to.equal(`"${saved.json().updatedAt}"`);

    const staff = (await ok(k.call('GET', url, k.reader))).json();
    expect(staff.content.text).to.equal('Next');
    const live = (await ok(k.call('GET', `${url}?version=live`, k.reader))).json();
    expect(live).to.include({ name: 'Landing' });
    expect(live.content.text).to.equal('Live');
    expect(live).to.not.have.property('draft');
    // The list (what the editor's template picker reads) is live.
    const listed = (await ok(k.call('GET', '/cms-one/templates?limit=500', k.reader))).json();
    expect(listed.find((t: { id: string }) => t.id === created.id).name).to.equal('Landing');

    const diff = (await ok(k.call('GET', `${url}/draft/diff`, k.reader))).json();
    expect(diff.changed).to.deep.equal(['name', 'content']);
    expect(diff.fields).to.deep.equal([{ field: 'name', live: 'Landing', draft: 'Landing 2' }]);
    expect(diff.content.changed).to.deep.equal(['content']);

    // A stale If-Match is refused; the editor may not publish.
    expect(
      (await k.call('PATCH', url, k.editor, { name: 'x' }, { 'if-match': `"${live.updatedAt}"` })).statusCode,
    ).to.equal(412);
    const refused = await k.call('POST', `${url}/publish-draft`, k.editor);
    expect(refused.statusCode).to.equal(403);
    expect(refused.json().code).to.equal('PUBLISH_FORBIDDEN');
    expect((await k.call('POST', `${url}/publish-draft`, k.reader)).statusCode).to.equal(403);

    const done = await ok(k.call('POST', `${url}/publish-draft`, k.publisher));
    expect(done.json()).to.include({ name: 'Landing 2' });
    expect(done.json()).to.not.have.property('draft');
    expect((await ok(k.call('GET', `${url}?version=live`, k.reader))).json().content.text).to.equal('Next');
    const [audit] = await auditRows(k.t, 'template.publish_draft', created.id);
    expect(audit.after.changed).to.deep.equal(['name', 'content']);
    expect((await k.call('GET', `${url}/draft/diff`, k.reader)).json().code).to.equal('DRAFT_NOT_FOUND');

    // A publisher's save goes live unless it asks for ?draft=true; a discard keeps live.
    await ok(k.call('PATCH', url, k.publisher, { name: 'Direct' }));
    expect((await ok(k.call('GET', `${url}?version=live`, k.reader))).json().name).to.equal('Direct');
    await ok(k.call('PATCH', `${url}?draft=true`, k.publisher, { name: 'Later' }));
    expect((await ok(k.call('GET', `${url}?version=live`, k.reader))).json().name).to.equal('Direct');
    expect((await k.call('DELETE', `${url}/draft`, k.reader)).statusCode).to.equal(403);
    expect((await k.call('DELETE', `${url}/draft`, k.editor)).statusCode).to.equal(204);
    expect((await ok(k.call('GET', url, k.reader))).json()).to.not.have.property('draft');
    expect(await auditRows(k.t, 'template.discard_draft', created.id)).to.have.length(1);
    expect((await k.call('DELETE', `${url}/draft`, k.editor)).json().code).to.equal('DRAFT_NOT_FOUND');

    // Bad input in a working copy is refused as a live save is, and nothing is stored.
    const bad = await k.call('PATCH', url, k.editor, { path: 'no-slash' });
    expect(bad.statusCode).to.equal(400);
    expect(await k.t.db('content_drafts').where({ owner_id: created.id })).to.have.length(0);
    // A copy whose path another template took meanwhile is a 409 at publish, live unchanged.
    const other = `/t-${k.unique('y')}`;
    await ok(k.call('PATCH', url, k.editor, { path: other }));
    await ok(k.call('POST', '/cms-one/templates', k.publisher, { path: other, name: 'Taken' }), 201);
    const taken = await k.call('POST', `${url}/publish-draft`, k.publisher);
    expect(taken.statusCode).to.equal(409);
    expect((await ok(k.call('GET', `${url}?version=live`, k.reader))).json().path).to.equal(path);
    // Deleting the template removes its copy.
    await ok(k.call('DELETE', url, k.publisher), 204);
    expect(await k.t.db('content_drafts').where({ owner_id: created.id })).to.have.length(0);
    expect((await k.call('POST', `${url}/publish-draft`, k.publisher)).statusCode).to.equal(404);
  });

  it("a layout saved by an editor keeps the site's pages in the live layout until a publisher publishes it", async () => {
    const site = await k.createWebsite();
    const base = `/cms-one/websites/${site.id}/templates`;
    const layout = (
      await ok(
        k.call('POST', base, k.editor, {
          name: 'Main',
          isDefault: true,
          regions: { header: { type: 'p', text: 'Live header' } },
        }),
        201,
      )
    ).json();
    const home = await k.createPage({ websiteId: site.id, path: '/home', published: true });
    const siteHtml = async () =>
      (await ok(k.call('GET', `/public/pages/en${site.rootPath}/home`, null, undefined, BROWSER))).body;
    expect(await siteHtml()).to.include('Live header');

    const url = `${base}/${layout.id}`;
    const saved = await ok(
      k.call('PATCH', url, k.editor, {
        regions: { header: { type: 'p', text: 'Next header' }, footer: { type: 'p', text: 'New footer' } },
        pathPatterns: ['/home'],
      }),
    );
    expect(saved.json().regions.header.text).to.equal('Next header');
    expect(saved.json().draft.updatedBy).to.equal(k.editor.id);
    expect(await siteHtml()).to.include('Live header');
    expect(await siteHtml()).to.not.include('New footer');
    // The editor's canvas is a staff preview: the page drawn in the layout's working copy.
    const canvas = (await ok(k.call('POST', `/cms-one/pages/${home.id}/canvas`, k.editor, {}))).body;
    expect(canvas).to.include('Next header').and.include('New footer').and.not.include('Live header');
    expect((await ok(k.call('GET', `${url}?version=live`, k.reader))).json().pathPatterns).to.deep.equal([]);
    // The list the site directory reads is live; the layout a page resolves to too.
    expect((await ok(k.call('GET', base, k.reader))).json()[0].regions.header.text).to.equal('Live header');

    const diff = (await ok(k.call('GET', `${url}/draft/diff`, k.reader))).json();
    expect(diff.changed).to.deep.equal(['regions', 'pathPatterns']);
    expect(diff.fields).to.deep.equal([{ field: 'pathPatterns', live: [], draft: ['/home'] }]);
    expect(diff.content).to.deep.equal({
      added: ['regions.footer.content'],
      removed: [],
      changed: ['regions.header.content'],
    });
    const pending = (await ok(k.call('GET', '/cms-one/drafts?ownerType=layout', k.reader))).json();
    expect(pending.drafts.map((d: { id: string }) => d.id)).to.include(layout.id);

    expect((await k.call('POST', `${url}/publish-draft`, k.editor)).statusCode).to.equal(403);
    // The layout must belong to the website named in the path.
    const otherSite = await k.createWebsite();
    expect(
      (await k.call('POST', `/cms-one/websites/${otherSite.id}/templates/${layout.id}/publish-draft`, k.publisher))
        .statusCode,
    ).to.equal(404);
    await ok(k.call('POST', `${url}/publish-draft`, k.publisher));
    const after = await siteHtml();
    expect(after).to.include('Next header');
    expect(after).to.include('New footer');
    expect(await auditRows(k.t, 'layout.publish_draft', layout.id)).to.have.length(1);

    // A bad region is refused in a working copy as live; a publisher's ?draft=true then discard.
    expect((await k.call('PATCH', url, k.editor, { regions: { sidebar: { type: 'p' } } })).statusCode).to.equal(400);
    await ok(k.call('PATCH', `${url}?draft=true`, k.publisher, { name: 'Renamed' }));
    expect((await ok(k.call('GET', `${url}?version=live`, k.reader))).json().name).to.equal('Main');
    await ok(k.call('DELETE', `${url}/draft`, k.editor), 204);
    expect((await ok(k.call('GET', url, k.reader))).json().name).to.equal('Main');
  });
});
