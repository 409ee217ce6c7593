import { expect } from 'chai';
import { expectNoLeaks } from '../../../test/helpers/answer-leaks.ts';
import { startDataKernel, type DataKernel } from './data-kernel.ts';

describe('data: no internal column reaches a client', () => {
  let k: DataKernel;
  before(async () => {
    k = await startDataKernel();
  });
  after(() => k.t.close());

  it('lists, reads and writes classes and objects, admin and public, without an internal column', async () => {
    const cls = await k.createClass([{ name: 'title', type: 'text' }]);
    const object = await k.createObject({ className: cls.name, attributes: { title: 'One' }, published: true });
    const answers = [
      await k.call('GET', '/data-classes', k.reader),
      await k.call('GET', `/data-classes/${cls.id}`, k.reader),
      await k.call('GET', `/data-objects/${object.id}`, k.reader),
      await k.call('PATCH', `/data-objects/${object.id}`, k.publisher, { attributes: { title: 'Two' } }),
      await k.call('GET', `/data-objects/batch?ids=${object.id}`, k.reader),
      await k.call('POST', '/data-objects/query', k.reader, { className: cls.name }),
      await k.call('GET', `/public/data-objects?className=${cls.name}`, null),
      await k.call('GET', `/public/data-objects/${object.id}`, null),
      await k.call('GET', `/public/data-objects/batch?ids=${object.id}`, null),
    ];
    for (const res of answers) expect(res.statusCode, res.body).to.equal(200);
    expectNoLeaks(answers);
  });

  it('answers a batch read and a bulk write by their schemas, whatever else the service returns', async () => {
    const cls = await k.createClass([{ name: 'title', type: 'text' }]);
    const object = await k.createObject({ className: cls.name, attributes: { title: 'One' } });
    const services = k.services();
    const batch = services.reads.batch.bind(services.reads);
    const bulk = services.bulk.run.bind(services.bulk);
    // As if a store started returning internal columns beside the answer's own.
    services.reads.batch = async (ids, audience) => {
      const found = await batch(ids, audience);
      return { ...found, objects: found.objects.map((o) => ({ ...o, claim_token: 'raw-claim' })) };
    };
    services.bulk.run = async (ctx, input) => ({ ...(await bulk(ctx, input)), internal_seq: 42 }) as never;
    try {
      const read = await k.call('GET', `/data-objects/batch?ids=${object.id}`, k.reader);
      expect(read.json().objects).to.have.length(1);
      const written = await k.call('POST', '/data-objects/bulk', k.editor, {
        className: cls.name,
        objects: [{ attributes: { title: 'Bulk' } }],
      });
      expect(written.statusCode, written.body).to.equal(200);
      expectNoLeaks([read, written], { values: ['raw-claim'] });
    } finally {
      services.reads.batch = batch;
      services.bulk.run = bulk;
    }
  });
});
