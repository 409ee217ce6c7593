import { expect } from 'chai';
import { startTestKernel, type TestKernel, type TestUser } from '../../../test/helpers/kernel.ts';

/** A secret-looking setting nested deeper than the redaction walks must not come out in clear. */
describe('content: website settings redaction fails closed at depth', () => {
  let t: TestKernel;
  let admin: TestUser;
  before(async () => {
    t = await startTestKernel({ plugins: ['data', 'content'] });
    admin = await t.admin();
  });
  after(() => t?.close());

  it('the public website read never shows a token nested ten levels deep; shallow settings stay', async () => {
    let nested: Record<string, unknown> = { apiToken: 'deep-secret-token-1234', label: 'deep' };
    for (let i = 0; i < 10; i++) nested = { level: nested };
    const site = await t.call('POST', '/cms-one/websites', admin, {
      name: 'Deep',
      rootPath: '/deep',
      locales: ['en'],
      settings: { color: 'red', analytics: { id: 'UA-1', apiToken: 'shallow-secret' }, nested },
    });
    expect(site.statusCode, site.body).to.equal(201);
    const res = await t.call('GET', `/public/websites/${site.json().id}`, null);
    expect(res.statusCode, res.body).to.equal(200);
    expect(res.body).not.to.contain('deep-secret-token-1234');
    expect(res.body).not.to.contain('shallow-secret');
    expect(res.json().settings).to.deep.include({ color: 'red', analytics: { id: 'UA-1' } });
  });
});
