import { expect } from 'chai';
import { png } from '../../../test/helpers/images.ts';
import type { TestUser } from '../../../test/helpers/kernel.ts';
import { SYSTEM } from '../../../kernel/index.ts';
import { entityTag } from '../services/preconditions.ts';
import { type ContentKernel, startContentKernel } from './content-kernel.ts';

/** `depth` nested sections around a paragraph, as JSON text (too deep to build as an object and send). */
function nestedJson(depth: number): string {
  return `${'{"type":"section","children":['.repeat(depth)}{"type":"p","text":"x"}${']}'.repeat(depth)}`;
}

/**
 * The editor's routes seen by an outsider: callers without the keys, hostile node trees on the
 * canvas and in saves, and the edit preconditions (`If-Match`) pushed at their edges.
 */
describe("content: attacks on the editor's canvas and saves", () => {
  let k: ContentKernel;
  let writerOnly: TestUser;
  let pagesEditor: TestUser;
  before(async () => {
    k = await startContentKernel();
    ({ writerOnly, pagesEditor } = await k.t.users({
      writerOnly: ['pages:edit', 'snippets:edit'],
      pagesEditor: ['objects:read', 'pages:edit'],
    }));
  });
  after(() => k.t.close());

  const pageOf = async () => {
    const site = await k.createWebsite();
    return k.createPage({ websiteId: site.id, path: `/${k.unique('p')}` });
  };
  const snippetOf = async () =>
    (
      await k.call('POST', '/cms-one/snippets', k.admin, { name: k.unique('s'), content: { type: 'p', text: 'Snip' } })
    ).json();

  it('the canvas routes need objects:read: a writer without it, a user without keys and no session are refused', async () => {
    const page = await pageOf();
    const snippet = await snippetOf();
    for (const url of [`/cms-one/pages/${page.id}/canvas`, `/cms-one/snippets/${snippet.id}/canvas`]) {
      expect((await k.call('POST', url, null, {})).statusCode, url).to.equal(401);
      for (const user of [k.nobody, writerOnly]) {
        const res = await k.call('POST', url, user, { content: { type: 'p', text: 'probe' } });
        expect(res.statusCode, `${url}: ${res.body}`).to.equal(403);
        expect(res.body).not.to.contain('probe');
      }
    }
  });

  it('a form of another site cannot draw the canvas: a body that is not JSON is refused', async () => {
    const page = await pageOf();
    // What an HTML form can send (text/plain, urlencoded) with the session cookie of a careless browser.
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
      const res = await k.t.inject({
        method: 'POST',
        url: `/cms-one/pages/${page.id}/canvas`,
        headers: { cookie: k.reader.cookie, 'content-type': type },
        payload: '{"content":{"type":"p","text":"forged"}}',
      });
      expect(res.statusCode, `${type}: ${res.body}`).to.be.oneOf([400, 415]);
      expect(res.body).not.to.contain('forged');
    }
  });

  it('a reader can neither save, publish, restore, lock nor store a thumbnail; nothing changes', async () => {
    const page = await pageOf();
    const snippet = await snippetOf();
    await k.call('PATCH', `/cms-one/pages/${page.id}`, k.admin, { content: { type: 'p', text: 'Second' } });
    const [version] = (await k.call('GET', `/cms-one/pages/${page.id}/versions`, k.admin)).json();
    const before = (await k.call('GET', `/cms-one/pages/${page.id}`, k.admin)).json();
    const thumbnail = `data:image/png;base64,${(await png(4, 3)).toString('base64')}`;
    const attempts: Array<[string, string, unknown]> = [
      ['PATCH', `/cms-one/pages/${page.id}`, { content: { type: 'p', text: 'Mine' } }],
      ['PATCH', `/cms-one/pages/${page.id}`, { published: true }],
      ['PUT', `/cms-one/pages/${page.id}/thumbnail`, { thumbnail }],
      ['POST', `/cms-one/pages/${page.id}/versions/${version.id}/restore`, {}],
      ['PATCH', `/cms-one/snippets/${snippet.id}`, { content: { type: 'p', text: 'Mine' } }],
      ['PUT', `/cms-one/snippets/${snippet.id}/lock`, { locked: true }],
      ['PUT', `/cms-one/snippets/${snippet.id}/thumbnail`, { thumbnail }],
    ];
    for (const [method, url, body] of attempts) {
      const res = await k.call(method, url, k.reader, body);
      expect(res.statusCode, `${method} ${url}: ${res.body}`).to.equal(403);
    }
    // An editor without objects:publish saves but cannot publish (the save is not half done).
    const publish = await k.call('PATCH', `/cms-one/pages/${page.id}`, pagesEditor, {
      title: 'Published by me',
      published: true,
    });
    expect(publish.statusCode).to.equal(403);
    expect(publish.json().code).to.equal('PUBLISH_FORBIDDEN');
    const after = (await k.call('GET', `/cms-one/pages/${page.id}`, k.admin)).json();
    expect(after).to.deep.equal(before);
    const snippetAfter = (await k.call('GET', `/cms-one/snippets/${snippet.id}`, k.admin)).json();
    expect(snippetAfter).to.include({ locked: false, thumbnail: null });
    expect(snippetAfter.content).to.deep.equal({ type: 'p', text: 'Snip' });
  });

  it('refuses hostile trees on the canvas and in saves with a 400 naming the part', async () => {
    const page = await pageOf();
    const hostile: Array<[unknown, string]> = [
      [{ type: 'script', text: 'alert(1)' }, 'content.type'],
      [{ type: 'div', children: [{ type: 'iframe', props: { src: '/admin' } }] }, 'content.children.0.type'],
      [{ type: 'img', props: { src: 'x', onerror: 'alert(1)' } }, 'content.props.onerror'],
      [{ type: 'img', props: { src: 'x', OnError: 'alert(1)' } }, 'content.props.OnError'],
      [{ type: 'a', props: { href: ' JaVa\tScRiPt:alert(1)' } }, 'content.props.href'],
      [{ type: 'a', props: { href: '\u0001javascript:alert(1)' } }, 'content.props.href'],
      [{ type: 'a', props: { href: 'data:text/html,<script>alert(1)</script>' } }, 'content.props.href'],
      [{ type: 'img', props: { src: 'data:image/svg+xml,<svg onload=alert(1)>' } }, 'content.props.src'],
      [{ type: 'div', props: { srcdoc: '<script>alert(1)</script>' } }, 'content.props.srcdoc'],
      [{ type: 'div', props: { 'x-init': 'alert(1)' } }, 'content.props.x-init'],
      [{ type: 'div', props: { style: { background: 'url(javascript:alert(1))' } } }, 'content.props.style.background'],
      // CSS escapes and comments spell the same words for the browser's CSS parser.
      [{ type: 'div', props: { style: 'background:url(java\\73 cript:alert(1))' } }, 'content.props.style'],
      [{ type: 'div', props: { style: 'width:expr/**/ession(alert(1))' } }, 'content.props.style'],
      [{ type: 'div', props: { style: 'width:\\65 xpression(alert(1))' } }, 'content.props.style'],
      [{ type: 'div', props: { style: '-moz-binding:url(https://evil.example/x.xml#x)' } }, 'content.props.style'],
      [{ type: 'p', note: 'smuggled' }, 'content.note'],
    ];
    for (const [content, field] of hostile) {
      for (const [method, url] of [
        ['POST', `/cms-one/pages/${page.id}/canvas`],
        ['PATCH', `/cms-one/pages/${page.id}`],
      ]) {
        const res = await k.call(method, url, k.admin, { content });
        expect(res.statusCode, `${method} ${JSON.stringify(content)}: ${res.body}`).to.equal(400);
        expect(res.json().field, JSON.stringify(content)).to.equal(field);
      }
    }
    expect((await k.call('GET', `/cms-one/pages/${page.id}`, k.admin)).json().content.children[0].text).to.equal(
      'Hello',
    );
  });

  it('refuses theme styles spelled with CSS escapes on the canvas', async () => {
    const page = await pageOf();
    for (const customStyles of ['@\\69mport url(https://evil.example/x.css);', 'a{b:u\\72l(java\\73 cript:x)}']) {
      const res = await k.call('POST', `/cms-one/pages/${page.id}/canvas`, k.reader, { theme: { customStyles } });
      expect(res.statusCode, `${customStyles}: ${res.body}`).to.equal(400);
      expect(res.json().field).to.equal('customStyles');
    }
  });

  it('what the renderer lets through stays text: attribute values and texts are escaped', async () => {
    const page = await pageOf();
    const res = await k.call('POST', `/cms-one/pages/${page.id}/canvas`, k.reader, {
      title: '</title><script>alert(1)</script>',
      content: {
        type: 'div',
        props: { title: '"><script>alert(1)</script>', 'data-x': "' onmouseover='alert(1)" },
        children: [
          { type: 'p', text: '<img src=x onerror=alert(1)>' },
          { type: 'a', props: { href: 'https://example.test/?a=1&b="2"' }, text: 'ok' },
        ],
      },
    });
    expect(res.statusCode, res.body).to.equal(200);
    expect(res.body).not.to.match(/<script|<img src=x|onmouseover='/i);
    expect(res.body).to.contain('title="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"');
    expect(res.body).to.contain('href="https://example.test/?a=1&amp;b=&quot;2&quot;"');
    // The answer is a sandbox of its own, never cached or sniffed as something else.
    expect(res.headers['content-security-policy']).to.match(/^sandbox;/);
    expect(res.headers['content-security-policy']).to.contain("default-src 'none'");
    expect(res.headers['content-security-policy']).not.to.contain('script-src');
    expect(res.headers['x-content-type-options']).to.equal('nosniff');
    expect(res.headers['cache-control']).to.equal('no-store');
  });

  it('huge and deeply nested trees answer 400, never a crash, on the canvas and in saves', async () => {
    const page = await pageOf();
    const wide = { type: 'section', children: Array.from({ length: 20_001 }, () => ({ type: 'br' })) };
    const cases: Array<[string, string]> = [
      ['65 levels', nestedJson(65)],
      ['100,000 levels', nestedJson(100_000)],
      ['20,001 nodes', JSON.stringify({ content: wide }).slice('{"content":'.length, -1)],
      ['deep props', `{"type":"p","props":{"data-x":${'['.repeat(50_000)}1${']'.repeat(50_000)}}}`],
    ];
    for (const [what, tree] of cases) {
      for (const [method, url] of [
        ['POST', `/cms-one/pages/${page.id}/canvas`],
        ['PATCH', `/cms-one/pages/${page.id}`],
        ['POST', '/cms-one/snippets'],
      ]) {
        const res = await k.t.inject({
          method: method as 'POST',
          url,
          headers: { cookie: k.admin.cookie, 'content-type': 'application/json' },
          payload:
            url === '/cms-one/snippets' ? `{"name":"${k.unique('n')}","content":${tree}}` : `{"content":${tree}}`,
        });
        expect(res.statusCode, `${what} ${method} ${url}: ${res.body.slice(0, 300)}`).to.equal(400);
        expect(res.json().field, what).to.match(/^content/);
      }
    }
    // The process still answers.
    expect((await k.call('POST', `/cms-one/pages/${page.id}/canvas`, k.reader, {})).statusCode).to.equal(200);
  });

  it('If-Match edges: weak and listed tags match, a quoted * is a tag, garbage is a 400 naming the header', async () => {
    const page = await pageOf();
    const url = `/cms-one/pages/${page.id}`;
    const save = (ifMatch: string, text: string) =>
      k.call('PATCH', url, k.editor, { content: { type: 'p', text } }, { 'if-match': ifMatch });
    let tag = (await k.call('GET', url, k.editor)).headers.etag as string;
    const accepted = [
      // A compressing proxy marks tags weak; the tag names the record's state, not its bytes.
      (t: string) => `W/${t}`,
      (t: string) => `"other", ${t}`,
      (t: string) => ` ${t} ,`,
      () => '*',
    ];
    for (const header of accepted) {
      const ifMatch = header(tag);
      const res = await save(ifMatch, ifMatch);
      expect(res.statusCode, `${ifMatch}: ${res.body}`).to.equal(200);
      expect(res.headers.etag, ifMatch).not.to.equal(tag);
      tag = res.headers.etag as string;
    }
    const stale = '"2001-01-01T00:00:00.000Z"';
    for (const ifMatch of [stale, `W/${stale}`, '"*"', `${stale}, "x"`]) {
      const res = await save(ifMatch, 'refused');
      expect(res.statusCode, `${ifMatch}: ${res.body}`).to.equal(412);
      expect(res.json().code).to.equal('EDIT_CONFLICT');
    }
    const garbage = ['', ' ', 'garbage', tag.slice(1, -1), `${tag.slice(0, -1)}`, `w/${tag}`, '*, *', `*, ${tag}`, ','];
    for (const ifMatch of garbage) {
      const res = await save(ifMatch, 'refused');
      expect(res.statusCode, `${JSON.stringify(ifMatch)}: ${res.body}`).to.equal(400);
      expect(res.json().field).to.equal('If-Match');
    }
    // Long lists are refused before they are compared.
    const long = await save(Array.from({ length: 101 }, () => stale).join(', '), 'refused');
    expect(long.statusCode).to.equal(400);
    expect((await k.call('GET', url, k.editor)).json().content.text).to.equal('*');
    // The same rules on a snippet, a thumbnail and a restore.
    const snippet = await snippetOf();
    const snippetSave = await k.call(
      'PATCH',
      `/cms-one/snippets/${snippet.id}`,
      k.editor,
      { content: { type: 'p', text: 'x' } },
      { 'if-match': 'garbage' },
    );
    expect(snippetSave.statusCode).to.equal(400);
    const thumb = await k.call('PUT', `${url}/thumbnail`, k.editor, { thumbnail: null }, { 'if-match': '"*"' });
    expect(thumb.statusCode).to.equal(412);
  });

  it('two saves at once with the same tag: exactly one wins, the other is refused and wrote nothing', async () => {
    for (let round = 0; round < 5; round++) {
      const page = await pageOf();
      const url = `/cms-one/pages/${page.id}`;
      const tag = (await k.call('GET', url, k.editor)).headers.etag as string;
      const saves = await Promise.all(
        ['one', 'two', 'three'].map((text) =>
          k.call('PATCH', url, k.editor, { content: { type: 'p', text } }, { 'if-match': tag }),
        ),
      );
      const codes = saves.map((r) => r.statusCode).sort();
      expect(codes, `round ${round}`).to.deep.equal([200, 412, 412]);
      const winner = saves.find((r) => r.statusCode === 200)!;
      const stored = await k.call('GET', url, k.editor);
      expect(stored.json().content).to.deep.equal(winner.json().content);
      expect(stored.headers.etag).to.equal(winner.headers.etag);
      // One version: the state before the winning save.
      expect((await k.call('GET', `${url}/versions`, k.editor)).json()).to.have.length(1);
    }
    // A save and a thumbnail from the same state: one of them, not both.
    const page = await pageOf();
    const url = `/cms-one/pages/${page.id}`;
    const tag = (await k.call('GET', url, k.editor)).headers.etag as string;
    const thumbnail = `data:image/png;base64,${(await png(4, 3)).toString('base64')}`;
    const [save, thumb] = await Promise.all([
      k.call('PATCH', url, k.editor, { content: { type: 'p', text: 'new' } }, { 'if-match': tag }),
      k.call('PUT', `${url}/thumbnail`, k.editor, { thumbnail }, { 'if-match': tag }),
    ]);
    expect([save.statusCode, thumb.statusCode].sort()).to.deep.equal([200, 412]);
  });

  it('every write moves the tag on, even two in one instant (one transaction)', async () => {
    const page = await pageOf();
    const { pages } = k.services();
    const tags = await k.t.db.transaction(async (trx) => {
      const first = await pages.update(SYSTEM, page.id, { title: 'First' }, { trx });
      const second = await pages.update(SYSTEM, page.id, { title: 'Second' }, { trx });
      return [first, second].map((r) => entityTag(r.updated_at));
    });
    expect(tags[0]).not.to.equal(tags[1]);
    // A save based on the first state is refused: the second is not overwritten unseen.
    const stale = await k.call(
      'PATCH',
      `/cms-one/pages/${page.id}`,
      k.editor,
      { title: 'Mine' },
      { 'if-match': tags[0] },
    );
    expect(stale.statusCode).to.equal(412);
    expect((await k.call('GET', `/cms-one/pages/${page.id}`, k.editor)).headers.etag).to.equal(tags[1]);
  });
});
