import { expect } from 'chai';
import { startTestKernel, type TestKernel, type TestUser } from '../../../test/helpers/kernel.ts';

describe('push: hostile input to /pwa/send', function () {
  this.timeout(60_000);
  let t: TestKernel;
  let admin: TestUser;
  let websiteId: string;

  before(async () => {
    t = await startTestKernel({
      plugins: ['identity', 'gateway', 'assets', 'content', 'push'],
      env: { PUSH_VAPID_SUBJECT: 'mailto:ops@example.test' },
    });
    admin = await t.admin();
    const site = await t.call('POST', '/cms-one/websites', admin, { name: 'Shop', rootPath: '/shop', locales: ['en'] });
    expect(site.statusCode, site.body).to.equal(201);
    websiteId = site.json().id;
  });
  after(() => t?.close());

  it('the click-through url is a page of the site or a web address, never a script or data URL', async () => {
    for (const url of [
      'javascript:alert(document.cookie)',
      'data:text/html,<script>x</script>',
      'vbscript:x',
      'shop',
    ]) {
      const res = await t.call('POST', '/pwa/send', admin, { websiteId, title: 'Sale', url });
      expect(res.statusCode, `${url}: ${res.body}`).to.equal(400);
      expect(res.json().field, res.body).to.equal('url');
    }
    for (const url of ['/shop/sale', 'https://shop.example/sale']) {
      const res = await t.call('POST', '/pwa/send', admin, { websiteId, title: 'Sale', url });
      expect(res.statusCode, `${url}: ${res.body}`).to.equal(200);
    }
  });

  it('viewers, editors and users without keys cannot send or count subscribers (403, nothing leaked)', async () => {
    const viewer = await t.createUser({ roles: ['viewer'] });
    const editor = await t.createUser({ roles: ['editor'] });
    const nobody = await t.createUser({ permissions: [] });
    for (const user of [viewer, editor, nobody]) {
      const send = await t.call('POST', '/pwa/send', user, { websiteId, title: 'x' });
      expect(send.statusCode, send.body).to.equal(403);
      const count = await t.call('GET', `/pwa/subscribers?websiteId=${websiteId}`, user);
      expect(count.statusCode, count.body).to.equal(403);
      expect(count.body).not.to.contain('subscribers');
    }
  });
});
