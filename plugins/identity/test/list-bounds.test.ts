import { expect } from 'chai';
import type { TestKernel } from '../../../test/helpers/kernel.ts';
import { startIdentity } from './helpers.ts';

describe('identity: GET /auth/users paging bounds', () => {
  let t: TestKernel;
  let cookie: string;
  before(async () => {
    t = await startIdentity();
    cookie = (await t.admin()).cookie;
  });
  after(() => t.close());

  const list = (query: string) => t.inject({ method: 'GET', url: `/auth/users${query}`, headers: { cookie } });

  it('accepts offsets up to 1,000,000 and answers 400 naming offset beyond (even past bigint), never 500', async () => {
    const last = await list('?offset=1000000');
    expect(last.statusCode, last.body).to.equal(200);
    expect(last.json()).to.include({ offset: 1_000_000 });
    expect(last.json().users).to.deep.equal([]);
    for (const offset of ['100000000000000000000', '1e21', '1000001']) {
      const res = await list(`?offset=${offset}`);
      expect(res.statusCode, `${offset}: ${res.body}`).to.equal(400);
      expect(res.json(), offset).to.include({ code: 'VALIDATION_FAILED', field: 'offset' });
    }
  });
});
