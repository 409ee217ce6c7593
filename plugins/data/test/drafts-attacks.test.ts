import { expect } from 'chai';
import { auditRows } from '../../../test/helpers/kernel.ts';
import { startDataKernel, type DataKernel } from './data-kernel.ts';

/**
 * Attacks on the working-copy routes of objects: publishing without the right, discarding someone
 * else's copy or without the right to edit, and two promotes (or a promote and a discard) at once.
 */
describe('data: working copies under attack', () => {
  let k: DataKernel;
  let cls: { id: string; name: string };
  before(async () => {
    k = await startDataKernel();
    cls = await k.createClass([
      { name: 'title', type: 'text' },
      { name: 'price', type: 'number' },
    ]);
  });
  after(() => k.t.close());

  const drafted = async (title: string) => {
    const obj = await k.createObject({ classId: cls.id, published: true, attributes: { title: 'Live', price: 1 } });
    const saved = await k.call('PATCH', `/data-objects/${obj.id}`, k.editor, { attributes: { title, price: 2 } });
    expect(saved.json().draft.updatedBy).to.equal(k.editor.id);
    return obj.id as string;
  };
  const live = async (id: string) => (await k.call('GET', `/public/data-objects/${id}`, null)).json().attributes;
  const copies = async (id: string) => k.t.db('data_object_drafts').where({ object_id: id });

  it('an editor without objects:publish gets 403 on publish-draft, also with ?draft=false tricks; nothing changes', async () => {
    const id = await drafted('Sneaky');
    for (const url of [`/data-objects/${id}/publish-draft`, `/data-objects/${id}/publish-draft?draft=false`]) {
      const denied = await k.call('POST', url, k.editor);
      expect(denied.statusCode, denied.body).to.equal(403);
      expect(denied.json().code).to.equal('PUBLISH_FORBIDDEN');
    }
    // Sending `published: true` again (it is published) changes nothing live: the content still waits.
    const patch = await k.call('PATCH', `/data-objects/${id}`, k.editor, { published: true, attributes: {} });
    expect(patch.statusCode, patch.body).to.equal(200);
    expect(patch.json().draft).to.be.an('object');
    // Unpublishing is a publish action: refused.
    const off = await k.call('PATCH', `/data-objects/${id}`, k.editor, { published: false });
    expect(off.statusCode, off.body).to.equal(403);
    expect(await live(id)).to.deep.equal({ title: 'Live', price: 1 });
    expect(await copies(id)).to.have.length(1);
    expect(await auditRows(k.t, 'data_object.publish_draft', id)).to.have.length(0);
    expect((await k.call('POST', `/data-objects/${id}/publish-draft`, k.reader)).statusCode).to.equal(403);
    expect((await k.call('POST', `/data-objects/${id}/publish-draft`, null)).statusCode).to.equal(401);
  });

  it('a save that sends key: null and parentId: null (as the dashboard form does) stores the working copy', async () => {
    const obj = await k.createObject({ classId: cls.id, published: true, attributes: { title: 'Live' } });
    const saved = await k.call('PATCH', `/data-objects/${obj.id}`, k.editor, {
      key: null,
      parentId: null,
      attributes: { title: 'Form save' },
    });
    expect(saved.statusCode, saved.body).to.equal(200);
    expect(saved.json()).to.deep.include({ key: null, parentId: null });
    expect(saved.json().draft.updatedBy).to.equal(k.editor.id);
    expect(await live(obj.id)).to.deep.equal({ title: 'Live' });
  });

  it('another editor may discard a copy (audited as that editor); a reader or a stranger may not', async () => {
    const id = await drafted('Mine');
    expect((await k.call('DELETE', `/data-objects/${id}/draft`, k.reader)).statusCode).to.equal(403);
    expect((await k.call('DELETE', `/data-objects/${id}/draft`, null)).statusCode).to.equal(401);
    expect(await copies(id)).to.have.length(1);
    const other = await k.t.createUser({ permissions: ['objects:read', 'objects:write'] });
    const gone = await k.call('DELETE', `/data-objects/${id}/draft`, other);
    expect(gone.statusCode, gone.body).to.equal(204);
    expect(await copies(id)).to.have.length(0);
    expect(await live(id)).to.deep.equal({ title: 'Live', price: 1 });
    const [audit] = await auditRows(k.t, 'data_object.discard_draft', id);
    expect(audit.actor_id).to.equal(other.id);
    expect(JSON.stringify(audit.before)).to.include(k.editor.id);
  });

  it('two promotes at once: one wins, the other answers 404, one event and one audit row, the whole copy live', async () => {
    for (let round = 0; round < 3; round++) {
      const id = await drafted(`Twice ${round}`);
      k.clearEvents();
      const answers = await Promise.all([
        k.call('POST', `/data-objects/${id}/publish-draft`, k.publisher),
        k.call('POST', `/data-objects/${id}/publish-draft`, k.admin),
      ]);
      expect(answers.map((a) => a.statusCode).sort()).to.deep.equal([200, 404]);
      expect(answers.find((a) => a.statusCode === 404)!.json().code).to.equal('DRAFT_NOT_FOUND');
      expect(await live(id)).to.deep.equal({ title: `Twice ${round}`, price: 2 });
      expect(await copies(id)).to.have.length(0);
      expect(k.events.filter((e) => e.kind === 'updated')).to.have.length(1);
      expect(await auditRows(k.t, 'data_object.publish_draft', id)).to.have.length(1);
    }
  });

  it('a promote and a discard at once: exactly one happens, the live row is either all old or all new', async () => {
    for (let round = 0; round < 4; round++) {
      const id = await drafted(`Race ${round}`);
      const [promote, discard] = await Promise.all([
        k.call('POST', `/data-objects/${id}/publish-draft`, k.publisher),
        k.call('DELETE', `/data-objects/${id}/draft`, k.editor),
      ]);
      const statuses = [promote.statusCode, discard.statusCode];
      expect([
        [200, 404],
        [404, 204],
      ]).to.deep.include(statuses);
      expect(await live(id)).to.deep.equal(
        promote.statusCode === 200 ? { title: `Race ${round}`, price: 2 } : { title: 'Live', price: 1 },
      );
      expect(await copies(id)).to.have.length(0);
    }
  });
});
