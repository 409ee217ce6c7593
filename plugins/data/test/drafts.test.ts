import { expect } from 'chai';
import { auditRows } from '../../../test/helpers/kernel.ts';
import { startDataKernel, type DataKernel } from './data-kernel.ts';

describe('data: working copies of published objects', () => {
  let k: DataKernel;
  let cls: { id: string; name: string };
  before(async () => {
    k = await startDataKernel();
    cls = await k.createClass([
      { name: 'title', type: 'text', required: true, localized: true },
      { name: 'price', type: 'number' },
      { name: 'code', type: 'text', unique: true },
    ]);
  });
  after(() => k.t.close());

  const publicTitle = async (id: string) =>
    (await k.call('GET', `/public/data-objects/${id}`, null)).json().attributes.title as string;
  const published = (attributes: Record<string, unknown>, key?: string) =>
    k.createObject({ classId: cls.id, published: true, attributes, ...(key ? { key } : {}) });

  it('an editor without objects:publish saves a working copy; the live version is unchanged and nothing is announced', async () => {
    const obj = await published({ title: 'Live', price: 1 });
    k.clearEvents();
    const saved = await k.call('PATCH', `/data-objects/${obj.id}`, k.editor, { attributes: { title: 'Draft' } });
    expect(saved.statusCode).to.equal(200);
    expect(saved.json().attributes).to.deep.equal({ title: 'Draft', price: 1 });
    expect(saved.json().draft).to.include({ updatedBy: k.editor.id });
    expect(saved.json().draft.updatedAt).to.be.a('string');
    expect(k.events).to.have.length(0);
    expect(await publicTitle(obj.id)).to.equal('Live');

    const staff = (await k.call('GET', `/data-objects/${obj.id}`, k.reader)).json();
    expect(staff.attributes.title).to.equal('Draft');
    expect(staff.draft.updatedBy).to.equal(k.editor.id);
    const live = (await k.call('GET', `/data-objects/${obj.id}?version=live`, k.reader)).json();
    expect(live.attributes.title).to.equal('Live');
    expect(live).to.not.have.property('draft');
    // The client-facing list and batch read live only.
    const batch = (await k.call('GET', `/public/data-objects/batch?ids=${obj.id}`, null)).json();
    expect(batch.objects[0].attributes.title).to.equal('Live');

    const diff = await k.call('GET', `/data-objects/${obj.id}/draft/diff`, k.reader);
    expect(diff.statusCode).to.equal(200);
    expect(diff.json()).to.deep.equal({
      changed: ['title'],
      fields: [{ field: 'title', live: 'Live', draft: 'Draft' }],
    });

    const pending = (await k.call('GET', '/data-objects/drafts', k.reader)).json();
    expect(pending.drafts.map((d: { objectId: string }) => d.objectId)).to.include(obj.id);
  });

  it('publish-draft needs objects:publish, makes the copy live, emits object.updated with the changed fields and is audited', async () => {
    const obj = await published({ title: 'Old', price: 1 }, 'promoted');
    await k.call('PATCH', `/data-objects/${obj.id}`, k.editor, { attributes: { title: 'New', price: null } });
    const denied = await k.call('POST', `/data-objects/${obj.id}/publish-draft`, k.editor);
    expect(denied.statusCode).to.equal(403);
    expect(denied.json().code).to.equal('PUBLISH_FORBIDDEN');
    k.clearEvents();
    const done = await k.call('POST', `/data-objects/${obj.id}/publish-draft`, k.publisher);
    expect(done.statusCode).to.equal(200);
    expect(done.json().attributes).to.deep.equal({ title: 'New' });
    expect(k.events.map((e) => [e.kind, e.changedFields])).to.deep.equal([['updated', ['title', 'price']]]);
    expect(await publicTitle(obj.id)).to.equal('New');
    expect((await k.call('GET', `/data-objects/${obj.id}`, k.reader)).json()).to.not.have.property('draft');
    expect((await k.call('POST', `/data-objects/${obj.id}/publish-draft`, k.publisher)).json().code).to.equal(
      'DRAFT_NOT_FOUND',
    );
    const [audit] = await auditRows(k.t, 'data_object.publish_draft', obj.id);
    expect(audit.actor_id).to.equal(k.publisher.id);
    expect(JSON.stringify(audit.after)).to.include('price');
  });

  it('a publisher saves live as before, or to the working copy with ?draft=true', async () => {
    const obj = await published({ title: 'A' });
    k.clearEvents();
    const live = await k.call('PATCH', `/data-objects/${obj.id}`, k.publisher, { attributes: { title: 'B' } });
    expect(live.json()).to.not.have.property('draft');
    expect(k.events.map((e) => e.kind)).to.deep.equal(['updated']);
    expect(await publicTitle(obj.id)).to.equal('B');
    k.clearEvents();
    const drafted = await k.call('PATCH', `/data-objects/${obj.id}?draft=true`, k.publisher, {
      attributes: { title: 'C' },
    });
    expect(drafted.json().attributes.title).to.equal('C');
    expect(drafted.json().draft.updatedBy).to.equal(k.publisher.id);
    expect(k.events).to.have.length(0);
    expect(await publicTitle(obj.id)).to.equal('B');
    // A live save meanwhile is carried into the working copy, which keeps its own change.
    await k.call('PATCH', `/data-objects/${obj.id}`, k.publisher, { attributes: { price: 5 } });
    const staff = (await k.call('GET', `/data-objects/${obj.id}`, k.reader)).json();
    expect(staff.attributes).to.deep.equal({ title: 'C', price: 5 });
  });

  it('discarding keeps the live version; drafts of never-published objects are edited in place', async () => {
    const obj = await published({ title: 'Keep' });
    await k.call('PATCH', `/data-objects/${obj.id}`, k.editor, { attributes: { title: 'Throw' } });
    const gone = await k.call('DELETE', `/data-objects/${obj.id}/draft`, k.editor);
    expect(gone.statusCode).to.equal(204);
    expect((await k.call('GET', `/data-objects/${obj.id}`, k.reader)).json().attributes.title).to.equal('Keep');
    expect((await k.call('DELETE', `/data-objects/${obj.id}/draft`, k.editor)).statusCode).to.equal(404);
    expect(await auditRows(k.t, 'data_object.discard_draft', obj.id)).to.have.length(1);
    expect((await k.call('GET', `/data-objects/${obj.id}/draft/diff`, k.reader)).json().code).to.equal(
      'DRAFT_NOT_FOUND',
    );

    const unpublished = await k.createObject({ classId: cls.id, attributes: { title: 'x' } }, k.editor);
    k.clearEvents();
    const edited = await k.call('PATCH', `/data-objects/${unpublished.id}`, k.editor, { attributes: { title: 'y' } });
    expect(edited.json()).to.not.have.property('draft');
    expect(k.events.map((e) => e.kind)).to.deep.equal(['updated']);
  });

  it('a save back to the live values drops the working copy; a working copy is refused like a live save (400)', async () => {
    const obj = await published({ title: 'Same' });
    await k.call('PATCH', `/data-objects/${obj.id}`, k.editor, { attributes: { title: 'Other' } });
    const back = await k.call('PATCH', `/data-objects/${obj.id}`, k.editor, { attributes: { title: 'Same' } });
    expect(back.json()).to.not.have.property('draft');
    const bad = await k.call('PATCH', `/data-objects/${obj.id}`, k.editor, { attributes: { price: 'x' } });
    expect(bad.statusCode).to.equal(400);
    expect(bad.json().field).to.equal('attributes.price');
    const refused = await k.call('PATCH', `/data-objects/${obj.id}`, k.editor, { published: false });
    expect(refused.json().code).to.equal('PUBLISH_FORBIDDEN');
  });

  it('key changes wait in the working copy; a unique clash answers 409 at publish and keeps the copy', async () => {
    const taken = await published({ title: 't', code: 'C1' });
    const obj = await published({ title: 'k', code: 'C2' }, 'old-key');
    await k.call('PATCH', `/data-objects/${obj.id}`, k.editor, { key: 'new-key', attributes: { code: 'C1' } });
    expect((await k.call('GET', `/data-objects/${obj.id}?version=live`, k.reader)).json().path).to.equal('/old-key');
    const diff = (await k.call('GET', `/data-objects/${obj.id}/draft/diff`, k.reader)).json();
    expect(diff.changed).to.deep.equal(['code', 'key', 'path']);
    const clash = await k.call('POST', `/data-objects/${obj.id}/publish-draft`, k.publisher);
    expect(clash.statusCode).to.equal(409);
    expect(clash.json().code).to.equal('UNIQUE_VIOLATION');
    expect((await k.call('GET', `/data-objects/${obj.id}`, k.reader)).json().draft).to.be.an('object');
    await k.call('DELETE', `/data-objects/${taken.id}`, k.publisher);
    const ok = await k.call('POST', `/data-objects/${obj.id}/publish-draft`, k.publisher);
    expect(ok.json()).to.include({ key: 'new-key', path: '/new-key' });
  });

  it('batch publish promotes working copies', async () => {
    const obj = await published({ title: 'b1' });
    await k.call('PATCH', `/data-objects/${obj.id}`, k.editor, { attributes: { title: 'b2' } });
    k.clearEvents();
    const res = await k.call('POST', '/data-objects/batch', k.publisher, { ids: [obj.id], action: 'publish' });
    expect(res.statusCode).to.equal(200);
    expect(res.json().results).to.deep.equal([{ id: obj.id, status: 'published' }]);
    expect(k.events.map((e) => [e.kind, e.changedFields])).to.deep.equal([['updated', ['title']]]);
    expect(await publicTitle(obj.id)).to.equal('b2');
  });

  it('a bulk update by an editor writes the working copy of a published object and announces nothing for it', async () => {
    const obj = await published({ title: 'Bulk live' }, 'bulk-one');
    k.clearEvents();
    const res = await k.call('POST', '/data-objects/bulk', k.editor, {
      classId: cls.id,
      onConflict: 'update',
      objects: [{ key: 'bulk-one', attributes: { title: 'Bulk draft' } }],
    });
    expect(res.json().updated).to.deep.equal([obj.id]);
    expect(await publicTitle(obj.id)).to.equal('Bulk live');
    expect((await k.call('GET', `/data-objects/${obj.id}`, k.reader)).json().attributes.title).to.equal('Bulk draft');
    expect(k.events).to.have.length(0);
  });

  it('each language has its own working copy; shared fields reach the other languages at publish, not before', async () => {
    const en = await published({ title: 'Hello', price: 1 });
    const de = await k.createObject({
      classId: cls.id,
      locale: 'de',
      translationGroupId: en.translationGroupId,
      published: true,
      attributes: { title: 'Hallo' },
    });
    await k.call('PATCH', `/data-objects/${de.id}`, k.editor, { attributes: { title: 'Servus' } });
    await k.call('PATCH', `/data-objects/${en.id}`, k.editor, { attributes: { price: 2 } });
    expect((await k.call('GET', `/data-objects/${de.id}?version=live`, k.reader)).json().attributes.price).to.equal(1);
    await k.call('POST', `/data-objects/${en.id}/publish-draft`, k.publisher);
    expect((await k.call('GET', `/data-objects/${de.id}?version=live`, k.reader)).json().attributes).to.deep.equal({
      title: 'Hallo',
      price: 2,
    });
    // The German working copy took the shared value too, so publishing it does not undo it.
    await k.call('POST', `/data-objects/${de.id}/publish-draft`, k.publisher);
    expect((await k.call('GET', `/public/data-objects/${de.id}`, null)).json().attributes).to.deep.equal({
      title: 'Servus',
      price: 2,
    });
    expect((await k.call('GET', `/public/data-objects/${en.id}`, null)).json().attributes.price).to.equal(2);
  });

  it('a preview link shows the working copy; deleting the object removes it', async () => {
    const obj = await published({ title: 'Seen' });
    await k.call('PATCH', `/data-objects/${obj.id}`, k.editor, { attributes: { title: 'Coming' } });
    const link = (await k.call('POST', `/data-objects/${obj.id}/preview-link`, k.publisher, {})).json();
    const view = await k.call('GET', link.url, null);
    expect(view.json().attributes.title).to.equal('Coming');
    expect((await k.call('DELETE', `/data-objects/${obj.id}`, k.publisher)).statusCode).to.equal(204);
    expect(await k.t.db('data_object_drafts').where({ object_id: obj.id })).to.have.length(0);
  });
});
