import { expect } from 'chai';
import { auditRows } from '../../../test/helpers/kernel.ts';
import { startContentKernel, type ContentKernel } from './content-kernel.ts';

const tree = (text: string) => ({ type: 'section', children: [{ type: 'p', text }] });

describe('content: working copies of published pages', () => {
  let k: ContentKernel;
  let site: { id: string; rootPath: string };
  before(async () => {
    k = await startContentKernel();
    site = await k.createWebsite();
  });
  after(() => k.t.close());

  const publicText = async (path: string) => {
    const res = await k.call('GET', `/public/pages/en${site.rootPath}${path}`, null);
    return res.json().content.children[0].text as string;
  };
  const publishedPage = (path: string) => k.createPage({ websiteId: site.id, path, published: true });

  it('an editor saves a working copy of a published page; the site keeps the live one', async () => {
    const page = await publishedPage('/draft-one');
    k.clearEvents();
    const saved = await k.call('PATCH', `/cms-one/pages/${page.id}`, k.editor, {
      content: tree('Half typed'),
      title: 'New title',
    });
    expect(saved.statusCode).to.equal(200);
    expect(saved.json().content.children[0].text).to.equal('Half typed');
    expect(saved.json().draft.updatedBy).to.equal(k.editor.id);
    expect(saved.headers.etag).to.equal(`"${saved.json().updatedAt}"`);
    expect(k.events).to.have.length(0);
    expect(await publicText('/draft-one')).to.equal('Hello');

    const staff = await k.call('GET', `/cms-one/pages/${page.id}`, k.reader);
    expect(staff.json().title).to.equal('New title');
    expect(staff.headers.etag).to.equal(saved.headers.etag);
    const live = (await k.call('GET', `/cms-one/pages/${page.id}?version=live`, k.reader)).json();
    expect(live.title).to.equal('A page');
    expect(live).to.not.have.property('draft');

    // The next autosave sends the tag it got; an older one is refused as an edit conflict.
    const next = await k.call(
      'PATCH',
      `/cms-one/pages/${page.id}`,
      k.editor,
      { content: tree('Typed') },
      { 'if-match': saved.headers.etag as string },
    );
    expect(next.statusCode).to.equal(200);
    const stale = await k.call(
      'PATCH',
      `/cms-one/pages/${page.id}`,
      k.editor,
      { content: tree('Lost') },
      { 'if-match': saved.headers.etag as string },
    );
    expect(stale.statusCode).to.equal(412);

    const diff = (await k.call('GET', `/cms-one/pages/${page.id}/draft/diff`, k.reader)).json();
    expect(diff.changed).to.deep.equal(['title', 'content']);
    expect(diff.fields).to.deep.equal([{ field: 'title', live: 'A page', draft: 'New title' }]);
    expect(diff.content.changed).to.have.length.greaterThan(0);

    const pending = (await k.call('GET', '/cms-one/drafts?ownerType=page', k.reader)).json();
    expect(pending.drafts.map((d: { id: string }) => d.id)).to.include(page.id);
  });

  it('publish-draft needs objects:publish, makes the copy live and is audited; discard keeps live', async () => {
    const page = await publishedPage('/draft-two');
    await k.call('PATCH', `/cms-one/pages/${page.id}`, k.editor, { content: tree('Reviewed') });
    const denied = await k.call('POST', `/cms-one/pages/${page.id}/publish-draft`, k.editor);
    expect(denied.statusCode).to.equal(403);
    expect(denied.json().code).to.equal('PUBLISH_FORBIDDEN');
    k.clearEvents();
    const done = await k.call('POST', `/cms-one/pages/${page.id}/publish-draft`, k.publisher);
    expect(done.statusCode).to.equal(200);
    expect(done.json()).to.not.have.property('draft');
    expect(k.events.map((e) => [e.kind, e.changedFields])).to.deep.equal([['updated', ['content']]]);
    expect(await publicText('/draft-two')).to.equal('Reviewed');
    const [audit] = await auditRows(k.t, 'page.publish_draft', page.id);
    expect(audit.actor_id).to.equal(k.publisher.id);
    // The prior live state is a version, as with any save.
    expect((await k.call('GET', `/cms-one/pages/${page.id}/versions`, k.reader)).json()).to.have.length(1);

    await k.call('PATCH', `/cms-one/pages/${page.id}`, k.editor, { content: tree('Unwanted') });
    expect((await k.call('DELETE', `/cms-one/pages/${page.id}/draft`, k.editor)).statusCode).to.equal(204);
    expect((await k.call('GET', `/cms-one/pages/${page.id}`, k.reader)).json().content.children[0].text).to.equal(
      'Reviewed',
    );
    expect((await k.call('DELETE', `/cms-one/pages/${page.id}/draft`, k.editor)).json().code).to.equal(
      'DRAFT_NOT_FOUND',
    );
    expect(await auditRows(k.t, 'page.discard_draft', page.id)).to.have.length(1);
  });

  it('a publisher saves live as before, or to the working copy with ?draft=true; unpublished pages are edited in place', async () => {
    const page = await publishedPage('/draft-three');
    const live = await k.call('PATCH', `/cms-one/pages/${page.id}`, k.publisher, { content: tree('Live edit') });
    expect(live.json()).to.not.have.property('draft');
    expect(await publicText('/draft-three')).to.equal('Live edit');
    const drafted = await k.call('PATCH', `/cms-one/pages/${page.id}?draft=true`, k.publisher, {
      content: tree('Later'),
    });
    expect(drafted.json().draft.updatedBy).to.equal(k.publisher.id);
    expect(await publicText('/draft-three')).to.equal('Live edit');

    const unpublished = await k.createPage({ websiteId: site.id, path: '/draft-four' }, k.editor);
    const edited = await k.call('PATCH', `/cms-one/pages/${unpublished.id}`, k.editor, { content: tree('In place') });
    expect(edited.json()).to.not.have.property('draft');
    expect(
      (await k.call('GET', `/cms-one/pages/${unpublished.id}?version=live`, k.reader)).json().content,
    ).to.deep.equal(tree('In place'));
  });

  it('a path change waits in the working copy; the canvas draws the working copy; deleting the page removes it', async () => {
    const page = await publishedPage('/draft-five');
    await k.call('PATCH', `/cms-one/pages/${page.id}`, k.editor, { path: '/draft-moved', content: tree('Moved') });
    expect(await publicText('/draft-five')).to.equal('Hello');
    expect((await k.call('GET', `/public/pages/en${site.rootPath}/draft-moved`, null)).statusCode).to.equal(404);
    const canvas = await k.call('POST', `/cms-one/pages/${page.id}/canvas`, k.reader, {});
    expect(canvas.body).to.include('Moved');
    const refused = await k.call('PATCH', `/cms-one/pages/${page.id}`, k.editor, { path: 'no-slash' });
    expect(refused.statusCode).to.equal(400);
    expect((await k.call('DELETE', `/cms-one/pages/${page.id}`, k.publisher)).statusCode).to.equal(204);
    expect(await k.t.db('content_drafts').where({ owner_id: page.id })).to.have.length(0);
  });

  it('a snippet saved by an editor (or with ?draft=true) keeps its live content on the site until a publisher publishes it', async () => {
    const snippet = (
      await k.call('POST', '/cms-one/snippets', k.publisher, {
        name: 'Footer',
        content: { type: 'p', text: 'Live footer' },
      })
    ).json();
    const publicSnippet = async () => (await k.call('GET', `/public/snippets/${snippet.id}`, null)).json().content.text;
    const saved = await k.call('PATCH', `/cms-one/snippets/${snippet.id}`, k.editor, {
      content: { type: 'p', text: 'Next footer' },
    });
    expect(saved.statusCode).to.equal(200);
    expect(saved.json().content.text).to.equal('Next footer');
    expect(saved.json().draft.updatedBy).to.equal(k.editor.id);
    expect(await publicSnippet()).to.equal('Live footer');
    expect(
      (await k.call('GET', `/cms-one/snippets/${snippet.id}?version=live`, k.reader)).json().content.text,
    ).to.equal('Live footer');
    const diff = (await k.call('GET', `/cms-one/snippets/${snippet.id}/draft/diff`, k.reader)).json();
    expect(diff.changed).to.deep.equal(['content']);
    const refused = await k.call('POST', `/cms-one/snippets/${snippet.id}/publish-draft`, k.editor);
    expect(refused.statusCode).to.equal(403);
    expect(refused.json().code).to.equal('PUBLISH_FORBIDDEN');
    const done = await k.call('POST', `/cms-one/snippets/${snippet.id}/publish-draft`, k.publisher);
    expect(done.statusCode).to.equal(200);
    expect(await publicSnippet()).to.equal('Next footer');
    expect(await auditRows(k.t, 'snippet.publish_draft', snippet.id)).to.have.length(1);
    // A publisher's ?draft=true keeps live; without it a publisher's save goes live as before.
    await k.call('PATCH', `/cms-one/snippets/${snippet.id}?draft=true`, k.publisher, {
      content: { type: 'p', text: 'Later' },
    });
    expect(await publicSnippet()).to.equal('Next footer');
    await k.call('PATCH', `/cms-one/snippets/${snippet.id}`, k.publisher, { content: { type: 'p', text: 'Direct' } });
    expect(await publicSnippet()).to.equal('Direct');
    // The live save was carried into the copy, which then equalled live and went away.
    expect((await k.call('DELETE', `/cms-one/snippets/${snippet.id}/draft`, k.editor)).json().code).to.equal(
      'DRAFT_NOT_FOUND',
    );
  });

  it('translation groups keep working with drafts: each language has its own working copy', async () => {
    const en = await publishedPage('/group-en');
    const de = await k.createPage({
      websiteId: site.id,
      locale: 'de',
      path: '/group-de',
      published: true,
      translationGroupId: en.translationGroupId,
    });
    await k.call('PATCH', `/cms-one/pages/${en.id}`, k.editor, { content: tree('English draft') });
    await k.call('PATCH', `/cms-one/pages/${de.id}`, k.editor, { title: 'Deutscher Entwurf' });
    const pending = (await k.call('GET', '/cms-one/drafts?ownerType=page&limit=500', k.reader)).json().drafts;
    expect(pending.filter((d: { id: string }) => d.id === en.id || d.id === de.id)).to.have.length(2);
    // The group reads live; each staff read shows its own copy only.
    const group = (await k.call('GET', `/cms-one/pages/${en.id}/translations`, k.reader)).json();
    expect(group.map((p: { locale: string }) => p.locale).sort()).to.deep.equal(['de', 'en']);
    expect(group.find((p: { locale: string }) => p.locale === 'de').title).to.equal('A page');
    expect((await k.call('GET', `/cms-one/pages/${de.id}`, k.reader)).json().title).to.equal('Deutscher Entwurf');
    expect((await k.call('GET', `/cms-one/pages/${de.id}`, k.reader)).json().content.children[0].text).to.equal(
      'Hello',
    );
    // Publishing one language leaves the other's copy waiting.
    expect((await k.call('POST', `/cms-one/pages/${en.id}/publish-draft`, k.publisher)).statusCode).to.equal(200);
    expect(await publicText('/group-en')).to.equal('English draft');
    expect((await k.call('GET', `/public/pages/de${site.rootPath}/group-de`, null)).json().title).to.equal('A page');
    const deCopy = (await k.call('GET', `/cms-one/pages/${de.id}`, k.reader)).json();
    expect(deCopy.draft).to.be.an('object');
    expect(deCopy.translationGroupId).to.equal(en.translationGroupId);
    expect((await k.call('GET', `/cms-one/pages/${en.id}`, k.reader)).json()).to.not.have.property('draft');
  });
});
