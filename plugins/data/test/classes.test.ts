import { expect } from 'chai';
import { startDataKernel, type DataKernel } from './data-kernel.ts';

describe('data: classes', () => {
  let k: DataKernel;
  before(async () => {
    k = await startDataKernel();
  });
  after(() => k.t.close());

  it('creates, lists, reads and patches a class; refuses a duplicate name with 409', async () => {
    const res = await k.call('POST', '/data-classes', k.editor, {
      name: 'article',
      label: 'Article',
      fields: [
        { name: 'title', type: 'text', required: true },
        { name: 'body', type: 'markdown' },
      ],
      viewConfig: { columns: ['title'] },
    });
    expect(res.statusCode).to.equal(201);
    const cls = res.json();
    expect(cls).to.include({ name: 'article', label: 'Article', retentionDays: null });
    expect(cls.fields[0]).to.include({ name: 'title', type: 'text', required: true, localized: false, unique: false });
    expect(cls.viewConfig).to.deep.equal({ columns: ['title'] });
    const dup = await k.call('POST', '/data-classes', k.editor, { name: 'article' });
    expect(dup.statusCode).to.equal(409);
    expect(dup.json()).to.include({ code: 'CLASS_NAME_TAKEN', field: 'name' });
    expect(
      (await k.call('GET', '/data-classes', k.reader)).json().classes.map((c: { name: string }) => c.name),
    ).to.include('article');
    expect((await k.call('GET', `/data-classes/${cls.id}`, k.reader)).json().name).to.equal('article');
    const patched = await k.call('PATCH', `/data-classes/${cls.id}`, k.editor, { label: 'Articles' });
    expect(patched.statusCode).to.equal(200);
    expect(patched.json().label).to.equal('Articles');
    const audit = await k.t.db('audit_log').where({ target_id: cls.id }).orderBy('id').select('action');
    expect(audit.map((a: { action: string }) => a.action)).to.deep.equal(['data_class.create', 'data_class.update']);
  });

  it('answers 400 naming the field for bad definitions and names', async () => {
    const cases: Array<[unknown, string]> = [
      [{ name: '1bad' }, 'name'],
      [
        {
          name: 'ok1',
          fields: [
            { name: 'a', type: 'text' },
            { name: 'b', type: 'text' },
            { name: 'c', type: 'nope' },
          ],
        },
        'fields.2.type',
      ],
      [{ name: 'ok2', fields: [{ name: 'a b', type: 'text' }] }, 'fields.0.name'],
      [
        {
          name: 'ok3',
          fields: [
            { name: 'a', type: 'text' },
            { name: 'a', type: 'number' },
          ],
        },
        'fields.1.name',
      ],
      [{ name: 'ok4', fields: [{ name: 's', type: 'select' }] }, 'fields.0.options'],
      [
        { name: 'ok5', fields: [{ name: 'r', type: 'relation', relation: { class: 'missing' } }] },
        'fields.0.relation.class',
      ],
      [{ name: 'ok6', fields: [{ name: 'c', type: 'component', component: 'missing' }] }, 'fields.0.component'],
      [{ name: 'ok7', fields: [{ name: 'j', type: 'json', unique: true }] }, 'fields.0.unique'],
      [
        { name: 'ok8', fields: [{ name: 't', type: 'text', validation: { pattern: '(' } }] },
        'fields.0.validation.pattern',
      ],
      [{ name: 'ok9', fields: [{ name: 't', type: 'text', colour: 'red' }] }, 'fields.0.colour'],
      [{ name: 'ok10', fields: [{ name: 'a', type: 'array', of: 'array' }] }, 'fields.0.of'],
    ];
    for (const [body, field] of cases) {
      const res = await k.call('POST', '/data-classes', k.editor, body);
      expect(res.statusCode, JSON.stringify(body)).to.equal(400);
      expect(res.json().field, JSON.stringify(body)).to.equal(field);
    }
  });

  it('adds fields any time; refuses rename, retype and delete once objects exist (409 CLASS_HAS_OBJECTS)', async () => {
    const cls = await k.createClass([
      { name: 'title', type: 'text' },
      { name: 'n', type: 'number' },
    ]);
    // Without objects a field may still be removed or retyped.
    const early = await k.call('PATCH', `/data-classes/${cls.id}`, k.editor, {
      fields: [
        { name: 'title', type: 'text' },
        { name: 'n', type: 'text' },
      ],
    });
    expect(early.statusCode).to.equal(200);
    await k.createObject({ classId: cls.id, attributes: { title: 'x' } });
    const fields = [
      { name: 'title', type: 'text' },
      { name: 'n', type: 'text' },
    ];
    const added = await k.call('PATCH', `/data-classes/${cls.id}`, k.editor, {
      fields: [...fields, { name: 'extra', type: 'boolean' }],
    });
    expect(added.statusCode).to.equal(200);
    expect(added.json().fields).to.have.length(3);
    const retype = await k.call('PATCH', `/data-classes/${cls.id}`, k.editor, {
      fields: [{ name: 'title', type: 'markdown' }, fields[1], { name: 'extra', type: 'boolean' }],
    });
    expect(retype.statusCode).to.equal(409);
    expect(retype.json().code).to.equal('CLASS_HAS_OBJECTS');
    const rename = await k.call('PATCH', `/data-classes/${cls.id}`, k.editor, {
      fields: [{ name: 'headline', type: 'text' }, fields[1], { name: 'extra', type: 'boolean' }],
    });
    expect(rename.statusCode).to.equal(409);
    const del = await k.call('DELETE', `/data-classes/${cls.id}`, k.editor);
    expect(del.statusCode).to.equal(409);
    expect(del.json().code).to.equal('CLASS_HAS_OBJECTS');
    expect((await k.call('GET', `/data-classes/${cls.id}/object-count`, k.reader)).json()).to.deep.equal({ count: 1 });
  });

  it('deletes an empty class and drops its field indexes', async () => {
    const cls = await k.createClass([
      { name: 'title', type: 'text' },
      { name: 'tags', type: 'array', of: 'text' },
    ]);
    const prefix = cls.id.replace(/-/g, '');
    // Field indexes only (the class's partition has its own key indexes, named after the class too).
    const fieldIndexes = () =>
      k.t
        .db('pg_indexes')
        .where('indexname', 'like', `data\\_objects\\__\\_${prefix}%`)
        .count<{ count: number }[]>('* as count');
    const before = await fieldIndexes();
    expect(Number(before[0].count)).to.equal(3);
    expect((await k.call('DELETE', `/data-classes/${cls.id}`, k.editor)).statusCode).to.equal(204);
    // The partition (with its indexes) is detached and dropped after the delete commits.
    await k.t.kernel.resolve('jobs').settled('data.index-builds');
    expect((await k.t.db.raw('select to_regclass(?) as t', [`data_objects_c${prefix}`])).rows[0].t).to.equal(null);
    const after = await fieldIndexes();
    expect(Number(after[0].count)).to.equal(0);
    expect((await k.call('GET', `/data-classes/${cls.id}`, k.reader)).statusCode).to.equal(404);
  });

  it('empties a class after the name is confirmed: { deleted }, one bulk event, audited', async () => {
    const cls = await k.createClass([{ name: 'title', type: 'text' }]);
    for (let i = 0; i < 3; i++) await k.createObject({ classId: cls.id, attributes: { title: `t${i}` } });
    const wrong = await k.call('POST', `/data-classes/${cls.id}/empty`, k.editor, { confirm: 'nope' });
    expect(wrong.statusCode).to.equal(400);
    expect(wrong.json().field).to.equal('confirm');
    k.clearEvents();
    const res = await k.call('POST', `/data-classes/${cls.id}/empty`, k.editor, { confirm: cls.name });
    expect(res.statusCode).to.equal(200);
    expect(res.json()).to.deep.equal({ deleted: 3 });
    expect(k.events).to.have.length(1);
    expect(k.events[0]).to.include({ kind: 'bulk', recordId: cls.id });
    expect((k.events[0].data as { bulk: { kind: string; count: number } }).bulk).to.include({
      kind: 'empty',
      count: 3,
    });
    const audit = await k.t.db('audit_log').where({ target_id: cls.id, action: 'data_class.empty' }).first();
    expect(audit.after).to.deep.equal({ deleted: 3 });
  });

  it('retentionDays: administrators only (403 otherwise), audited as data_class.retention_update', async () => {
    const cls = await k.createClass([{ name: 'title', type: 'text' }]);
    const denied = await k.call('PATCH', `/data-classes/${cls.id}`, k.editor, { retentionDays: 30 });
    expect(denied.statusCode).to.equal(403);
    const ok = await k.call('PATCH', `/data-classes/${cls.id}`, k.admin, { retentionDays: 30 });
    expect(ok.statusCode).to.equal(200);
    expect(ok.json().retentionDays).to.equal(30);
    const rows = await k.t.db('audit_log').where({ target_id: cls.id, action: 'data_class.retention_update' });
    expect(rows).to.have.length(1);
    expect(rows[0].before).to.deep.equal({ retentionDays: null });
    expect(rows[0].after).to.deep.equal({ retentionDays: 30 });
  });

  it('needs a data key: readers cannot write, anonymous callers get 401', async () => {
    expect((await k.call('POST', '/data-classes', k.reader, { name: 'nope' })).statusCode).to.equal(403);
    expect((await k.call('GET', '/data-classes', null)).statusCode).to.equal(401);
    expect((await k.call('GET', '/data-classes/00000000-0000-4000-8000-000000000000', k.reader)).statusCode).to.equal(
      404,
    );
  });
});
