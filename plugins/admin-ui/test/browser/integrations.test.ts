import { expect } from 'chai';
import type { Locator, Page } from 'playwright-core';
import {
  appErrors,
  type BrowserProduct,
  expectAccessible,
  sharedBrowserProduct,
  signInAs,
  type WIDTHS,
} from '../../../../test/helpers/browser.ts';
import { png } from '../../../../test/helpers/images.ts';
import type { TestUser } from '../../../../test/helpers/kernel.ts';
import { type Receiver, startReceiver } from '../../../../test/helpers/receiver.ts';

/**
 * The asset library and the integrator screens (gateway endpoints, API clients and keys, event
 * subscriptions) in Chromium against the real product.
 */
describe('admin-ui in the browser: assets and integrations', function () {
  this.timeout(180_000);
  let p: BrowserProduct;
  let admin: TestUser;
  let receiver: Receiver;
  before(async function () {
    this.timeout(240_000);
    p = await sharedBrowserProduct();
    admin = await p.t.createUser({ roles: ['admin'] });
    receiver = await startReceiver();
  });
  after(async () => {
    await receiver?.close();
  });

  /** A page signed in as `user` (the session cookie of the harness), at `path`. */
  async function open(user: TestUser, path: string, width: keyof typeof WIDTHS = 'desktop') {
    const opened = await p.page(width);
    await signInAs(p, opened.context, user);
    await opened.page.goto(path);
    return opened;
  }

  const heading = (page: Page, name: string | RegExp) => page.getByRole('heading', { name, level: 1 }).waitFor();

  /** The natural width of an image once it has loaded (a broken image never resolves). */
  async function loadedWidth(img: Locator): Promise<number> {
    const handle = await img.page().waitForFunction(
      (el) => {
        const image = el as unknown as { complete: boolean; naturalWidth: number };
        return image.complete && image.naturalWidth > 0 && image.naturalWidth;
      },
      await img.elementHandle(),
    );
    return (await handle.jsonValue()) as number;
  }

  /**
   * axe once the page is still: a dialog fading in has text at partial opacity, which axe measures
   * as low contrast. Waits for the finite animations only (a loader spins forever).
   */
  async function accessible(page: Page, where: string) {
    await page.waitForFunction(() => {
      // Runs in the page (the root tsconfig has no DOM types; the page's CSP forbids string eval).
      type Timing = { getTiming(): { iterations: number } };
      const { document } = globalThis as unknown as {
        document: { getAnimations(): { playState: string; effect: Timing | null }[] };
      };
      return document
        .getAnimations()
        .every((a) => a.playState !== 'running' || a.effect?.getTiming().iterations === Number.POSITIVE_INFINITY);
    });
    await expectAccessible(page, where);
  }

  async function pick(page: Page, label: string, option: string | RegExp) {
    await page.getByRole('combobox', { name: label }).click();
    await page.getByRole('option', { name: option }).click();
  }

  it('uploads an image by drop zone and shows its thumbnail; details, preset preview, visibility, rename, delete', async () => {
    const preset = await p.t.call('POST', '/api/v1/dam/presets', admin, { name: 'card', width: 120, format: 'png' });
    expect(preset.statusCode, preset.body).to.equal(200);
    const folder = `campaign-${Date.now()}`;
    const { page, errors } = await open(admin, '/admin/assets');
    await heading(page, 'Asset library');

    // A folder, then into it (the folder is in the URL: a deep link); it is empty.
    await page.getByRole('button', { name: 'New folder' }).click();
    await page.getByLabel('Folder name').fill(folder);
    await page.getByRole('button', { name: 'Create folder' }).click();
    await page.getByRole('navigation', { name: 'Folders' }).getByRole('link', { name: folder }).click();
    await page.getByText('No files in this folder').waitFor();
    expect(new URL(page.url()).searchParams.get('folder')).to.equal(folder);
    await accessible(page, 'asset library (empty folder)');

    // Drag and drop: a file dropped on the zone; its bar reaches "Uploaded" and the thumbnail loads.
    const bytes = (await png(640, 480)).toString('base64');
    const dropped = await page.evaluateHandle((base64) => {
      const g = globalThis as unknown as {
        atob(text: string): string;
        DataTransfer: new () => { items: { add(file: unknown): void } };
        File: new (parts: unknown[], name: string, opts: { type: string }) => unknown;
      };
      const transfer = new g.DataTransfer();
      const data = Uint8Array.from(g.atob(base64), (c) => c.charCodeAt(0));
      transfer.items.add(new g.File([data], 'poster.png', { type: 'image/png' }));
      return transfer;
    }, bytes);
    const zone = page.getByRole('region', { name: 'Upload files' });
    await zone.dispatchEvent('dragover', { dataTransfer: dropped });
    await zone.getByText('Drop to upload').waitFor();
    await zone.dispatchEvent('drop', { dataTransfer: dropped });
    await page.getByRole('list', { name: 'Uploads' }).getByText('Uploaded').waitFor();
    const thumb = page.getByRole('list', { name: 'Files' }).getByRole('img', { name: 'poster.png' });
    await thumb.waitFor();
    expect(await thumb.getAttribute('src')).to.match(new RegExp(`^/dam-asset/${folder}/poster\\.png\\?thumb=\\d+`));
    expect(await loadedWidth(thumb)).to.be.greaterThan(0);

    // The button beside it opens the file chooser (the keyboard's way in).
    const chooser = page.waitForEvent('filechooser');
    await page.getByRole('button', { name: 'Choose files to upload' }).click();
    await (await chooser).setFiles({ name: 'logo.png', mimeType: 'image/png', buffer: await png(64, 64) });
    await page.getByRole('list', { name: 'Files' }).getByRole('img', { name: 'logo.png' }).waitFor();
    await accessible(page, 'asset library with a file');

    // Details in a drawer the URL opens; the back button closes it.
    await page.getByRole('button', { name: 'Open poster.png' }).click();
    const drawer = page.getByRole('dialog', { name: 'poster.png' });
    await drawer.getByText('640 × 480 px').waitFor();
    const { id } = (await p.t.call('GET', `/api/v1/dam/assets?folder=${folder}&search=poster`, admin)).json().assets[0];
    expect(new URL(page.url()).searchParams.get('asset')).to.equal(id);
    await accessible(page, 'asset details');
    await page.goBack();
    await drawer.waitFor({ state: 'hidden' });
    await page.goForward();
    await drawer.getByText('640 × 480 px').waitFor();

    // The preset as a site gets it.
    await pick(page, 'Preview with an image preset', /^card/);
    const preview = drawer.getByRole('img', { name: 'poster.png with the preset card' });
    await preview.waitFor();
    expect(await loadedWidth(preview)).to.equal(120);

    // Visibility, then rename (a move in the same folder).
    await drawer.getByText('Private', { exact: true }).click();
    await drawer.getByText('Only signed-in users can load it').waitFor();
    expect((await p.t.call('GET', `/api/v1/dam/assets/${id}`, admin)).json().visibility).to.equal('private');
    await drawer.getByLabel('File name').fill('poster-2026.png');
    await drawer.getByRole('button', { name: 'Move / rename' }).click();
    await page.getByRole('dialog', { name: 'poster-2026.png' }).waitFor();
    expect((await p.t.call('GET', `/api/v1/dam/assets/${id}`, admin)).json().path).to.equal(
      `${folder}/poster-2026.png`,
    );

    // Delete says what it removes; cancel keeps it, confirm removes it.
    await page.getByRole('button', { name: 'Delete file' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete poster-2026.png?' });
    await confirm.getByText(`This removes: the file ${folder}/poster-2026.png, its`).waitFor();
    await confirm.getByRole('button', { name: 'Delete file' }).click();
    await page.getByText('1 file', { exact: true }).waitFor();
    expect((await p.t.call('GET', `/api/v1/dam/assets/${id}`, admin)).statusCode).to.equal(404);
    expect(appErrors(errors)).to.deep.equal([]);
  });

  it('creates a gateway endpoint from a preset with a write-only key, adds and imports routes', async () => {
    const secret = 'appid-secret-7f3a9c';
    // The list's filter is in the URL; one that matches nothing shows the empty state.
    const { page, errors } = await open(admin, '/admin/gateway/endpoints?q=no-such-endpoint');
    await heading(page, 'Gateway endpoints');
    await page.getByText(/No endpoints yet/).waitFor();
    expect(await page.getByRole('textbox', { name: 'Name or URL contains' }).inputValue()).to.equal('no-such-endpoint');
    await accessible(page, 'gateway endpoints (empty)');
    await page.getByRole('link', { name: 'New endpoint' }).click();
    await heading(page, 'New gateway endpoint');
    await pick(page, 'Vendor preset', 'OpenWeather');
    await page.getByText(/routes come with it/).waitFor();
    expect(await page.getByRole('textbox', { name: 'Name', exact: true }).inputValue()).to.equal('openweathermap');
    await page.getByRole('textbox', { name: 'Name', exact: true }).fill('weather');
    await page.getByRole('textbox', { name: 'Base URL' }).fill(receiver.url);
    expect(await page.getByRole('textbox', { name: 'Query parameter name' }).inputValue()).to.equal('appid');
    await page.getByLabel('API key').fill(secret);
    await accessible(page, 'new gateway endpoint');
    await page.getByRole('button', { name: 'Create endpoint' }).click();

    await heading(page, 'weather');
    const endpointId = new URL(page.url()).pathname.split('/').pop()!;
    // The key is "set", never shown back; the field only replaces it.
    await page.getByText('set', { exact: true }).waitFor();
    expect(await page.getByLabel('Replace the api key').inputValue()).to.equal('');
    expect(await page.content()).not.to.contain(secret);
    const routes = page.getByRole('table', { name: 'Routes' });
    await routes.getByText('/data/2.5/weather').waitFor();
    expect(await routes.getByRole('row').count()).to.equal(5); // header + the preset's 4

    // A route by hand, then routes from an OpenAPI document.
    await page.getByRole('textbox', { name: 'Path' }).fill('/alerts');
    await page.getByRole('button', { name: 'Add route' }).click();
    await routes.getByText('/alerts').waitFor();
    const openapi = {
      openapi: '3.0.3',
      info: { title: 'Weather extras', version: '1' },
      paths: { '/uv': { get: { operationId: 'uv' } }, '/air': { post: { operationId: 'air' } } },
    };
    await page.getByLabel('OpenAPI or Swagger document').fill(JSON.stringify(openapi));
    await page.getByRole('button', { name: 'Import routes' }).click();
    await page.getByText('2 routes created, 0 skipped.').waitFor();
    await routes.getByText('/air').waitFor();
    const listed = (await p.t.call('GET', `/api/v1/gateway/endpoints/${endpointId}/routes`, admin)).json().items;
    expect(listed.map((r: { path: string }) => r.path)).to.include.members(['/alerts', '/uv', '/air']);
    await accessible(page, 'gateway endpoint');

    // Replacing the key keeps it write-only; the list links back to the endpoint.
    await page.getByLabel('Replace the api key').fill('appid-rotated-1');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByText('Endpoint saved').waitFor();
    expect(await page.getByLabel('Replace the api key').inputValue()).to.equal('');
    const read = (await p.t.call('GET', `/api/v1/gateway/endpoints/${endpointId}`, admin)).json();
    expect(read.auth).to.deep.include({ type: 'apiKeyQuery', paramName: 'appid', key: { set: true } });
    await page.getByRole('link', { name: 'All endpoints' }).click();
    await page.getByRole('table', { name: 'Gateway endpoints' }).getByRole('link', { name: 'weather' }).waitFor();

    // At phone width too.
    const phone = await open(admin, `/admin/gateway/endpoints/${endpointId}`, 'phone');
    await heading(phone.page, 'weather');
    await phone.page.getByRole('table', { name: 'Routes' }).getByText('/air').waitFor();
    await accessible(phone.page, 'gateway endpoint at 390 px');
    expect(appErrors([...errors, ...phone.errors])).to.deep.equal([]);
  });

  it('creates an API client whose key is shown once, works, and stops working when revoked', async () => {
    const cls = await p.t.call('POST', '/data-classes', admin, {
      name: 'ShopItem',
      label: 'Shop item',
      fields: [{ name: 'title', type: 'text' }],
    });
    expect(cls.statusCode, cls.body).to.equal(201);
    const { page, errors } = await open(admin, '/admin/gateway/clients?q=no-such-client');
    await heading(page, 'API clients');
    await page.getByText('No API clients yet').waitFor();
    await accessible(page, 'API clients (empty)');
    await page.getByRole('button', { name: 'New client' }).click();
    const dialog = page.getByRole('dialog', { name: 'New API client' });
    await dialog.getByRole('textbox', { name: 'Name', exact: true }).fill('Shop backend');
    await dialog.getByRole('combobox', { name: 'Scopes' }).fill('data:read:*');
    await dialog.getByRole('combobox', { name: 'Scopes' }).press('Enter');
    // The installation's classes are offered as scopes, spelled as the class is.
    await dialog.getByRole('combobox', { name: 'Scopes' }).fill('data:read:shop');
    await page.getByRole('option', { name: 'data:read:ShopItem' }).click();
    await accessible(page, 'new API client');
    await dialog.getByRole('button', { name: 'Create client' }).click();

    const shown = page.getByRole('dialog', { name: 'New key of Shop backend' });
    const key = ((await shown.getByLabel('The new API key').textContent()) ?? '').trim();
    expect(key).to.match(/^wbk_[A-Za-z0-9_-]{43}$/);
    await shown.getByRole('button', { name: 'Copy key' }).waitFor();
    await accessible(page, 'new key shown once');
    const me = () => fetch(`${p.baseUrl}/client/v1/me`, { headers: { authorization: `Bearer ${key}` } });
    expect((await me()).status).to.equal(200);
    expect(((await (await me()).json()) as { scopes: string[] }).scopes).to.deep.equal([
      'data:read:*',
      'data:read:ShopItem',
    ]);
    await shown.getByRole('button', { name: 'I saved it, close' }).click();

    await heading(page, 'Shop backend');
    // Never shown again: the page has the prefix only.
    expect(await page.content()).not.to.contain(key);
    const keys = page.getByRole('table', { name: 'Keys' });
    await keys.getByText(`${key.slice(0, 12)}…`).waitFor();
    await accessible(page, 'API client');
    await keys.getByRole('button', { name: /^Revoke key/ }).click();
    const confirm = page.getByRole('dialog', { name: /^Revoke the key/ });
    await confirm.getByText(/every caller using it gets 401/).waitFor();
    await confirm.getByRole('button', { name: 'Revoke key' }).click();
    await keys.getByText(/^revoked/).waitFor();
    expect((await me()).status).to.equal(401);
    expect(appErrors(errors)).to.deep.equal([]);
  });

  it('subscribes to events, sends a test event and shows its delivery; retries one that gave up', async () => {
    receiver.reset();
    const endpoint = (
      await p.t.call('POST', '/api/v1/gateway/endpoints', admin, { name: 'hooks', baseUrl: receiver.url })
    ).json();
    const route = await p.t.call('POST', `/api/v1/gateway/endpoints/${endpoint.id}/routes`, admin, {
      method: 'POST',
      path: '/cms-events',
    });
    expect(route.statusCode, route.body).to.equal(201);

    const { page, errors } = await open(admin, '/admin/events/subscriptions?q=no-such-subscription');
    await heading(page, 'Event subscriptions');
    await page.getByText('No subscriptions yet').waitFor();
    await accessible(page, 'event subscriptions (empty)');
    await page.getByRole('button', { name: 'New subscription' }).click();
    const dialog = page.getByRole('dialog', { name: 'New event subscription' });
    await dialog.getByRole('textbox', { name: 'Name', exact: true }).fill('Search indexer');
    await dialog.getByRole('combobox', { name: 'Events' }).click();
    await page.getByRole('option', { name: 'object.updated' }).click();
    await page.getByRole('option', { name: 'asset.created' }).click();
    await dialog.getByRole('combobox', { name: 'Events' }).press('Escape');
    await pick(page, 'Endpoint', 'hooks');
    await pick(page, 'Route', 'POST /cms-events');
    await accessible(page, 'new event subscription');
    await dialog.getByRole('button', { name: 'Create subscription' }).click();

    await heading(page, 'Search indexer');
    const subscriptionId = new URL(page.url()).pathname.split('/').pop();
    await accessible(page, 'event subscription');
    await page.getByRole('button', { name: 'Send a test event' }).click();
    const log = page.getByRole('table', { name: 'Deliveries' });
    await log.getByText('delivered', { exact: true }).waitFor();
    await receiver.waitForCalls(1);
    expect(receiver.calls[0].headers['x-cms-event-type']).to.equal('object.updated');
    expect(receiver.calls[0].path).to.equal('/cms-events');

    // A delivery that gave up: filtered in the URL, retried from the log, delivered again.
    await p.t
      .db('object_event_deliveries')
      .where({ subscription_id: subscriptionId })
      .update({ status: 'dead', attempts: 6, last_problem: 'receiver answered HTTP 500' });
    await pick(page, 'Status', 'gave up');
    expect(new URL(page.url()).searchParams.get('status')).to.equal('dead');
    await log.getByText('receiver answered HTTP 500').waitFor();
    await accessible(page, 'delivery log');
    await log.getByRole('button', { name: 'Retry' }).click();
    await page.getByText(/Sent again/).waitFor();
    await receiver.waitForCalls(2);
    await page.goBack(); // the filter is in the history: back to the whole log
    await log.getByText('delivered', { exact: true }).waitFor();
    expect(appErrors(errors)).to.deep.equal([]);
  });

  it('opens every integrator screen from the menu at 390 px; each passes axe', async () => {
    const { page, errors } = await open(admin, '/admin', 'phone');
    await heading(page, 'Dashboard');
    for (const [label, title] of [
      ['Asset library', 'Asset library'],
      ['Gateway endpoints', 'Gateway endpoints'],
      ['API clients and keys', 'API clients'],
      ['Event subscriptions', 'Event subscriptions'],
    ]) {
      await page.getByRole('button', { name: 'Toggle the menu' }).click();
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: label, exact: true }).click();
      await heading(page, title);
      // A screen may show more than one loading status at once (the library: folders and files).
      const loading = page.getByRole('status').filter({ hasText: /Loading/ });
      while ((await loading.count()) > 0) await loading.first().waitFor({ state: 'detached' });
      await accessible(page, `${title} at 390 px`);
    }
    expect(appErrors(errors)).to.deep.equal([]);
  });

  it('offers a viewer the library to read only, and no integrator screen', async () => {
    const viewer = await p.t.createUser({ roles: ['viewer'] });
    await p.t.call('POST', '/api/v1/dam/folders', admin, { path: 'press' });
    const { page, errors } = await open(viewer, '/admin/assets', 'phone');
    await heading(page, 'Asset library');
    await page.getByRole('link', { name: 'press' }).waitFor();
    expect(await page.getByRole('button', { name: 'New folder' }).count()).to.equal(0);
    expect(await page.getByRole('button', { name: 'Choose files to upload' }).count()).to.equal(0);
    expect(await page.getByRole('button', { name: /Delete folder/ }).count()).to.equal(0);
    await accessible(page, 'asset library as a viewer at 390 px');
    for (const path of ['/admin/gateway/endpoints', '/admin/gateway/clients', '/admin/events/subscriptions']) {
      await page.goto(path);
      await page.getByRole('alert').filter({ hasText: 'Not allowed' }).waitFor();
    }
    expect(appErrors(errors)).to.deep.equal([]);
  });
});
