import { expect } from 'chai';
import { expectNoLeaks } from '../../../test/helpers/answer-leaks.ts';
import { startTestKernel, type TestKernel, type TestUser } from '../../../test/helpers/kernel.ts';
import { startPushService } from '../../../test/helpers/push-service.ts';
import type { PushService } from '../services.ts';

/**
 * The answer schemas are the filter: even when sending hands over more than its counts (the stored
 * subscriptions with their keys and auth secret, the VAPID private key, sealed and in clear), no
 * answer of the push routes carries them.
 */
describe('push: no answer carries a subscription secret or the private key', function () {
  this.timeout(60_000);
  let t: TestKernel;
  let admin: TestUser;
  let service: Awaited<ReturnType<typeof startPushService>>;
  let websiteId: string;
  let subscriber: ReturnType<typeof service.subscriber>;

  before(async () => {
    service = await startPushService();
    t = await startTestKernel({
      plugins: ['identity', 'gateway', 'assets', 'content', 'push'],
      env: { INTEGRATION_SECRETS_ENCRYPTION_KEY: 'c3'.repeat(32), PUSH_VAPID_SUBJECT: 'mailto:ops@example.test' },
    });
    admin = await t.admin();
    const site = await t.call('POST', '/cms-one/websites', admin, {
      name: 'Leaks',
      rootPath: '/leaks',
      locales: ['en'],
    });
    expect(site.statusCode, site.body).to.equal(201);
    websiteId = site.json().id;
    subscriber = service.subscriber();
  });
  after(async () => {
    await t?.close();
    await service?.close();
  });

  const answers = async () => [
    await t.call('GET', '/pwa/vapid-public-key', null),
    await t.call('POST', '/pwa/subscribe', null, { websiteId, subscription: subscriber }),
    await t.call('GET', `/pwa/subscribers?websiteId=${websiteId}`, admin),
    await t.call('POST', '/pwa/send', admin, { websiteId, title: 'Leak check' }),
  ];
  const statuses = [200, 201, 200, 202];

  /** The kept pair: the sealed private key as stored, and the one the service signs with. */
  const vapid = async (push: PushService) => {
    const stored = (await push.store.vapidKeys())!;
    const inUse = (push as unknown as { keys: { privateKey: string } }).keys;
    return { sealed: stored.privateKey, privateKey: inUse.privateKey };
  };

  it('answers the public key, a subscribe, the count and a send without an internal column', async () => {
    const res = await answers();
    expect(
      res.map((r) => r.statusCode),
      res.map((r) => r.body).join('\n'),
    ).to.deep.equal(statuses);
    const { sealed, privateKey } = await vapid(t.services<PushService>('push'));
    expectNoLeaks(res, { values: [sealed, privateKey, subscriber.keys.auth, subscriber.keys.p256dh] });
  });

  it('answers a send and its outcome by the schema, whatever else the store returns', async () => {
    const push = t.services<PushService>('push');
    const { sealed, privateKey } = await vapid(push);
    const findSend = push.store.findSend;
    push.store.findSend = async (id) => {
      const row = await findSend.call(push.store, id);
      const subscriptions = await push.store.subscribers(websiteId);
      return row && { ...row, subscriptions, vapid: { privateKey, sealed }, private_key: privateKey };
    };
    try {
      const queued = await t.call('POST', '/pwa/send', admin, { websiteId, title: 'Leak check' });
      expect(queued.statusCode, queued.body).to.equal(202);
      await t.kernel.resolve('jobs').settled('push.sends');
      const res = await t.call('GET', `/pwa/send/${queued.json().id}`, admin);
      expect(res.statusCode, res.body).to.equal(200);
      expect(res.json()).to.have.keys(
        'id',
        'websiteId',
        'status',
        'total',
        'sent',
        'removed',
        'failed',
        'unsent',
        'problem',
        'createdAt',
        'startedAt',
        'finishedAt',
        'outcome',
      );
      expect(res.json().sent).to.be.greaterThan(0);
      expectNoLeaks([queued, res], {
        keys: ['subscriptions', 'vapid', 'privateKey', 'private_key', 'auth', 'p256dh', 'payload'],
        values: [sealed, privateKey, subscriber.keys.auth, subscriber.keys.p256dh],
      });
    } finally {
      push.store.findSend = findSend;
    }
  });
});
