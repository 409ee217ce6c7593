import { expect } from 'chai';
import type { Page } from 'playwright-core';
import {
  appErrors,
  type BrowserProduct,
  expectAccessible,
  sharedBrowserProduct,
  signInAs,
} from '../../../../test/helpers/browser.ts';
import type { TestUser } from '../../../../test/helpers/kernel.ts';
import { type OpenAiStandIn, startOpenAiStandIn } from '../../../../test/helpers/openai-stand-in.ts';

const content = (heading: string) => ({
  type: 'section',
  children: [
    { type: 'h1', text: heading },
    { type: 'p', text: 'Fresh every morning.' },
  ],
});

/** A 500 that outlasts the retries. */
const crash = { status: 500, error: 'model crashed' } as const;

/**
 * "New website from a brief" and "Generate image" in Chromium against the real product and the
 * OpenAI wire-format stand-in: empty, generating (the stand-in's latency), a provider fault, the
 * result (a structure edited as a tree then created; an image stored in the library), and a user
 * without `ai:use`; axe on each state.
 */
describe('ai screens in the browser: a website from a brief, an image into the library', function () {
  this.timeout(300_000);
  let p: BrowserProduct;
  let ai: OpenAiStandIn;
  let admin: TestUser;

  before(async function () {
    this.timeout(240_000);
    ai = await startOpenAiStandIn();
    p = await sharedBrowserProduct();
    admin = await p.t.createUser({ roles: ['admin'] });
  });
  afterEach(() => {
    ai.latencyMs = 0;
  });
  after(async () => {
    await ai?.close();
  });

  async function open(user: TestUser, path: string) {
    const opened = await p.page('desktop');
    await signInAs(p, opened.context, user);
    await opened.page.goto(path);
    return opened;
  }
  const heading = (page: Page, name: string) => page.getByRole('heading', { name, level: 1 }).waitFor();
  async function configure(kind: 'settings' | 'image-settings', model: string) {
    ai.apiKey = undefined;
    const put = await p.t.call('PUT', `/ai/${kind}`, admin, {
      provider: 'openai-compatible',
      baseUrl: ai.baseUrl,
      model,
      timeoutSeconds: 10,
    });
    expect(put.statusCode, put.body).to.equal(200);
  }

  it('turns a brief into a structure edited as a tree, then creates the website and links to it', async () => {
    await configure('settings', 'llama3.2');
    const rootPath = `/brief${Date.now().toString(36)}`;
    const structure = {
      name: 'Bakery Sonnenschein',
      rootPath,
      locales: ['en'],
      pages: [
        { path: '/', title: 'Home', locale: 'en', content: content('Fresh bread') },
        { path: '/about', title: 'About us', locale: 'en', content: content('About') },
        { path: '/contact', title: 'Contact', locale: 'en', content: content('Contact') },
      ],
      menu: [
        {
          title: 'Home',
          path: '/',
          children: [
            { title: 'About us', path: '/about' },
            { title: 'Contact', path: '/contact' },
          ],
        },
      ],
    };
    // The websites list links to the screen (the content plugin names its URL, imports nothing).
    const { page, errors } = await open(admin, '/admin/websites');
    await heading(page, 'Websites');
    await page.getByRole('main').getByRole('link', { name: 'New website from a brief' }).click();
    await heading(page, 'New website from a brief');
    await expectAccessible(page, 'website from a brief, empty');

    // Garbage from the provider: a clear error, nothing created.
    ai.next({ raw: '{"choices": [' });
    await page.getByLabel(/^Brief/).fill('A bakery in Basel with opening hours');
    await page.getByRole('button', { name: 'Propose a structure' }).click();
    await page.getByRole('alert').filter({ hasText: 'Nothing was created' }).waitFor();
    await expectAccessible(page, 'website from a brief, provider fault');

    // Generating (the provider is slow), then the proposal as a tree.
    ai.latencyMs = 1_500;
    ai.next({ content: JSON.stringify(structure) });
    await page.getByRole('button', { name: 'Propose a structure' }).click();
    await page.getByRole('status').filter({ hasText: 'Generating the structure' }).waitFor();
    await expectAccessible(page, 'website from a brief, generating');
    const proposal = page.getByRole('form', { name: 'Proposed website' });
    await proposal.waitFor();
    expect(await page.getByRole('alert').count()).to.equal(0);
    await expectAccessible(page, 'website from a brief, proposed structure');
    await proposal.getByLabel('Title of /about').fill('Our story');
    await proposal.getByRole('textbox', { name: 'Menu entry /about' }).fill('Story');
    await proposal.getByRole('button', { name: 'Remove page /contact' }).click();
    expect(await proposal.getByRole('textbox', { name: 'Menu entry /contact' }).count()).to.equal(0);
    await proposal.getByRole('button', { name: 'Create website' }).click();

    const done = page.getByRole('status').filter({ hasText: 'Website Bakery Sonnenschein created with 2 draft pages' });
    await done.waitFor();
    await expectAccessible(page, 'website from a brief, created');
    const made = (await p.t.call('GET', '/ai/generated?kind=structure&limit=1&offset=0', admin)).json();
    expect(made.items[0].prompt).to.equal('A bakery in Basel with opening hours');
    const sites = (await p.t.call('GET', '/cms-one/websites', admin)).json();
    const site = (Array.isArray(sites) ? sites : sites.items).find(
      (w: { rootPath: string }) => w.rootPath === rootPath,
    );
    expect(site, 'the website was created').to.not.equal(undefined);
    await done.getByRole('link', { name: 'open its pages' }).click();
    await page.waitForURL(`**/admin/websites/${site.id}/pages`);
    await page.getByRole('cell', { name: 'Our story' }).first().waitFor();
    expect(await page.getByRole('cell', { name: 'Contact', exact: true }).count()).to.equal(0);
    expect(appErrors(errors).filter((e) => !/status of 50\d/.test(e))).to.deep.equal([]);
  });

  it('generates an image with a size, shows progress, then the stored asset with its link in the library', async () => {
    await configure('image-settings', 'dall-e-3');
    // The asset library links to the screen with its current folder.
    const { page, errors } = await open(admin, '/admin/assets?folder=generated');
    await heading(page, 'Asset library');
    await page.getByRole('main').getByRole('link', { name: 'Generate image' }).click();
    await heading(page, 'Generate image');
    expect(await page.getByLabel(/^Folder/).inputValue()).to.equal('generated');
    await expectAccessible(page, 'generate image, empty');

    ai.next(crash, crash, crash);
    await page.getByLabel(/^Prompt/).fill('A loaf of bread on a wooden table');
    await page.getByRole('button', { name: 'Generate image' }).click();
    const alert = page.getByRole('alert').filter({ hasText: 'No image was stored' });
    await alert.waitFor();
    expect(await alert.textContent()).to.contain('model crashed');
    await expectAccessible(page, 'generate image, provider fault');

    ai.latencyMs = 1_500;
    await page.getByRole('combobox', { name: 'Size' }).click();
    await page.getByRole('option', { name: '512x512' }).click();
    await page.getByRole('button', { name: 'Generate image' }).click();
    await page.getByRole('status').filter({ hasText: 'Generating the image' }).waitFor();
    await expectAccessible(page, 'generate image, generating');
    const stored = page.getByRole('status', { name: 'Stored image' });
    await stored.waitFor();
    await expectAccessible(page, 'generate image, stored');
    expect(ai.requests.at(-1)!.body).to.deep.include({ size: '512x512', prompt: 'A loaf of bread on a wooden table' });
    const kept = (await p.t.call('GET', '/ai/generated?kind=image&limit=1&offset=0', admin)).json();
    const assetId = kept.items[0].result as string;
    expect(await stored.textContent()).to.contain('generated/');
    await stored.getByRole('link', { name: 'open in the asset library' }).click();
    await page.waitForURL((url) => url.pathname === '/admin/assets' && url.searchParams.get('asset') === assetId);
    await heading(page, 'Asset library');
    expect(appErrors(errors).filter((e) => !/status of 50\d/.test(e))).to.deep.equal([]);
  });

  it('a user without ai:use sees neither entry and gets the not-allowed state', async () => {
    const viewer = await p.t.createUser({ roles: ['viewer'] });
    const { page, errors } = await open(viewer, '/admin/ai/website');
    await page.getByRole('alert').filter({ hasText: 'Not allowed' }).waitFor();
    await expectAccessible(page, 'website from a brief, not allowed');
    expect(await page.getByRole('link', { name: 'New website from a brief' }).count()).to.equal(0);
    expect(await page.getByRole('link', { name: 'Generate image' }).count()).to.equal(0);
    await page.goto('/admin/websites');
    await heading(page, 'Websites');
    expect(await page.getByRole('link', { name: 'New website from a brief' }).count()).to.equal(0);
    await page.goto('/admin/ai/image');
    await page.getByRole('alert').filter({ hasText: 'Not allowed' }).waitFor();
    await expectAccessible(page, 'generate image, not allowed');
    expect(appErrors(errors).filter((e) => !/status of 40\d/.test(e))).to.deep.equal([]);
  });
});
