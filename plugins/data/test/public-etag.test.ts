import { expect } from 'chai';
import { startDataKernel, type DataKernel } from './data-kernel.ts';

describe('data: public answers carry an ETag and honour If-None-Match', () => {
  let k: DataKernel;
  let cls: { id: string; name: string };
  before(async () => {
    k = await startDataKernel({ PUBLIC_DATA_CACHE_CONTROL: 'public, max-age=30' });
    cls = await k.createClass([{ name: 'title', type: 'text' }], 'Tagged');
  });
  after(() => k.t.close());

  it('answers 304 without a body while the object is unchanged, and a new ETag once it changes', async () => {
    const obj = await k.createObject({ classId: cls.id, published: true, attributes: { title: 'one' } });
    const url = `/public/data-objects/${obj.id}`;
    const first = await k.call('GET', url, null);
    expect(first.statusCode).to.equal(200);
    const tag = first.headers.etag as string;
    expect(tag).to.match(/^W\/"/);
    expect(first.headers['cache-control']).to.equal('public, max-age=30');
    const again = await k.call('GET', url, null, undefined, { 'if-none-match': tag });
    expect(again.statusCode).to.equal(304);
    expect(again.body).to.equal('');
    expect(again.headers['cache-control']).to.equal('public, max-age=30');
    await k.call('PATCH', `/data-objects/${obj.id}`, k.publisher, { attributes: { title: 'two' } });
    const changed = await k.call('GET', url, null, undefined, { 'if-none-match': tag });
    expect(changed.statusCode).to.equal(200);
    expect(changed.json().attributes.title).to.equal('two');
    expect(changed.headers.etag).not.to.equal(tag);
  });

  it('never answers 304 for an object that was unpublished, and puts no ETag on errors', async () => {
    const obj = await k.createObject({ classId: cls.id, published: true, attributes: { title: 'soon hidden' } });
    const url = `/public/data-objects/${obj.id}`;
    const tag = (await k.call('GET', url, null)).headers.etag as string;
    await k.call('PATCH', `/data-objects/${obj.id}`, k.publisher, { published: false });
    const hidden = await k.call('GET', url, null, undefined, { 'if-none-match': tag });
    expect(hidden.statusCode).to.equal(404);
    expect(hidden.headers).not.to.have.property('etag');
  });

  it('tags lists and queries too', async () => {
    const list = await k.call('GET', `/public/data-objects?className=${cls.name}`, null);
    expect(list.statusCode).to.equal(200);
    const same = await k.call('GET', `/public/data-objects?className=${cls.name}`, null, undefined, {
      'if-none-match': list.headers.etag as string,
    });
    expect(same.statusCode).to.equal(304);
    const query = await k.call('POST', '/public/data-objects/query', null, { className: cls.name });
    expect(query.headers.etag).to.be.a('string');
  });
});
