import { expect } from 'chai';
import { png } from '../../../test/helpers/images.ts';
import { type ContentKernel, startContentKernel } from './content-kernel.ts';

describe("content: the editor's canvas and edit preconditions", () => {
  let k: ContentKernel;
  before(async () => {
    k = await startContentKernel();
  });
  after(() => k.t.close());

  const pageOf = async () => {
    const site = await k.createWebsite();
    return { site, page: await k.createPage({ websiteId: site.id, path: `/${k.unique('p')}` }) };
  };

  it('renders the page in its layout and active theme, marking each page node with its path', async () => {
    const { site, page } = await pageOf();
    const layout = await k.call('POST', `/cms-one/websites/${site.id}/templates`, k.admin, {
      name: 'Main',
      isDefault: true,
      regions: { header: { type: 'nav', children: [{ type: 'a', props: { href: '/' }, text: 'Home' }] } },
      slots: { body: { className: 'site-main', style: 'padding:1rem' } },
    });
    expect(layout.statusCode, layout.body).to.equal(201);
    const theme = await k.call('POST', `/cms-one/websites/${site.id}/themes`, k.admin, {
      name: 'Dark',
      colors: { background: '#101010', text: '#fafafa' },
      customStyles: 'h1{letter-spacing:2px}',
    });
    expect(theme.statusCode, theme.body).to.equal(201);
    await k.call('PUT', `/cms-one/websites/${site.id}/theme`, k.admin, { themeId: theme.json().id });

    const res = await k.call('POST', `/cms-one/pages/${page.id}/canvas`, k.reader, {});
    expect(res.statusCode, res.body).to.equal(200);
    expect(res.headers['content-type']).to.match(/^text\/html/);
    expect(res.headers['content-security-policy']).to.contain('sandbox');
    const html = res.body;
    expect(html).to.match(/^<!DOCTYPE html>\n<html lang="en">/);
    expect(html).to.contain('--cms-color-background:#101010');
    expect(html).to.contain('h1{letter-spacing:2px}');
    expect(html).to.contain('<header data-cms-region="header"><nav><a href="/">Home</a></nav></header>');
    expect(html).to.contain(
      '<main class="site-main" style="padding:1rem"><section data-cms-node="r"><p data-cms-node="r.0">Hello</p></section></main>',
    );
    expect(html).not.to.contain('<script');
  });

  it('renders unsaved content, title and theme from the body and stores nothing', async () => {
    const { page } = await pageOf();
    const res = await k.call('POST', `/cms-one/pages/${page.id}/canvas`, k.reader, {
      title: 'Draft <title>',
      content: {
        type: 'div',
        children: [
          { type: 'h1', text: 'New <b>' },
          { type: 'p', text: 'x' },
        ],
      },
      theme: { colors: { primary: 'rebeccapurple' }, fonts: { body: 'Georgia, serif' } },
    });
    expect(res.statusCode, res.body).to.equal(200);
    expect(res.body).to.contain('<title>Draft &lt;title&gt;</title>');
    expect(res.body).to.contain('<h1 data-cms-node="r.0">New &lt;b&gt;</h1><p data-cms-node="r.1">x</p>');
    expect(res.body).to.contain('--cms-color-primary:rebeccapurple;--cms-font-body:Georgia, serif');
    expect((await k.call('GET', `/cms-one/pages/${page.id}`, k.reader)).json().content.children[0].text).to.equal(
      'Hello',
    );
  });

  it('refuses script in the content and theme values that would leave their declaration (400 naming them)', async () => {
    const { page } = await pageOf();
    const url = `/cms-one/pages/${page.id}/canvas`;
    const script = await k.call('POST', url, k.reader, {
      content: { type: 'a', props: { href: 'javascript:alert(1)' } },
    });
    expect(script.statusCode).to.equal(400);
    expect(script.json().field).to.equal('content.props.href');
    const value = await k.call('POST', url, k.reader, { theme: { colors: { text: 'red}</style><script>' } } });
    expect(value.statusCode).to.equal(400);
    expect(value.json().field).to.equal('theme.colors.text');
    const styles = await k.call('POST', url, k.reader, { theme: { customStyles: '</style><script>x()</script>' } });
    expect(styles.statusCode).to.equal(400);
    expect(styles.json().field).to.equal('customStyles');
  });

  it('renders a snippet in its theme; needs a session and objects:read; unknown ids 404', async () => {
    const snip = await k.call('POST', '/cms-one/snippets', k.editor, {
      name: k.unique('s'),
      content: { type: 'p', text: 'Snip' },
    });
    const res = await k.call('POST', `/cms-one/snippets/${snip.json().id}/canvas`, k.reader, {});
    expect(res.statusCode, res.body).to.equal(200);
    expect(res.body).to.contain('<main><p data-cms-node="r">Snip</p></main>');
    const { page } = await pageOf();
    expect((await k.call('POST', `/cms-one/pages/${page.id}/canvas`, null, {})).statusCode).to.equal(401);
    expect((await k.call('POST', `/cms-one/pages/${page.id}/canvas`, k.nobody, {})).statusCode).to.equal(403);
    const missing = '00000000-0000-4000-8000-000000000000';
    expect((await k.call('POST', `/cms-one/pages/${missing}/canvas`, k.reader, {})).statusCode).to.equal(404);
    expect((await k.call('POST', `/cms-one/snippets/${missing}/canvas`, k.reader, {})).statusCode).to.equal(404);
  });

  it('If-Match: a save from a stale state answers 412 EDIT_CONFLICT and writes nothing', async () => {
    const { page } = await pageOf();
    const url = `/cms-one/pages/${page.id}`;
    const read = await k.call('GET', url, k.editor);
    const tag = read.headers.etag as string;
    expect(tag).to.equal(`"${read.json().updatedAt}"`);
    // Tab one saves with the state it loaded: accepted, a new tag.
    const first = await k.call('PATCH', url, k.editor, { title: 'Tab one' }, { 'if-match': tag });
    expect(first.statusCode, first.body).to.equal(200);
    expect(first.headers.etag).to.equal(`"${first.json().updatedAt}"`);
    expect(first.headers.etag).not.to.equal(tag);
    // Tab two still holds the first tag: refused, nothing written.
    const second = await k.call('PATCH', url, k.editor, { title: 'Tab two' }, { 'if-match': tag });
    expect(second.statusCode).to.equal(412);
    expect(second.json().code).to.equal('EDIT_CONFLICT');
    expect((await k.call('GET', url, k.editor)).json().title).to.equal('Tab one');
    // Saving over it is a decision: `*` (or no header) passes.
    expect((await k.call('PATCH', url, k.editor, { title: 'Tab two' }, { 'if-match': '*' })).statusCode).to.equal(200);
  });

  it('If-Match on snippets; the lock still answers 423 for an autosave first', async () => {
    const snip = (
      await k.call('POST', '/cms-one/snippets', k.editor, { name: k.unique('s'), content: { type: 'p', text: 'a' } })
    ).json();
    const url = `/cms-one/snippets/${snip.id}`;
    const tag = (await k.call('GET', url, k.editor)).headers.etag as string;
    const ok = await k.call('PATCH', url, k.editor, { content: { type: 'p', text: 'b' } }, { 'if-match': tag });
    expect(ok.statusCode).to.equal(200);
    const stale = await k.call('PATCH', url, k.editor, { content: { type: 'p', text: 'c' } }, { 'if-match': tag });
    expect(stale.statusCode).to.equal(412);
    await k.call('PUT', `${url}/lock`, k.editor, { locked: true });
    const auto = await k.call(
      'PATCH',
      url,
      k.editor,
      { content: { type: 'p', text: 'd' }, autosave: true },
      { 'if-match': ok.headers.etag as string },
    );
    expect(auto.statusCode).to.equal(423);
    expect((await k.call('GET', url, k.editor)).json().content.text).to.equal('b');
  });

  it('a thumbnail write takes If-Match too and answers the new ETag', async () => {
    const { page } = await pageOf();
    const url = `/cms-one/pages/${page.id}`;
    const tag = (await k.call('GET', url, k.editor)).headers.etag as string;
    const thumbnail = `data:image/png;base64,${(await png(4, 3)).toString('base64')}`;
    const put = await k.call('PUT', `${url}/thumbnail`, k.editor, { thumbnail }, { 'if-match': tag });
    expect(put.statusCode, put.body).to.equal(200);
    expect(put.headers.etag).to.equal(`"${put.json().updatedAt}"`);
    expect((await k.call('GET', url, k.editor)).headers.etag).to.equal(put.headers.etag);
    const stale = await k.call('PUT', `${url}/thumbnail`, k.editor, { thumbnail: null }, { 'if-match': tag });
    expect(stale.statusCode).to.equal(412);
  });
});
