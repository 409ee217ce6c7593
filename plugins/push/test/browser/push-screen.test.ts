import { expect } from 'chai';
import {
  appErrors,
  type BrowserProduct,
  expectAccessible,
  sharedBrowserProduct,
  heading,
  signIn,
} from '../../../../test/helpers/browser.ts';
import { startPushService } from '../../../../test/helpers/push-service.ts';

describe('push screen in the browser: a website’s subscribers and a notification to them', function () {
  this.timeout(120_000);
  let p: BrowserProduct;
  let service: Awaited<ReturnType<typeof startPushService>>;
  before(async function () {
    this.timeout(240_000);
    p = await sharedBrowserProduct();
    service = await startPushService();
  });
  after(async () => {
    await service?.close();
  });

  it('shows the VAPID key and the subscriber count, sends a notification and reports what happened', async () => {
    const admin = await p.t.admin();
    const root = `/push${Date.now().toString(36)}`;
    const site = await p.t.call('POST', '/cms-one/websites', admin, {
      name: 'Push shop',
      rootPath: root,
      locales: ['en'],
    });
    expect(site.statusCode, site.body).to.equal(201);
    const websiteId = site.json().id as string;
    const [alice, bob] = [service.subscriber(), service.subscriber()];
    for (const subscription of [alice, bob])
      expect((await p.t.call('POST', '/pwa/subscribe', null, { websiteId, subscription })).statusCode).to.equal(201);
    service.answer(bob.endpoint, 410);
    const editor = await p.t.createUser({ permissions: ['push:send', 'objects:read'] });

    const { page, errors } = await p.page();
    await signIn(page, editor, '/admin/push');
    await heading(page, 'Push notifications').waitFor();
    await page.getByText('Choose a website', { exact: true }).first().waitFor();
    await expectAccessible(page, 'push screen without a website');
    await page.getByRole('combobox', { name: 'Website' }).click();
    await page.getByRole('option', { name: `Push shop (${root})` }).click();
    expect(new URL(page.url()).searchParams.get('website')).to.equal(websiteId);
    const subscribers = page.getByRole('group', { name: 'Subscribers' });
    await subscribers.getByText('2', { exact: true }).waitFor();
    const publicKey = (await p.t.call('GET', '/pwa/vapid-public-key', null)).json().publicKey as string;
    await page.getByText(publicKey).waitFor();
    await expectAccessible(page, 'push screen of a website');

    await page.getByRole('button', { name: 'Send to 2 subscribers' }).click();
    await page.getByText('Give the notification a title').waitFor();
    await page.getByLabel('Title').fill('Spring sale');
    await page.getByLabel('Text').fill('Everything half price');
    await page.getByLabel('Link').fill(`${root}/sale`);
    await page.getByRole('button', { name: 'Send to 2 subscribers' }).click();
    await page.getByText('Sent to 1 subscriber; 1 expired subscription removed.').waitFor();
    // The expired subscription is gone: the count follows.
    await subscribers.getByText('1', { exact: true }).waitFor();
    await page.getByRole('button', { name: 'Send to 1 subscriber' }).waitFor();
    const delivered = service.deliveries.filter((d) => d.path === new URL(alice.endpoint).pathname);
    expect(delivered.map((d) => JSON.parse(d.payload))).to.deep.equal([
      { title: 'Spring sale', body: 'Everything half price', url: `${root}/sale` },
    ]);
    expect(delivered[0].ttl).to.equal(String(24 * 3600));
    await expectAccessible(page, 'push screen after sending');

    // A deep link opens the same website at the phone's width.
    const phone = await p.page('phone');
    await signIn(phone.page, editor, `/admin/push?website=${websiteId}`);
    await phone.page.getByRole('group', { name: 'Subscribers' }).getByText('1', { exact: true }).waitFor();
    await expectAccessible(phone.page, 'push screen at 390 px');
    expect(appErrors(errors)).to.deep.equal([]);
    expect(appErrors(phone.errors)).to.deep.equal([]);
  });

  it('is not offered to a user without push:send, and a deep link says it is not allowed', async () => {
    const editor = await p.t.createUser({ permissions: ['objects:read'] });
    const { page, errors } = await p.page();
    await signIn(page, editor, '/admin/push');
    await page.getByRole('alert').filter({ hasText: 'Not allowed' }).waitFor();
    expect(
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Push notifications' }).count(),
    ).to.equal(0);
    expect(appErrors(errors)).to.deep.equal([]);
  });
});
