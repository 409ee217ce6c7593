import { expect } from 'chai';
import { expectNoLeaks } from '../../../test/helpers/answer-leaks.ts';
import type { SearchServices } from '../services/index.ts';
import { startSearchKernel } from './search-kernel.ts';

describe('search: no internal column reaches a client', () => {
  let k: Awaited<ReturnType<typeof startSearchKernel>>;
  before(async () => {
    k = await startSearchKernel();
  });
  after(() => k.t.close());

  it('answers the searches and a reindex without an internal column', async () => {
    const cls = await k.createClass([{ name: 'title', type: 'text' }]);
    await k.createObject({ className: cls.name, attributes: { title: 'Leakless zebra' }, published: true });
    const answers = [
      await k.call('POST', '/cms-one/search/reindex', k.admin),
      await k.call('GET', '/public/search?q=zebra', null),
      await k.call('GET', '/cms-one/search?q=zebra', k.reader),
    ];
    for (const res of answers) expect(res.statusCode, res.body).to.equal(200);
    expectNoLeaks(answers);
  });

  it('answers a reindex by its schema, whatever else the service returns', async () => {
    const services = k.t.services<SearchServices>('search');
    const reindex = services.reindex;
    services.reindex = async (only) => {
      const report = await reindex(only);
      return { ...report, lease_until: 'raw-lease', sources: report.sources.map((s) => ({ ...s, seq: 7 })) };
    };
    try {
      const res = await k.call('POST', '/cms-one/search/reindex', k.admin);
      expect(res.statusCode, res.body).to.equal(200);
      expect(res.json()).to.have.keys('sources', 'removedOrphans', 'durationMs');
      expectNoLeaks(res, { keys: ['lease_until', 'seq'], values: ['raw-lease'] });
    } finally {
      services.reindex = reindex;
    }
  });
});
