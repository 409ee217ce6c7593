import { expect } from 'chai';
import { startDataKernel, type DataKernel } from './data-kernel.ts';

describe('data: object events, translations and publish rules', () => {
  let k: DataKernel;
  let cls: { id: string; name: string };
  before(async () => {
    k = await startDataKernel();
    cls = await k.createClass([
      { name: 'title', type: 'text', localized: true },
      { name: 'price', type: 'number' },
      { name: 'sku', type: 'text', unique: true },
    ]);
  });
  beforeEach(() => k.clearEvents());
  after(() => k.t.close());

  it('announces object.created per row with the user actor', async () => {
    const obj = await k.createObject({ classId: cls.id, attributes: { title: 'a' } }, k.editor);
    expect(k.events).to.have.length(1);
    expect(k.events[0]).to.deep.include({
      recordType: 'object',
      recordId: obj.id,
      kind: 'created',
      actor: { type: 'user', id: k.editor.id },
    });
    expect((k.events[0].data as { class: unknown }).class).to.deep.equal({ id: cls.id, name: cls.name });
  });

  it('a save without change announces nothing; changes name the changed fields', async () => {
    const obj = await k.createObject({ classId: cls.id, attributes: { title: 'a', price: 1 } });
    k.clearEvents();
    const same = await k.call('PATCH', `/data-objects/${obj.id}`, k.editor, { attributes: { title: 'a', price: 1 } });
    expect(same.statusCode).to.equal(200);
    expect(same.json().updatedAt).to.equal(obj.updatedAt);
    expect(k.events).to.have.length(0);
    await k.call('PATCH', `/data-objects/${obj.id}`, k.editor, { attributes: { price: 2 } });
    expect(k.events.map((e) => [e.kind, e.changedFields])).to.deep.equal([['updated', ['price']]]);
  });

  it('publishing only is not an update; published/unpublished need objects:publish (403 PUBLISH_FORBIDDEN)', async () => {
    const obj = await k.createObject({ classId: cls.id, attributes: { title: 'p' } });
    k.clearEvents();
    const denied = await k.call('PATCH', `/data-objects/${obj.id}`, k.editor, { published: true });
    expect(denied.statusCode).to.equal(403);
    expect(denied.json().code).to.equal('PUBLISH_FORBIDDEN');
    const ok = await k.call('PATCH', `/data-objects/${obj.id}`, k.publisher, { published: true });
    expect(ok.json().published).to.equal(true);
    expect(k.events.map((e) => e.kind)).to.deep.equal(['published']);
    k.clearEvents();
    await k.call('PATCH', `/data-objects/${obj.id}`, k.publisher, { published: false, attributes: { price: 3 } });
    expect(k.events.map((e) => [e.kind, e.changedFields])).to.deep.equal([
      ['updated', ['price']],
      ['unpublished', undefined],
    ]);
  });

  it('objects created without objects:publish are drafts (downgraded); with it they may be published', async () => {
    const draft = await k.createObject({ classId: cls.id, published: true, attributes: { title: 'd' } }, k.editor);
    expect(draft.published).to.equal(false);
    const live = await k.createObject({ classId: cls.id, published: true, attributes: { title: 'l' } }, k.publisher);
    expect(live.published).to.equal(true);
  });

  it('object.deleted carries the row as it was; X-Cms-Flow: stop is passed as a flag', async () => {
    const obj = await k.createObject({ classId: cls.id, key: 'gone', published: true, attributes: { title: 'g' } });
    k.clearEvents();
    const res = await k.call('DELETE', `/data-objects/${obj.id}`, k.editor, undefined, { 'x-cms-flow': 'stop' });
    expect(res.statusCode).to.equal(204);
    expect(k.events).to.have.length(1);
    const e = k.events[0];
    expect(e).to.deep.include({ kind: 'deleted', recordId: obj.id, flags: { flow: 'stop' } });
    expect((e.data as { object: { key: string; published: boolean } }).object).to.include({
      key: 'gone',
      published: true,
    });
    k.clearEvents();
    await k.createObject({ classId: cls.id, attributes: { title: 'n' } });
    expect(k.events[0].flags).to.equal(undefined);
  });

  it('adding a language syncs shared fields to the other rows, each announced as updated by system', async () => {
    const en = await k.createObject({ classId: cls.id, locale: 'en', attributes: { title: 'Hello', price: 5 } });
    k.clearEvents();
    const de = await k.createObject({
      classId: cls.id,
      locale: 'de',
      translationGroupId: en.translationGroupId,
      attributes: { title: 'Hallo', price: 6 },
    });
    expect(de.translationGroupId).to.equal(en.translationGroupId);
    expect(k.events.map((e) => [e.recordId, e.kind, e.actor.type, e.changedFields])).to.deep.equal([
      [de.id, 'created', 'user', undefined],
      [en.id, 'updated', 'system', ['price']],
    ]);
    const rows = (await k.call('GET', `/data-objects/${en.id}/translations`, k.reader)).json().objects;
    expect(
      rows.map((r: { locale: string; attributes: { title: string; price: number } }) => [
        r.locale,
        r.attributes.title,
        r.attributes.price,
      ]),
    ).to.deep.equal([
      ['de', 'Hallo', 6],
      ['en', 'Hello', 6],
    ]);
    const byGroup = await k.call('GET', `/data-objects/translations/${en.translationGroupId}`, k.reader);
    expect(byGroup.json().objects).to.have.length(2);
    const again = await k.call('POST', '/data-objects', k.editor, {
      classId: cls.id,
      locale: 'de',
      translationGroupId: en.translationGroupId,
      attributes: { title: 'x' },
    });
    expect(again.statusCode).to.equal(409);
    expect(again.json().code).to.equal('LOCALE_EXISTS');
    // A new language inherits shared values it does not send.
    const fr = await k.createObject({
      classId: cls.id,
      locale: 'fr',
      translationGroupId: en.translationGroupId,
      attributes: { title: 'Bonjour' },
    });
    expect(fr.attributes.price).to.equal(6);
    k.clearEvents();
    await k.call('PATCH', `/data-objects/${fr.id}`, k.editor, { attributes: { price: 7, title: 'Salut' } });
    expect(k.events.map((e) => [e.kind, e.actor.type, e.changedFields])).to.deep.equal([
      ['updated', 'user', ['title', 'price']],
      ['updated', 'system', ['price']],
      ['updated', 'system', ['price']],
    ]);
    expect((await k.call('GET', `/data-objects/${de.id}`, k.reader)).json().attributes).to.deep.equal({
      title: 'Hallo',
      price: 7,
    });
    expect(
      (await k.call('GET', '/data-objects/translations/00000000-0000-4000-8000-000000000000', k.reader)).statusCode,
    ).to.equal(404);
  });

  it('ENFORCE_PUBLISH_PERMISSION=0 lets writers publish', async () => {
    const k2 = await startDataKernel({ ENFORCE_PUBLISH_PERMISSION: '0' });
    try {
      const c = await k2.createClass([{ name: 'title', type: 'text' }]);
      const obj = await k2.createObject({ classId: c.id, published: true }, k2.editor);
      expect(obj.published).to.equal(true);
    } finally {
      await k2.t.close();
    }
  });
});
