import { expect } from 'chai';
import {
  appErrors,
  type BrowserProduct,
  sharedBrowserProduct,
  signIn,
  signInAs,
} from '../../../../test/helpers/browser.ts';
import type { TestUser } from '../../../../test/helpers/kernel.ts';
import { canvas, openEditor } from './editor-page.ts';

/** What a page may ask of the window it runs in, as seen from the test (the editor's own window). */
const pwned = (page: import('playwright-core').Page) =>
  page.evaluate(() => (globalThis as unknown as { __pwned?: string }).__pwned ?? null);

/**
 * The editor seen by an outsider in a real browser: a caller without the keys, content that tries
 * to run script in the canvas, framing the editor from another page, and `next=` on the sign-in
 * round trip pointing elsewhere.
 */
describe('page editor in the browser: attacks', function () {
  this.timeout(180_000);
  let p: BrowserProduct;
  let admin: TestUser;
  let websiteId: string;
  let rootPath: string;
  before(async function () {
    this.timeout(240_000);
    p = await sharedBrowserProduct();
    admin = await p.t.admin();
    rootPath = `/atk${Date.now().toString(36)}`;
    const site = await p.t.call('POST', '/cms-one/websites', admin, {
      name: 'Attack site',
      rootPath,
      locales: ['en'],
    });
    expect(site.statusCode, site.body).to.equal(201);
    websiteId = site.json().id;
  });

  const createPage = async (path: string, content: unknown, published = false) => {
    const res = await p.t.call('POST', '/cms-one/pages', admin, {
      websiteId,
      locale: 'en',
      path,
      title: 'Bait',
      content,
    });
    expect(res.statusCode, res.body).to.equal(201);
    const id = res.json().id as string;
    if (published)
      expect((await p.t.call('PATCH', `/cms-one/pages/${id}`, admin, { published })).statusCode).to.equal(200);
    return { id };
  };

  it('a user without objects:read is told so and gets no canvas', async () => {
    const page = await createPage('/secret', { type: 'p', text: 'Only for readers' });
    const outsider = await p.t.createUser({ permissions: ['pages:edit'] });
    const { page: tab, context, errors } = await p.page();
    await signInAs(p, context, outsider);
    await tab.goto(`/cms-one/editor/pages/${page.id}`);
    await tab.getByRole('heading', { name: 'Not allowed' }).waitFor();
    expect(await tab.locator('iframe.cms-canvas-frame').count()).to.equal(0);
    expect(await tab.content()).not.to.contain('Only for readers');
    expect(appErrors(errors)).to.deep.equal([]);
  });

  it('a reader saves nothing, not even with Ctrl+S', async () => {
    const page = await createPage('/read-only-keys', { type: 'p', text: 'As it was' });
    const reader = await p.t.createUser({ permissions: ['objects:read'] });
    const { page: tab, errors } = await openEditor(p, reader, `/cms-one/editor/pages/${page.id}`);
    const writes: string[] = [];
    tab.on('request', (r) => {
      if (r.method() !== 'GET' && !r.url().endsWith('/canvas')) writes.push(`${r.method()} ${r.url()}`);
    });
    await tab.getByText('Read only', { exact: true }).waitFor();
    await tab.getByRole('tab', { name: 'Outline' }).click();
    await tab.keyboard.press('Control+s');
    await tab.getByText('Read only: your role may not save this page.').waitFor();
    expect(writes).to.deep.equal([]);
    expect(await tab.getByText(/not stored|failed/i).count()).to.equal(0);
    expect((await p.t.call('GET', `/cms-one/pages/${page.id}`, admin)).json().thumbnail).to.equal(null);
    expect(appErrors(errors)).to.deep.equal([]);
  });

  it('nothing in the canvas runs: the frame is a sandbox without scripts, even for markup slipped past the API', async () => {
    // What the API accepts that looks most like script: every piece stays text or an inert attribute.
    const page = await createPage('/bait', {
      type: 'section',
      children: [
        { type: 'p', text: '<img src=x onerror="top.__pwned=\'text\'">' },
        { type: 'a', props: { href: 'java&#115;cript:top.__pwned="entity"' }, text: 'link' },
        { type: 'div', props: { title: '"><img src=x onerror="top.__pwned=\'attr\'">' }, text: 'attr' },
        { type: 'img', props: { src: '/does-not-exist.png', alt: 'missing' } },
        { type: 'details', props: { open: true }, children: [{ type: 'summary', text: 'open' }] },
      ],
    });
    const reader = await p.t.createUser({ permissions: ['objects:read'] });
    const { page: tab, errors } = await openEditor(p, reader, `/cms-one/editor/pages/${page.id}`);
    const frame = tab.locator('iframe.cms-canvas-frame');
    expect(await frame.getAttribute('sandbox')).to.equal('allow-same-origin');
    await canvas(tab).locator('p', { hasText: 'onerror' }).waitFor();
    await canvas(tab).getByRole('link', { name: 'link' }).click();
    expect(await pwned(tab)).to.equal(null);
    // A renderer bug that let markup through would meet the sandbox: inline handlers and scripts
    // written straight into the frame's document do not run either.
    await tab.evaluate(() => {
      type Doc = { body: { insertAdjacentHTML(where: string, html: string): void } };
      const g = globalThis as unknown as {
        document: { querySelector(s: string): { contentDocument: Doc } | null };
      };
      const doc = g.document.querySelector('iframe.cms-canvas-frame')!.contentDocument;
      doc.body.insertAdjacentHTML(
        'beforeend',
        '<img src="/nope.png" onerror="top.__pwned=\'handler\'">' +
          '<iframe srcdoc="<script>top.__pwned=\'srcdoc\'</script>"></iframe>',
      );
    });
    // Once the image has failed and the inner frame has loaded, their script would have run.
    await tab.waitForFunction(() => {
      type Frame = { contentDocument: Doc | null };
      type Doc = { querySelector(s: string): (Frame & { complete?: boolean }) | null; readyState: string };
      const g = globalThis as unknown as { document: Doc };
      const doc = g.document.querySelector('iframe.cms-canvas-frame')?.contentDocument;
      const img = doc?.querySelector('img[src="/nope.png"]');
      const inner = doc?.querySelector('iframe')?.contentDocument;
      return img?.complete === true && inner?.readyState === 'complete';
    });
    expect(await pwned(tab)).to.equal(null);
    expect(
      appErrors(errors).filter((e) => !/Blocked script execution|Refused to execute|status of 404/.test(e)),
    ).to.deep.equal([]);
  });

  it('the editor cannot be framed by another page', async () => {
    const page = await createPage('/framed', { type: 'p', text: 'Framed?' }, true);
    const editor = await p.t.createUser({ permissions: ['objects:read', 'pages:edit'] });
    const { page: tab, context } = await p.page();
    await signInAs(p, context, editor);
    const target = `${p.baseUrl}/cms-one/editor/pages/${page.id}`;
    const answer = await p.t.inject({ method: 'GET', url: `/cms-one/editor/pages/${page.id}` });
    expect(answer.headers['x-frame-options']).to.equal('DENY');
    expect(answer.headers['content-security-policy']).to.contain("frame-ancestors 'none'");
    // Another origin (the same server by another name) puts the editor in a frame: refused.
    const other = p.baseUrl.replace('127.0.0.1', 'localhost');
    await tab.goto(`${other}/does-not-matter`);
    // Beside it, an answer that is no document (no framing policy) shows that frames do load here;
    // the public pages are framed by this origin only, like the editor's canvas.
    await tab.setContent(
      `<iframe title="trap" src="${target}"></iframe><iframe title="control" src="${p.baseUrl}/health"></iframe>`,
    );
    await tab.waitForLoadState('load');
    await tab.frameLocator('iframe[title="control"]').getByText('"status":"ok"').waitFor();
    const child = tab.frames().find((f) => f.url() !== tab.url() && !f.url().endsWith('/health'));
    expect(child, 'the frame').not.to.equal(undefined);
    // Refused by the browser: the frame holds an error page, not the editor's document and scripts.
    expect(await child!.locator('script[src*="/assets/"]').count()).to.equal(0);
    expect(await child!.getByRole('heading', { name: /^Editing/ }).count()).to.equal(0);
  });

  it('next= on the sign-in round trip never leaves the product', async () => {
    const editor = await p.t.createUser({ permissions: ['objects:read', 'pages:edit'] });
    const { page: tab } = await p.page();
    const origin = new URL(p.baseUrl).origin;
    // The sign-in itself with a foreign next= lands on the dashboard.
    await signIn(tab, editor, `/sign-in?next=${encodeURIComponent('https://evil.example/')}`);
    await tab.waitForURL((url) => url.pathname === '/admin');
    expect(new URL(tab.url()).origin).to.equal(origin);
    // Signed in, the sign-in page goes on at once: each of these stays on this origin's dashboard.
    const hostile = [
      '//evil.example/',
      '/\\evil.example/',
      '\\\\evil.example',
      'javascript:alert(1)',
      '/admin.evil.example',
      '/adminx',
      'https:evil.example',
      '/%2F%2Fevil.example',
      '/\t/evil.example',
      // Own prefixes that the browser resolves to some other path of this site.
      '/cms-one/editor/../../auth/oidc/start',
      '/cms-one/editor/%2e%2e/%2E%2E/auth/me',
      '/admin/../auth/me',
      '/admin/..\\..\\auth/me',
    ];
    for (const next of hostile) {
      await tab.goto(`/sign-in?next=${encodeURIComponent(next)}`);
      await tab.waitForURL((url) => url.pathname !== '/sign-in');
      const url = new URL(tab.url());
      expect(url.origin, next).to.equal(origin);
      expect(url.pathname, next).to.equal('/admin');
    }
    // Its own paths are kept: the dashboard's and the editor's.
    await tab.goto(`/sign-in?next=${encodeURIComponent('/admin/websites')}`);
    await tab.waitForURL((url) => url.pathname === '/admin/websites');
    await tab.goto(`/sign-in?next=${encodeURIComponent('/cms-one/editor/pages/x')}`);
    await tab.waitForURL((url) => url.pathname === '/cms-one/editor/pages/x');
    expect(new URL(tab.url()).origin).to.equal(origin);
  });
});
