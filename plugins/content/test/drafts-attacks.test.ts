import { expect } from 'chai';
import { auditRows } from '../../../test/helpers/kernel.ts';
import { startContentKernel, type ContentKernel } from './content-kernel.ts';

const tree = (text: string) => ({ type: 'section', children: [{ type: 'p', text }] });

/**
 * Attacks on the working-copy routes of pages: publishing without the right, discarding someone
 * else's copy or without the right to edit, and two promotes (or a promote and a discard) at once.
 */
describe('content: working copies of pages under attack', () => {
  let k: ContentKernel;
  let site: { id: string; rootPath: string };
  let n = 0;
  before(async () => {
    k = await startContentKernel();
    site = await k.createWebsite();
  });
  after(() => k.t.close());

  const drafted = async (text: string) => {
    const path = `/attack-${n++}`;
    const page = await k.createPage({ websiteId: site.id, path, published: true, content: tree('Live') });
    const saved = await k.call('PATCH', `/cms-one/pages/${page.id}`, k.editor, { content: tree(text), title: text });
    expect(saved.json().draft.updatedBy).to.equal(k.editor.id);
    return { id: page.id as string, path };
  };
  const live = async (path: string) => {
    const res = await k.call('GET', `/public/pages/en${site.rootPath}${path}`, null);
    return [res.json().title, res.json().content.children[0].text];
  };
  const copies = async (id: string) => k.t.db('content_drafts').where({ owner_id: id });

  it('an editor without objects:publish gets 403 on publish-draft; the site keeps the live page', async () => {
    const { id, path } = await drafted('Sneaky');
    const before = await live(path);
    const denied = await k.call('POST', `/cms-one/pages/${id}/publish-draft`, k.editor);
    expect(denied.statusCode, denied.body).to.equal(403);
    expect(denied.json().code).to.equal('PUBLISH_FORBIDDEN');
    expect((await k.call('POST', `/cms-one/pages/${id}/publish-draft`, k.reader)).statusCode).to.equal(403);
    expect((await k.call('POST', `/cms-one/pages/${id}/publish-draft`, null)).statusCode).to.equal(401);
    expect(await live(path)).to.deep.equal(before);
    expect(before[1]).to.equal('Live');
    expect(await copies(id)).to.have.length(1);
    expect(await auditRows(k.t, 'page.publish_draft', id)).to.have.length(0);
  });

  it('another editor may discard a copy (audited as that editor); a reader or a stranger may not', async () => {
    const { id, path } = await drafted('Mine');
    expect((await k.call('DELETE', `/cms-one/pages/${id}/draft`, k.reader)).statusCode).to.equal(403);
    expect((await k.call('DELETE', `/cms-one/pages/${id}/draft`, null)).statusCode).to.equal(401);
    expect(await copies(id)).to.have.length(1);
    const other = await k.t.createUser({ permissions: ['objects:read', 'objects:write'] });
    const gone = await k.call('DELETE', `/cms-one/pages/${id}/draft`, other);
    expect(gone.statusCode, gone.body).to.equal(204);
    expect(await copies(id)).to.have.length(0);
    expect((await live(path))[1]).to.equal('Live');
    const [audit] = await auditRows(k.t, 'page.discard_draft', id);
    expect(audit.actor_id).to.equal(other.id);
  });

  it('two promotes at once: one wins, the other answers 404; one event, one audit row, title and content live', async () => {
    for (let round = 0; round < 3; round++) {
      const { id, path } = await drafted(`Twice ${round}`);
      k.clearEvents();
      const answers = await Promise.all([
        k.call('POST', `/cms-one/pages/${id}/publish-draft`, k.publisher),
        k.call('POST', `/cms-one/pages/${id}/publish-draft`, k.admin),
      ]);
      expect(answers.map((a) => a.statusCode).sort()).to.deep.equal([200, 404]);
      expect(answers.find((a) => a.statusCode === 404)!.json().code).to.equal('DRAFT_NOT_FOUND');
      expect(await live(path)).to.deep.equal([`Twice ${round}`, `Twice ${round}`]);
      expect(await copies(id)).to.have.length(0);
      expect(k.events.filter((e) => e.kind === 'updated')).to.have.length(1);
      expect(await auditRows(k.t, 'page.publish_draft', id)).to.have.length(1);
    }
  });

  it('a promote and a discard at once: exactly one happens, the page is either all old or all new', async () => {
    for (let round = 0; round < 4; round++) {
      const { id, path } = await drafted(`Race ${round}`);
      const before = await live(path);
      const [promote, discard] = await Promise.all([
        k.call('POST', `/cms-one/pages/${id}/publish-draft`, k.publisher),
        k.call('DELETE', `/cms-one/pages/${id}/draft`, k.editor),
      ]);
      expect([
        [200, 404],
        [404, 204],
      ]).to.deep.include([promote.statusCode, discard.statusCode]);
      expect(await live(path)).to.deep.equal(promote.statusCode === 200 ? [`Race ${round}`, `Race ${round}`] : before);
      expect(await copies(id)).to.have.length(0);
    }
  });
});
