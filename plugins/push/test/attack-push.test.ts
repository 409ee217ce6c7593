import { expect } from 'chai';
import { startPushService } from '../../../test/helpers/push-service.ts';
import { startTestKernel, type TestKernel, type TestUser } from '../../../test/helpers/kernel.ts';
import { counts, sendAndWait } from './sends.ts';

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
      expect(res.statusCode, `${url}: ${res.body}`).to.equal(202);
    }
    // These sends run in the background: let them end here, so they cannot reach a later test's subscriber.
    await t.kernel.resolve('jobs').settled('push.sends');
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

  it("a visitor's key that is not a P-256 point is refused at subscribe and cannot stop sends to others", async () => {
    const service = await startPushService();
    try {
      const good = service.subscriber();
      // 87 base64url characters decode to 65 bytes but not to a point of the curve (no 0x04 prefix).
      const notAPoint = { ...good, endpoint: `${good.endpoint}-x`, keys: { ...good.keys, p256dh: 'A'.repeat(87) } };
      const refused = await t.call('POST', '/pwa/subscribe', null, { websiteId, subscription: notAPoint });
      expect(refused.statusCode, refused.body).to.equal(400);
      expect(refused.json().field, refused.body).to.equal('subscription.keys.p256dh');
      expect(await t.db('push_subscriptions').where({ endpoint: notAPoint.endpoint }).first()).to.equal(undefined);

      // One stored before the check (an older release): the send skips it and still reaches the others.
      expect((await t.call('POST', '/pwa/subscribe', null, { websiteId, subscription: good })).statusCode).to.equal(
        201,
      );
      const [row] = await t.db('push_subscriptions').where({ endpoint: good.endpoint });
      const { id: _id, endpoint: _e, ...rest } = row;
      await t.db('push_subscriptions').insert({ ...rest, endpoint: notAPoint.endpoint, p256dh: 'A'.repeat(87) });
      const sent = await sendAndWait(t, admin, { websiteId, title: 'Sale' });
      expect(counts(sent)).to.deep.equal({ sent: 1, removed: 0, failed: 1 });
      expect(service.deliveries).to.have.length(1);
    } finally {
      await service.close();
    }
  });

  it('slow push endpoints (anyone may subscribe one) do not hold the send: messages go out side by side', async () => {
    const service = await startPushService();
    try {
      const site = await t.call('POST', '/cms-one/websites', admin, {
        name: 'Slow',
        rootPath: '/slow',
        locales: ['en'],
      });
      const slowSite = site.json().id as string;
      const subscribers = Array.from({ length: 4 }, () => service.subscriber());
      for (const subscription of subscribers)
        expect(
          (await t.call('POST', '/pwa/subscribe', null, { websiteId: slowSite, subscription })).statusCode,
        ).to.equal(201);
      // The push service answers only once all four messages wait at once: sent one at a time, the
      // first would time out and every one would fail.
      service.hold(4);
      const sent = await sendAndWait(t, admin, { websiteId: slowSite, title: 'Now' });
      expect(counts(sent)).to.deep.equal({ sent: 4, removed: 0, failed: 0 });
      expect(service.rejected).to.deep.equal([]);
    } finally {
      await service.close();
    }
  });
});
