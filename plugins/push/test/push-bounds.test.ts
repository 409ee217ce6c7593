import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { startPushService } from '../../../test/helpers/push-service.ts';
import { startTestKernel, type TestKernel, type TestUser } from '../../../test/helpers/kernel.ts';
import { sendAndWait } from './sends.ts';

const PLUGINS = ['identity', 'gateway', 'assets', 'content', 'push'];

async function website(t: TestKernel, admin: TestUser, name: string): Promise<string> {
  const site = await t.call('POST', '/cms-one/websites', admin, { name, rootPath: `/${name}`, locales: ['en'] });
  expect(site.statusCode, site.body).to.equal(201);
  return site.json().id;
}

/**
 * Issue 30, item 10: anonymous visitors choose the URLs push messages are POSTed to, so in production
 * those must be public addresses whatever the gateway's own allowances; a website keeps a bounded
 * number of subscriptions; and `/pwa/send` answers at once (202) while the send runs in the
 * background within its budget, its outcome read at `GET /pwa/send/:id`.
 */
describe('push: bounds on what visitors can make the server do', function () {
  this.timeout(60_000);

  it('in production refuses private, loopback and link-local endpoints even where the gateway allows them', async () => {
    const local = await startPushService();
    const t = await startTestKernel({
      plugins: PLUGINS,
      env: {
        NODE_ENV: 'production',
        // The gateway's allowances for the endpoints administrators configure: none applies to visitors.
        OUTBOUND_ALLOW_PRIVATE: 'true',
        OUTBOUND_ALLOW_HOSTS: '127.0.0.1,169.254.169.254,10.1.2.3',
        TOTP_ENCRYPTION_KEY: 'd4'.repeat(32),
        GATEWAY_SECRETS_ENCRYPTION_KEY: 'e5'.repeat(32),
        INTEGRATION_SECRETS_ENCRYPTION_KEY: 'f6'.repeat(32),
        PUSH_VAPID_SUBJECT: 'mailto:ops@example.test',
      },
    });
    try {
      const websiteId = await website(t, await t.admin(), 'prod');
      const { keys } = local.subscriber();
      for (const endpoint of [
        'https://10.1.2.3/push/a',
        'https://172.16.4.5/push/b',
        'https://192.168.0.7/push/c',
        'https://100.64.0.1/push/d',
        'https://[fd00::1]/push/e',
        'https://127.0.0.1/push/f',
        'https://169.254.169.254/push/g',
        'https://[::ffff:10.0.0.1]/push/h',
      ]) {
        const res = await t.call('POST', '/pwa/subscribe', null, { websiteId, subscription: { endpoint, keys } });
        expect(res.statusCode, `${endpoint}: ${res.body}`).to.equal(400);
        expect(res.json()).to.include({ code: 'ENDPOINT_REFUSED', field: 'subscription.endpoint' });
      }
      expect(await t.db('push_subscriptions').select('id')).to.deep.equal([]);
      const ok = await t.call('POST', '/pwa/subscribe', null, {
        websiteId,
        subscription: { endpoint: 'https://93.184.216.34/push/ok', keys },
      });
      expect(ok.statusCode, ok.body).to.equal(201);
    } finally {
      await t.close();
      await local.close();
    }
  });

  it('keeps at most PUSH_MAX_SUBSCRIPTIONS_PER_WEBSITE subscriptions per website; renewing one still works', async () => {
    const service = await startPushService();
    const t = await startTestKernel({
      plugins: PLUGINS,
      env: { PUSH_VAPID_SUBJECT: 'mailto:ops@example.test', PUSH_MAX_SUBSCRIPTIONS_PER_WEBSITE: '2' },
    });
    try {
      const admin = await t.admin();
      const [shop, blog] = [await website(t, admin, 'shop'), await website(t, admin, 'blog')];
      const subscribe = (websiteId: string, subscription: unknown) =>
        t.call('POST', '/pwa/subscribe', null, { websiteId, subscription });
      const [a, b, c] = [service.subscriber(), service.subscriber(), service.subscriber()];
      expect((await subscribe(shop, a)).statusCode).to.equal(201);
      expect((await subscribe(shop, b)).statusCode).to.equal(201);
      const full = await subscribe(shop, c);
      expect(full.statusCode, full.body).to.equal(409);
      expect(full.json()).to.include({ code: 'PUSH_SUBSCRIPTIONS_FULL', field: 'websiteId' });
      expect((await subscribe(shop, a)).statusCode, 'renewing a stored endpoint').to.equal(201);
      expect((await subscribe(blog, c)).statusCode, 'another website counts its own').to.equal(201);
      expect(await t.db('push_subscriptions').where({ website_id: shop }).select('id')).to.have.length(2);
    } finally {
      await t.close();
      await service.close();
    }
  });

  describe('a send runs in the background within its budget', () => {
    let t: TestKernel;
    let sender: TestUser;
    let silent: Server;
    let silentUrl: string;
    let service: Awaited<ReturnType<typeof startPushService>>;

    before(async () => {
      service = await startPushService();
      // A push endpoint that accepts the message and never answers.
      silent = createServer(() => undefined);
      await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
      silentUrl = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
      t = await startTestKernel({
        plugins: PLUGINS,
        env: {
          PUSH_VAPID_SUBJECT: 'mailto:ops@example.test',
          PUSH_SEND_BUDGET_SECONDS: '1',
          PUSH_SEND_CONCURRENCY: '1',
        },
      });
      sender = await t.createUser({ permissions: ['push:send'] });
    });
    after(async () => {
      await t?.close();
      silent?.closeAllConnections();
      await new Promise((resolve) => silent?.close(resolve));
      await service?.close();
    });

    it('answers 202 at once; the outcome says over_budget and how many were not tried', async () => {
      const websiteId = await website(t, await t.admin(), 'slow');
      const { keys } = service.subscriber();
      for (const n of [1, 2, 3]) {
        const res = await t.call('POST', '/pwa/subscribe', null, {
          websiteId,
          subscription: { endpoint: `${silentUrl}/push/${n}`, keys },
        });
        expect(res.statusCode, res.body).to.equal(201);
      }
      const started = performance.now();
      const queued = await t.call('POST', '/pwa/send', sender, { websiteId, title: 'Now' });
      expect(queued.statusCode, queued.body).to.equal(202);
      // Answered before any message went out: the send is still queued.
      expect(queued.json()).to.include({ status: 'queued', websiteId, outcome: `/pwa/send/${queued.json().id}` });

      await t.kernel.resolve('jobs').settled('push.sends');
      // Three silent endpoints one after the other would take 30 s at 10 s each: the 1 s budget ends it.
      expect(performance.now() - started, 'the budget bounds the whole send').to.be.below(15_000);
      const outcome = await t.call('GET', queued.json().outcome, sender);
      expect(outcome.statusCode, outcome.body).to.equal(200);
      // The one in flight when the budget ends fails; on a loaded machine the first may fail before it
      // and the next be the one cut off. Either way nothing was sent and the rest was never tried.
      const report = outcome.json() as { status: string; total: number; sent: number; failed: number; unsent: number };
      expect(report).to.include({ status: 'over_budget', total: 3, sent: 0 });
      expect(report.failed, 'failed').to.be.within(1, 2);
      expect(report.failed + report.unsent).to.equal(3);
      expect(outcome.json().finishedAt).to.be.a('string');
    });

    it('a send that reaches everyone within the budget is done; the outcome needs push:send', async () => {
      const websiteId = await website(t, await t.admin(), 'quick');
      expect(
        (await t.call('POST', '/pwa/subscribe', null, { websiteId, subscription: service.subscriber() })).statusCode,
      ).to.equal(201);
      const done = await sendAndWait(t, sender, { websiteId, title: 'Hi' });
      expect(done).to.include({ status: 'done', total: 1, sent: 1, failed: 0, unsent: 0 });
      expect((await t.call('GET', done.outcome, null)).statusCode).to.equal(401);
      const editor = await t.createUser({ permissions: ['pages:edit'] });
      expect((await t.call('GET', done.outcome, editor)).statusCode).to.equal(403);
      const unknown = await t.call('GET', '/pwa/send/00000000-0000-4000-8000-000000000000', sender);
      expect(unknown.statusCode).to.equal(404);
      expect(unknown.json().code).to.equal('SEND_NOT_FOUND');
    });
  });
});
