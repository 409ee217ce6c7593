import { expect } from 'chai';
import { startPushService } from '../../../test/helpers/push-service.ts';
import { startTestKernel, type TestKernel, type TestUser } from '../../../test/helpers/kernel.ts';
import { counts, sendAndWait } from './sends.ts';

type PushService = Awaited<ReturnType<typeof startPushService>>;

/**
 * Push notifications against a local push service that checks every message as the Web Push
 * protocol specifies: the VAPID token's ES256 signature and claims (RFC 8292) and the aes128gcm
 * payload, decrypted with the subscriber's own key (RFC 8291).
 */
describe('push: /pwa/subscribe and /pwa/send', function () {
  this.timeout(60_000);
  let t: TestKernel;
  let admin: TestUser;
  let service: PushService;
  let websiteId: string;

  before(async () => {
    service = await startPushService();
    t = await startTestKernel({
      plugins: ['identity', 'gateway', 'assets', 'content', 'push'],
      env: { INTEGRATION_SECRETS_ENCRYPTION_KEY: 'c3'.repeat(32), PUSH_VAPID_SUBJECT: 'mailto:ops@example.test' },
    });
    admin = await t.admin();
    const site = await t.call('POST', '/cms-one/websites', admin, { name: 'Shop', rootPath: '/shop', locales: ['en'] });
    expect(site.statusCode, site.body).to.equal(201);
    websiteId = site.json().id;
  });
  after(async () => {
    await t?.close();
    await service?.close();
  });

  const subscribe = (subscription: unknown, site = websiteId) =>
    t.call('POST', '/pwa/subscribe', null, { websiteId: site, subscription });

  it('refuses a subscription that is not a push subscription, naming the field', async () => {
    const good = service.subscriber();
    const cases: [unknown, string][] = [
      [{ ...good, endpoint: 'http://push.example.test/x' }, 'endpoint'],
      [{ ...good, endpoint: 'ftp://push.example.test/x' }, 'endpoint'],
      [{ ...good, endpoint: 'https://user:pw@push.example.test/x' }, 'endpoint'],
      [{ ...good, keys: { ...good.keys, p256dh: good.keys.p256dh.slice(1) } }, 'p256dh'],
      [{ ...good, keys: { ...good.keys, auth: `${good.keys.auth}AA` } }, 'auth'],
      [{ endpoint: good.endpoint }, 'keys'],
    ];
    for (const [subscription, field] of cases) {
      const res = await subscribe(subscription);
      expect(res.statusCode, JSON.stringify(subscription)).to.equal(400);
      expect(res.json().message + (res.json().field ?? '')).to.contain(field);
    }
    const unknownSite = await subscribe(good, '00000000-0000-4000-8000-000000000000');
    expect(unknownSite.statusCode).to.equal(404);
    expect(await t.db('push_subscriptions').first()).to.equal(undefined);
  });

  it("sends a signed, encrypted message to each of the website's subscribers; expired ones are removed", async () => {
    const alice = service.subscriber();
    const bob = service.subscriber();
    for (const s of [alice, bob]) expect((await subscribe(s)).statusCode).to.equal(201);
    expect((await subscribe(alice)).statusCode, 'subscribing again is harmless').to.equal(201);
    service.answer(bob.endpoint, 410);

    const message = { websiteId, title: 'Sale', body: 'Everything half price', url: '/shop/sale', ttlSeconds: 600 };
    expect((await t.call('POST', '/pwa/send', null, message)).statusCode).to.equal(401);
    const editor = await t.createUser({ permissions: ['pages:edit'] });
    expect((await t.call('POST', '/pwa/send', editor, message)).statusCode).to.equal(403);

    const sender = await t.createUser({ permissions: ['push:send'] });
    const sent = await sendAndWait(t, sender, message);
    expect(counts(sent)).to.deep.equal({ sent: 1, removed: 1, failed: 0 });
    expect(sent).to.include({ status: 'done', total: 2, unsent: 0, websiteId });
    expect(service.rejected).to.deep.equal([]);
    expect(service.deliveries).to.have.length(2);

    const publicKey = (await t.call('GET', '/pwa/vapid-public-key', null)).json().publicKey;
    for (const d of service.deliveries) {
      expect(JSON.parse(d.payload)).to.deep.equal({ title: 'Sale', body: 'Everything half price', url: '/shop/sale' });
      expect(d.senderKey).to.equal(publicKey);
      expect(d.ttl).to.equal('600');
      expect(d.claims.aud).to.equal(service.origin);
      expect(d.claims.sub).to.equal('mailto:ops@example.test');
      const now = Math.floor(Date.now() / 1000);
      expect(d.claims.exp)
        .to.be.above(now - 60)
        .and.at.most(now + 24 * 3600);
    }

    // Bob's push service said 410 Gone: the next message only goes to Alice.
    const again = await sendAndWait(t, sender, message);
    expect(counts(again)).to.deep.equal({ sent: 1, removed: 0, failed: 0 });
    expect(service.deliveries.slice(2).map((d) => d.path)).to.deep.equal([new URL(alice.endpoint).pathname]);
  });

  it("counts a website's subscribers for a holder of push:send (the dashboard's figure)", async () => {
    const site = await t.call('POST', '/cms-one/websites', admin, { name: 'Blog', rootPath: '/blog', locales: ['en'] });
    expect(site.statusCode, site.body).to.equal(201);
    const blogId = site.json().id;
    const count = (user: TestUser | null, id = blogId) => t.call('GET', `/pwa/subscribers?websiteId=${id}`, user);
    const sender = await t.createUser({ permissions: ['push:send'] });
    expect((await count(sender)).json()).to.deep.equal({ websiteId: blogId, subscribers: 0 });
    await t.advanceClock(61_000); // a fresh minute of the per-address subscribe limit
    for (const s of [service.subscriber(), service.subscriber()])
      expect((await subscribe(s, blogId)).statusCode).to.equal(201);
    expect((await count(sender)).json()).to.deep.equal({ websiteId: blogId, subscribers: 2 });
    expect((await count(null)).statusCode).to.equal(401);
    expect((await count(await t.createUser({ permissions: ['pages:edit'] }))).statusCode).to.equal(403);
    const unknown = await count(sender, '00000000-0000-4000-8000-000000000000');
    expect(unknown.statusCode).to.equal(404);
    expect(unknown.json().code).to.equal('WEBSITE_NOT_FOUND');
    expect((await count(sender, 'not-a-uuid')).statusCode).to.equal(400);
  });

  it('keeps the VAPID private key sealed at rest and never returns it', async () => {
    const [row] = await t.db('push_vapid_keys').select();
    expect(row.private_key).to.match(/^v1:INTEGRATION_SECRETS_ENCRYPTION_KEY:/);
    const answer = await t.call('GET', '/pwa/vapid-public-key', null);
    expect(answer.json()).to.deep.equal({ publicKey: row.public_key });
    expect(answer.body).not.to.contain(row.private_key);
  });
});

describe('push: without INTEGRATION_SECRETS_ENCRYPTION_KEY', function () {
  this.timeout(60_000);

  it('stores the private key in clear text (the logged warning says so) and serves the public key', async () => {
    const t = await startTestKernel({ plugins: ['identity', 'push'] });
    try {
      const [row] = await t.db('push_vapid_keys').select();
      expect(row.private_key).to.match(/^plain:[\w-]{43}$/);
      expect((await t.call('GET', '/pwa/vapid-public-key', null)).json()).to.deep.equal({ publicKey: row.public_key });
    } finally {
      await t.close();
    }
  });
});

describe('push: the outbound policy decides at subscribe time', function () {
  this.timeout(60_000);
  const keys = () => startPushService().then(async (s) => ({ keys: s.subscriber().keys, close: () => s.close() }));

  it('in production refuses loopback, private (OUTBOUND_ALLOW_PRIVATE=false), link-local and metadata endpoints with 400 naming the field', async () => {
    const local = await keys();
    const t = await startTestKernel({
      plugins: ['identity', 'gateway', 'assets', 'content', 'push'],
      env: {
        NODE_ENV: 'production',
        OUTBOUND_ALLOW_PRIVATE: 'false',
        TOTP_ENCRYPTION_KEY: 'd4'.repeat(32),
        GATEWAY_SECRETS_ENCRYPTION_KEY: 'e5'.repeat(32),
        INTEGRATION_SECRETS_ENCRYPTION_KEY: 'f6'.repeat(32),
        PUSH_VAPID_SUBJECT: 'mailto:ops@example.test',
      },
    });
    try {
      const admin = await t.admin();
      const site = await t.call('POST', '/cms-one/websites', admin, {
        name: 'Prod',
        rootPath: '/prod',
        locales: ['en'],
      });
      expect(site.statusCode, site.body).to.equal(201);
      const websiteId = site.json().id;
      for (const endpoint of [
        'https://127.0.0.1/push/a',
        'https://[::1]/push/b',
        'https://localhost/push/c',
        'https://10.1.2.3/push/d',
        'https://192.168.0.7/push/e',
        'https://169.254.169.254/push/f',
      ]) {
        const res = await t.call('POST', '/pwa/subscribe', null, {
          websiteId,
          subscription: { endpoint, keys: local.keys },
        });
        expect(res.statusCode, `${endpoint}: ${res.body}`).to.equal(400);
        expect(res.json()).to.include({ code: 'ENDPOINT_REFUSED', field: 'subscription.endpoint' });
        expect(res.json().message, endpoint).to.match(/loopback|private|link-local|metadata/);
      }
      expect(await t.db('push_subscriptions').select()).to.deep.equal([]);
      // A public address passes (a literal, so the check needs no DNS; nothing is connected to).
      const ok = await t.call('POST', '/pwa/subscribe', null, {
        websiteId,
        subscription: { endpoint: 'https://93.184.216.34/push/ok', keys: local.keys },
      });
      expect(ok.statusCode, ok.body).to.equal(201);
    } finally {
      await t.close();
      await local.close();
    }
  });

  it('under the sandbox profile refuses every endpoint with 403 OUTBOUND_REFUSED and stores nothing', async () => {
    const service = await startPushService();
    const t = await startTestKernel({
      plugins: ['identity', 'gateway', 'assets', 'content', 'push'],
      env: { SANDBOX: '1', PUSH_VAPID_SUBJECT: 'mailto:ops@example.test' },
    });
    try {
      const admin = await t.admin();
      const site = await t.call('POST', '/cms-one/websites', admin, {
        name: 'Demo',
        rootPath: '/demo',
        locales: ['en'],
      });
      const res = await t.call('POST', '/pwa/subscribe', null, {
        websiteId: site.json().id,
        subscription: service.subscriber(),
      });
      expect(res.statusCode, res.body).to.equal(403);
      expect(res.json()).to.include({ code: 'OUTBOUND_REFUSED', field: 'subscription.endpoint' });
      expect(await t.db('push_subscriptions').select()).to.deep.equal([]);
    } finally {
      await t.close();
      await service.close();
    }
  });
});
