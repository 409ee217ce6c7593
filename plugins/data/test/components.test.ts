import { expect } from 'chai';
import { startDataKernel, type DataKernel } from './data-kernel.ts';

describe('data: components', () => {
  let k: DataKernel;
  before(async () => {
    k = await startDataKernel();
  });
  after(() => k.t.close());

  it('creates, reads, lists and patches a component; 409 on a duplicate name; 400 naming bad fields', async () => {
    const res = await k.call('POST', '/data-components', k.editor, {
      name: 'address',
      fields: [{ name: 'street', type: 'text' }],
    });
    expect(res.statusCode).to.equal(201);
    const id = res.json().id;
    expect((await k.call('GET', `/data-components/${id}`, k.reader)).json().name).to.equal('address');
    expect((await k.call('GET', '/data-components', k.reader)).json().components).to.have.length.greaterThan(0);
    expect((await k.call('POST', '/data-components', k.editor, { name: 'address' })).json().code).to.equal(
      'COMPONENT_NAME_TAKEN',
    );
    const bad = await k.call('POST', '/data-components', k.editor, {
      name: 'nested',
      fields: [{ name: 'x', type: 'component', component: 'address' }],
    });
    expect(bad.statusCode).to.equal(400);
    expect(bad.json().field).to.equal('fields.0.type');
    const patched = await k.call('PATCH', `/data-components/${id}`, k.editor, {
      label: 'Address',
      fields: [
        { name: 'street', type: 'text' },
        { name: 'zip', type: 'text' },
      ],
    });
    expect(patched.statusCode).to.equal(200);
    expect(patched.json().fields).to.have.length(2);
  });

  it('reports usage and refuses retype, rename and delete while objects use it', async () => {
    const comp = (
      await k.call('POST', '/data-components', k.editor, { name: 'seo', fields: [{ name: 'title', type: 'text' }] })
    ).json();
    const unused = await k.call('GET', `/data-components/${comp.id}/usage`, k.reader);
    expect(unused.json()).to.deep.equal({ inUse: false, classes: [], objectCount: 0 });
    const cls = await k.createClass([{ name: 'seo', type: 'component', component: 'seo' }]);
    // Referenced by a class but no objects: field edits allowed, deletion refused (the class would break).
    expect(
      (
        await k.call('PATCH', `/data-components/${comp.id}`, k.editor, {
          fields: [{ name: 'title', type: 'markdown' }],
        })
      ).statusCode,
    ).to.equal(200);
    const referenced = await k.call('DELETE', `/data-components/${comp.id}`, k.editor);
    expect(referenced.statusCode).to.equal(409);
    expect(referenced.json().code).to.equal('COMPONENT_REFERENCED');
    await k.createObject({ classId: cls.id, attributes: { seo: { title: 'x' } } });
    const usage = await k.call('GET', `/data-components/${comp.id}/usage`, k.reader);
    expect(usage.json()).to.deep.equal({ inUse: true, classes: [{ id: cls.id, name: cls.name }], objectCount: 1 });
    const retype = await k.call('PATCH', `/data-components/${comp.id}`, k.editor, {
      fields: [{ name: 'title', type: 'number' }],
    });
    expect(retype.statusCode).to.equal(409);
    expect(retype.json().code).to.equal('COMPONENT_IN_USE');
    const rename = await k.call('PATCH', `/data-components/${comp.id}`, k.editor, {
      fields: [{ name: 'heading', type: 'markdown' }],
    });
    expect(rename.statusCode).to.equal(409);
    const add = await k.call('PATCH', `/data-components/${comp.id}`, k.editor, {
      fields: [
        { name: 'title', type: 'markdown' },
        { name: 'extra', type: 'text' },
      ],
    });
    expect(add.statusCode).to.equal(200);
    const del = await k.call('DELETE', `/data-components/${comp.id}`, k.editor);
    expect(del.statusCode).to.equal(409);
    expect(del.json().code).to.equal('COMPONENT_IN_USE');
    // Objects validate against the new component definition right away (cache dropped on write).
    const res = await k.call('POST', '/data-objects', k.editor, {
      classId: cls.id,
      attributes: { seo: { title: 'x', extra: 5 } },
    });
    expect(res.statusCode).to.equal(400);
    expect(res.json().field).to.equal('attributes.seo.extra');
  });

  it('deletes an unused component; 404 afterwards', async () => {
    const comp = (await k.call('POST', '/data-components', k.editor, { name: 'tmp', fields: [] })).json();
    expect((await k.call('DELETE', `/data-components/${comp.id}`, k.editor)).statusCode).to.equal(204);
    expect((await k.call('GET', `/data-components/${comp.id}`, k.reader)).statusCode).to.equal(404);
  });
});
