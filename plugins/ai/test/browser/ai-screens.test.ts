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

const KEY = 'sk-browser-test-secret-9f8e7d';
/** The page editor's canvas shows the user's own content: axe checks the chrome around it. */
const CHROME_ONLY = { exclude: ['.cms-canvas-frame', '.cms-version-frame'] };

/**
 * The AI screens in Chromium against the real product and the OpenAI wire-format stand-in: the
 * settings (key written, never shown again, Test connection), text generation streamed, a provider
 * fault on screen, and AI in the page editor (a block's text rewritten into a preview that is
 * accepted or discarded, a page translated into a draft).
 */
describe('ai screens in the browser: settings, generation, the page editor', function () {
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
  after(async () => {
    await ai?.close();
  });

  async function open(user: TestUser, path: string) {
    const opened = await p.page('desktop');
    await signInAs(p, opened.context, user);
    await opened.page.goto(path);
    return opened;
  }
  const heading = (page: Page, name: string | RegExp) => page.getByRole('heading', { name, level: 1 }).waitFor();
  /** Text settings pointing at the stand-in (each test runs alone too). */
  async function configure() {
    ai.apiKey = KEY;
    const put = await p.t.call('PUT', '/ai/settings', admin, {
      provider: 'openai-compatible',
      baseUrl: ai.baseUrl,
      model: 'llama3.2',
      apiKey: KEY,
      timeoutSeconds: 5,
    });
    expect(put.statusCode, put.body).to.equal(200);
  }

  it('saves the provider settings with a key that is never shown again, and tests the connection', async () => {
    ai.apiKey = KEY;
    const { page, errors } = await open(admin, '/admin/ai/settings');
    await heading(page, 'AI settings');
    await page.getByRole('form', { name: 'Text settings' }).waitFor();
    await expectAccessible(page, 'AI settings, nothing saved');

    const form = page.getByRole('form', { name: 'Text settings' });
    await form.getByLabel(/^Base URL/).fill(ai.baseUrl);
    await form.getByLabel(/^Model/).fill('llama3.2');
    await form.getByLabel('API key').fill(KEY);
    await form.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Text settings saved').waitFor();
    // The key is gone from the form and the page; the state says it is set.
    await form.getByText('A key is stored (never shown). Leave empty to keep it.').waitFor();
    expect(await form.getByLabel('API key').inputValue()).to.equal('');
    expect(await page.content()).not.to.contain(KEY);
    const stored = await p.t.call('GET', '/ai/settings', admin);
    expect(stored.json()).to.include({ apiKeySet: true, model: 'llama3.2' });
    expect(stored.body).not.to.contain(KEY);

    // The test reads the provider's model list: the address and key work, the model name is not listed.
    // (Beside the form, in the shown tab; the hidden tabs' buttons are not in the accessibility tree.)
    await page.getByRole('button', { name: 'Test connection' }).click();
    await page
      .getByRole('alert')
      .filter({ hasText: /does not list llama3\.2 among its 3 models/ })
      .waitFor();
    await expectAccessible(page, 'AI settings, tested: model not listed');

    // Images: settings of their own, tested the same way (nothing is generated).
    await page.getByRole('tab', { name: 'Images' }).click();
    const images = page.getByRole('form', { name: 'Images settings' });
    await images.getByLabel(/^Base URL/).fill(ai.baseUrl);
    await images.getByLabel(/^Model/).fill('gpt-image-1');
    await images.getByLabel('API key').fill(KEY);
    await images.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Images settings saved').waitFor();
    const before = ai.requests.length;
    await page.getByRole('button', { name: 'Test connection' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: /^Connected to 127\.0\.0\.1:\d+: it offers gpt-image-1$/ })
      .waitFor();
    expect(ai.requests.slice(before).map((r) => r.path)).to.deep.equal(['/models']);
    await expectAccessible(page, 'AI settings, images tested');

    // Translation: the text settings by default.
    await page.getByRole('tab', { name: 'Translation' }).click();
    await page.getByRole('form', { name: 'Translation settings' }).waitFor();
    expect(await page.getByLabel('Use the text settings for translations').isChecked()).to.equal(true);
    await expectAccessible(page, 'AI settings, translation tab');
    expect(appErrors(errors)).to.deep.equal([]);
  });

  it('generates text streamed into the screen, lists it, and shows a provider fault clearly', async () => {
    await configure();
    const { page, errors } = await open(admin, '/admin/ai/generate');
    await heading(page, 'Generate text');
    await expectAccessible(page, 'generate text, empty');
    await page.getByLabel(/^Prompt/).fill('A warm welcome for the bakery');
    await page.getByRole('button', { name: 'Generate' }).click();
    await page.locator('.cms-ai-result', { hasText: 'Echo: A warm welcome for the bakery' }).waitFor();
    await page.getByRole('cell', { name: 'A warm welcome for the bakery' }).first().waitFor();
    await expectAccessible(page, 'generate text, a result');

    ai.next(
      { status: 500, error: 'model crashed' },
      { status: 500, error: 'model crashed' },
      { status: 500, error: 'model crashed' },
    );
    await page.getByLabel(/^Prompt/).fill('Once more');
    await page.getByRole('button', { name: 'Generate' }).click();
    const alert = page.getByRole('alert').filter({ hasText: 'Nothing was generated' });
    await alert.waitFor();
    expect(await alert.textContent())
      .to.contain('500')
      .and.contain('model crashed');
    await expectAccessible(page, 'generate text, provider fault');
    expect(appErrors(errors).filter((e) => !/status of 50\d/.test(e))).to.deep.equal([]);
  });

  it('rewrites a text block into a preview that is applied only when accepted, and translates the page', async () => {
    await configure();
    const rootPath = `/ai${Date.now().toString(36)}`;
    const site = await p.t.call('POST', '/cms-one/websites', admin, {
      name: 'AI site',
      rootPath,
      locales: ['en', 'de'],
    });
    expect(site.statusCode, site.body).to.equal(201);
    const content = { type: 'section', children: [{ type: 'p', text: 'Our bread is baked every morning.' }] };
    const created = await p.t.call('POST', '/cms-one/pages', admin, {
      websiteId: site.json().id,
      locale: 'en',
      path: '/',
      title: 'Home',
      content,
    });
    expect(created.statusCode, created.body).to.equal(201);
    const pageId = created.json().id as string;

    const { page, errors } = await open(admin, `/cms-one/editor/pages/${pageId}`);
    await page.getByRole('heading', { level: 1, name: /^Editing/ }).waitFor();
    await page.locator('iframe.cms-canvas-frame[data-ready]').waitFor();
    const frame = page.frameLocator('iframe.cms-canvas-frame');
    await frame.locator('p', { hasText: 'Our bread is baked every morning.' }).click();
    await page.getByRole('heading', { name: 'AI assistance' }).waitFor();
    await expectAccessible(page, 'editor, AI on a text block', CHROME_ONLY);

    // Discarded: the block keeps its text.
    ai.next({ content: 'Fresh bread, every single morning.' });
    await page.getByRole('button', { name: 'Rewrite' }).click();
    const preview = page.locator('.cms-ai-preview', { hasText: 'Fresh bread, every single morning.' });
    await preview.waitFor();
    await page.getByText('Suggestion: not applied until you accept it').waitFor();
    await expectAccessible(page, 'editor, AI suggestion', CHROME_ONLY);
    expect(await page.getByLabel('Text', { exact: true }).inputValue()).to.equal('Our bread is baked every morning.');
    const sent = ai.requests.at(-1)!.body as { stream: boolean; messages: { content: string }[] };
    expect(sent.stream).to.equal(true);
    expect(sent.messages.at(-1)!.content).to.contain('Rewrite').and.contain('Our bread is baked every morning.');
    await page.getByRole('button', { name: 'Discard' }).click();
    await preview.waitFor({ state: 'detached' });
    expect(await page.getByLabel('Text', { exact: true }).inputValue()).to.equal('Our bread is baked every morning.');

    // Accepted: the block's text, on the canvas and saved.
    ai.next({ content: 'Baked fresh at dawn.' });
    await page.getByRole('button', { name: 'Shorten' }).click();
    await page.locator('.cms-ai-preview', { hasText: 'Baked fresh at dawn.' }).waitFor();
    await page.getByRole('button', { name: 'Accept' }).click();
    await frame.locator('p', { hasText: 'Baked fresh at dawn.' }).waitFor();
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page
      .getByRole('status')
      .filter({ hasText: /^Saved/ })
      .first()
      .waitFor();
    const saved = (await p.t.call('GET', `/cms-one/pages/${pageId}`, admin)).json();
    expect(saved.content.children[0].text).to.equal('Baked fresh at dawn.');

    // A provider fault is said in the panel; nothing changes.
    ai.next({ raw: '{"choices": [' });
    await page.getByRole('button', { name: 'Rewrite' }).click();
    await page
      .getByRole('alert')
      .filter({ hasText: /AI assistance failed: .*unusable/ })
      .waitFor();
    expect(await page.getByLabel('Text', { exact: true }).inputValue()).to.equal('Baked fresh at dawn.');

    // Translate page: a German draft in the same translation group, opened in the editor.
    await page.getByRole('tab', { name: 'More' }).click();
    ai.next({ content: JSON.stringify({ texts: ['Startseite', 'Frisch gebacken im Morgengrauen.'] }) });
    await page.getByRole('button', { name: 'Translate page into de (AI draft)' }).click();
    await page.waitForURL((url) => url.pathname.startsWith('/cms-one/editor/pages/') && !url.pathname.endsWith(pageId));
    await page.locator('iframe.cms-canvas-frame[data-ready]').waitFor();
    await frame.locator('p', { hasText: 'Frisch gebacken im Morgengrauen.' }).waitFor();
    const germanId = new URL(page.url()).pathname.split('/').at(-1)!;
    const german = (await p.t.call('GET', `/cms-one/pages/${germanId}`, admin)).json();
    expect(german).to.include({ locale: 'de', published: false, translationGroupId: saved.translationGroupId });
    expect(appErrors(errors).filter((e) => !/status of 50\d/.test(e))).to.deep.equal([]);
  });
});
