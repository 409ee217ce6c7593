import { expect } from 'chai';
import { startDataKernel, type DataKernel } from './data-kernel.ts';

describe('data: validation patterns run on a linear-time engine', () => {
  let k: DataKernel;
  before(async () => {
    k = await startDataKernel();
  });
  after(() => k.t.close());

  const define = (fields: unknown[], name = `p_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 6)}`) =>
    k.call('POST', '/data-classes', k.editor, { name, fields });

  it('checks a catastrophic pattern against a 10,000-character value and answers (no backtracking)', async () => {
    // On a backtracking engine `^(a+)+$` needs seconds for 27 characters and never ends for 10,000:
    // this test only finishes when the engine is linear.
    const res = await define([
      { name: 'title', type: 'text', validation: { pattern: '^(a+)+$' } },
      { name: 'body', type: 'markdown', validation: { pattern: '^(a+)+$' } },
    ]);
    expect(res.statusCode, res.body).to.equal(201);
    const cls = res.json();
    const bad = await k.call('POST', '/data-objects', k.editor, {
      classId: cls.id,
      attributes: { body: `${'a'.repeat(10_000)}!` },
    });
    expect(bad.statusCode, bad.body).to.equal(400);
    expect(bad.json()).to.include({ field: 'attributes.body' });
    const short = await k.call('POST', '/data-objects', k.editor, {
      classId: cls.id,
      attributes: { title: 'aaaaaaaaaaaaaaaaaaaaaaaaaaa!' },
    });
    expect(short.statusCode, short.body).to.equal(400);
    expect(short.json()).to.include({ field: 'attributes.title' });
    const good = await k.call('POST', '/data-objects', k.editor, {
      classId: cls.id,
      attributes: { title: 'a'.repeat(600), body: 'a'.repeat(10_000) },
    });
    expect(good.statusCode, good.body).to.equal(201);
  });

  it('refuses lookaround, backreferences and broken patterns when a class is defined, naming the field', async () => {
    const ok = { name: 'a', type: 'text' };
    for (const pattern of ['(?<=a)b', '(?<!a)b', 'a(?=b)', 'a(?!b)', '(a)\\1', '(?<x>a)\\k<x>', '(', 'a{2000}']) {
      const res = await define([
        ok,
        { name: 'b', type: 'number' },
        { name: 'c', type: 'text', validation: { pattern } },
      ]);
      expect(res.statusCode, pattern).to.equal(400);
      expect(res.json(), pattern).to.include({ code: 'VALIDATION_FAILED', field: 'fields.2.validation.pattern' });
    }
    const cls = (await define([ok])).json();
    const patch = await k.call('PATCH', `/data-classes/${cls.id}`, k.editor, {
      fields: [ok, { name: 'tags', type: 'array', of: 'text', validation: { pattern: '(?<=#)\\w+' } }],
    });
    expect(patch.statusCode).to.equal(400);
    expect(patch.json().field).to.equal('fields.1.validation.pattern');
  });

  it('refuses the same patterns in component definitions (create and update)', async () => {
    const created = await k.call('POST', '/data-components', k.editor, {
      name: 'badseo',
      fields: [{ name: 't', type: 'text', validation: { pattern: '(a)\\1' } }],
    });
    expect(created.statusCode).to.equal(400);
    expect(created.json().field).to.equal('fields.0.validation.pattern');
    const comp = (await k.call('POST', '/data-components', k.editor, { name: 'okseo', fields: [] })).json();
    const patched = await k.call('PATCH', `/data-components/${comp.id}`, k.editor, {
      fields: [
        { name: 'x', type: 'text' },
        { name: 't', type: 'slug', validation: { pattern: '^(?!admin)' } },
      ],
    });
    expect(patched.statusCode).to.equal(400);
    expect(patched.json().field).to.equal('fields.1.validation.pattern');
  });

  it('still validates ordinary patterns on texts, slugs, array items and component fields', async () => {
    const comp = (
      await k.call('POST', '/data-components', k.editor, {
        name: 'meta',
        fields: [{ name: 'code', type: 'text', validation: { pattern: '^[A-Z]{3}$' } }],
      })
    ).json();
    expect(comp.id).to.be.a('string');
    const cls = (
      await define([
        { name: 'title', type: 'text', validation: { pattern: '^[A-Z][a-z]+$' } },
        { name: 'slug', type: 'slug', validation: { pattern: '^post-' } },
        { name: 'tags', type: 'array', of: 'text', validation: { pattern: '^#\\w+$' } },
        { name: 'accent', type: 'text', validation: { pattern: '^caf\\u00e9$' } },
        { name: 'meta', type: 'component', component: 'meta' },
      ])
    ).json();
    const write = (attributes: Record<string, unknown>) =>
      k.call('POST', '/data-objects', k.editor, { classId: cls.id, attributes });
    const good = await write({
      title: 'Hello',
      slug: 'post-one',
      tags: ['#a', '#b_2'],
      accent: 'café',
      meta: { code: 'ABC' },
    });
    expect(good.statusCode, good.body).to.equal(201);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ title: 'hello' }, 'attributes.title'],
      [{ slug: 'page-one' }, 'attributes.slug'],
      [{ tags: ['#a', 'b'] }, 'attributes.tags.1'],
      [{ accent: 'cafe' }, 'attributes.accent'],
      [{ meta: { code: 'abc' } }, 'attributes.meta.code'],
    ];
    for (const [attributes, field] of cases) {
      const res = await write(attributes);
      expect(res.statusCode, field).to.equal(400);
      expect(res.json(), field).to.include({ field, message: `${field}: does not match the pattern` });
    }
  });

  it('answers 400 naming the attribute, not 500, for a stored pattern the engine refuses', async () => {
    const cls = (await define([{ name: 'title', type: 'text' }])).json();
    // A definition stored before patterns ran on the linear-time engine.
    await k.t
      .db('data_classes')
      .where({ id: cls.id })
      .update({
        fields: JSON.stringify([
          {
            name: 'title',
            type: 'text',
            required: false,
            unique: false,
            localized: false,
            validation: { pattern: '(?<=a)b' },
          },
        ]),
      });
    const res = await k.call('POST', '/data-objects', k.editor, { classId: cls.id, attributes: { title: 'ab' } });
    expect(res.statusCode, res.body).to.equal(400);
    expect(res.json().field).to.equal('attributes.title');
    const bulk = await k.call('POST', '/data-objects/bulk', k.editor, {
      classId: cls.id,
      objects: [{ attributes: { title: 'ab' } }],
    });
    expect(bulk.statusCode, bulk.body).to.equal(200);
    expect(bulk.json().rejected).to.have.length(1);
    expect(bulk.json().rejected[0]).to.include({ index: 0, field: 'attributes.title' });
  });
});
