import { expect } from 'chai';
import { FORM_SCRIPT_PATH } from '../services/form-node.ts';
import { type ContentKernel, startContentKernel } from './content-kernel.ts';

const BROWSER = { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' };
const HOSTILE = '<img src=x onerror="alert(1)">&"\'';

describe('content: the form block on the public page, and the website 404 page as HTML', () => {
  let k: ContentKernel;
  let classId: string;
  before(async () => {
    k = await startContentKernel({ plugins: ['data', 'assets', 'content', 'forms'] });
    const name = k.unique('Lead');
    const cls = await k.call('POST', '/data-classes', k.admin, {
      name,
      label: `Leads ${HOSTILE}`,
      fields: [
        { name: 'name', type: 'text', label: `Your name ${HOSTILE}`, required: true },
        { name: 'email', type: 'text', label: 'E-mail', required: true },
        { name: 'age', type: 'number', validation: { min: 0, max: 150 } },
        { name: 'message', type: 'markdown', label: 'Message' },
        { name: 'newsletter', type: 'boolean', label: 'Newsletter' },
        { name: 'visit', type: 'date', label: 'Visit day' },
        { name: 'topic', type: 'select', label: 'Topic', options: ['sales', 'support <b>'] },
        // Not drawn: a relation needs a picker of objects a visitor may not read.
        { name: 'referrer', type: 'relation', relation: { class: name } },
      ],
    });
    expect(cls.statusCode, cls.body).to.equal(201);
    classId = cls.json().id;
  });
  after(() => k.t.close());

  const page = async (root: string, path: string, extra: Record<string, string> = {}) =>
    k.call('GET', `/public/page${root}${path}`, null, undefined, { ...BROWSER, ...extra });

  it('draws a form block as a labelled form for the class, escaped, with the script; the JSON answer is the stored tree', async () => {
    const site = await k.createWebsite();
    const notify = { to: 'owner@example.test', subject: 'New <lead>' };
    const stored = await k.createPage({
      websiteId: site.id,
      path: '/contact',
      title: 'Contact',
      published: true,
      content: {
        type: 'section',
        children: [{ type: 'form', props: { classId, notify, submitLabel: 'Send <it>', className: 'contact' } }],
      },
    });
    const res = await page(site.rootPath, '/contact');
    expect(res.statusCode, res.body).to.equal(200);
    const html = res.body;
    expect(html).to.contain(`<script src="${FORM_SCRIPT_PATH}" defer></script>`);
    const form = /<form [^>]*>[\s\S]*<\/form>/.exec(html)?.[0] ?? '';
    expect(form).to.contain(`data-cms-form="${classId}"`);
    expect(form).to.contain('data-cms-form-locale="en"');
    // The saved block as it was stored, for the notification rule (forms plugin).
    expect(form).to.contain(
      `data-cms-form-notify="${JSON.stringify(notify).replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;')}"`,
    );
    expect(form).to.contain('class="cms-form contact"');
    expect(form).to.contain('aria-label="Leads &lt;img src=x onerror=&quot;alert(1)&quot;&gt;&amp;&quot;&#39;"');
    // Labelled controls, required marks, hostile labels as text.
    expect(form).to.contain(
      '<label><span data-cms-form-label="">Your name &lt;img src=x onerror=&quot;alert(1)&quot;&gt;&amp;&quot;&#39;</span>' +
        '<span class="cms-form-required" aria-hidden="true"> *</span><input name="name" required="" type="text" maxlength="600"></label>',
    );
    expect(form).to.contain('<input name="email" required="" type="email" autocomplete="email" maxlength="600">');
    expect(form).to.contain('<input name="age" type="number" step="any" inputmode="decimal" min="0" max="150">');
    expect(form).to.contain('<textarea name="message"></textarea>');
    expect(form).to.contain(
      '<input type="checkbox" name="newsletter" value="true"><span data-cms-form-label="">Newsletter</span>',
    );
    expect(form).to.contain('<input name="visit" type="date">');
    expect(form).to.contain(
      '<select name="topic"><option value="">Choose…</option><option value="sales">sales</option>' +
        '<option value="support &lt;b&gt;">support &lt;b&gt;</option></select>',
    );
    expect(form).to.contain('<button type="submit" disabled="">Send &lt;it&gt;</button>');
    expect(form).to.contain('<p class="cms-form-status" role="status" aria-live="polite" data-cms-form-status=""></p>');
    expect(form).to.contain('<noscript>');
    expect(html).not.to.contain('<img src=x');
    expect(html).not.to.contain('classid=');
    expect(form).not.to.contain('referrer');
    // API clients keep the stored tree.
    const json = await k.call('GET', `/public/page${site.rootPath}/contact`, null);
    expect(json.json().content).to.deep.equal(stored.content);
    // The canvas draws the form (inert: sandboxed, no script), its outer element marked for selection.
    const canvas = await k.call('POST', `/cms-one/pages/${stored.id}/canvas`, k.reader, {});
    expect(canvas.statusCode, canvas.body).to.equal(200);
    expect(canvas.body).to.match(/<form [^>]*data-cms-form="[^"]+"[^>]* data-cms-node="r\.0">/);
    expect(canvas.body).to.contain('<input name="email"');
    expect(canvas.body).not.to.contain('<script');
    // The script is served same-origin as JavaScript.
    const script = await k.call('GET', FORM_SCRIPT_PATH, null);
    expect(script.statusCode).to.equal(200);
    expect(script.headers['content-type']).to.equal('text/javascript; charset=utf-8');
    expect(script.body).to.contain("'cms-form-result'");
  });

  it('a page without a form loads no script; an unknown or removed class shows nothing and leaks nothing', async () => {
    const site = await k.createWebsite();
    await k.createPage({ websiteId: site.id, path: '/plain', title: 'Plain', published: true });
    expect((await page(site.rootPath, '/plain')).body).not.to.contain('<script');

    const doomed = await k.call('POST', '/data-classes', k.admin, {
      name: k.unique('Gone'),
      fields: [{ name: 'secretField', type: 'text', label: 'Secret label' }],
    });
    const formPage = await k.createPage({
      websiteId: site.id,
      path: '/gone',
      title: 'Gone',
      published: true,
      content: { type: 'section', children: [{ type: 'form', props: { classId: doomed.json().id } }] },
    });
    expect((await page(site.rootPath, '/gone')).body).to.contain('Secret label');
    expect((await k.call('DELETE', `/data-classes/${doomed.json().id}`, k.admin)).statusCode).to.be.oneOf([200, 204]);
    const after = await page(site.rootPath, '/gone');
    expect(after.statusCode).to.equal(200);
    expect(after.body).to.contain('<section><div hidden=""></div></section>');
    expect(after.body).not.to.contain('<script');
    expect(after.body).not.to.contain(doomed.json().id);

    // Saving, like a data binding: the class must exist (400 naming the part); a form of a gateway
    // binding (no classId) is not a form block.
    const save = (content: unknown) => k.call('PATCH', `/cms-one/pages/${formPage.id}`, k.publisher, { content });
    const unknown = await save({ type: 'section', children: [{ type: 'form', props: { classId: doomed.json().id } }] });
    expect(unknown.statusCode, unknown.body).to.equal(400);
    expect(unknown.json().field).to.equal('content.children.0.props.classId');
    const garbage = await save({ type: 'form', props: { classId: 'contact' } });
    expect(garbage.statusCode).to.equal(400);
    expect(garbage.json().field).to.equal('content.props.classId');
    const plain = await save({ type: 'form', props: { className: 'x' } });
    expect(plain.statusCode, plain.body).to.equal(200);
  });

  it('a submit as the script sends it creates an unpublished object; the saved notify block is accepted', async () => {
    const site = await k.createWebsite();
    const notify = { to: 'owner@example.test' };
    await k.createPage({
      websiteId: site.id,
      path: '/c',
      title: 'C',
      published: true,
      content: { type: 'form', props: { classId, notify } },
    });
    const res = await k.t.inject({
      method: 'POST',
      url: `/public/forms/${classId}/submit`,
      payload: { attributes: { name: 'Ann', email: 'ann@example.test', newsletter: false }, locale: 'en', notify },
    });
    expect(res.statusCode, res.body).to.equal(201);
    const object = await k.call('GET', `/data-objects/${res.json().id}`, k.admin);
    expect(object.json()).to.include({ published: false, locale: 'en' });
    expect(object.json().attributes).to.deep.equal({ name: 'Ann', email: 'ann@example.test', newsletter: false });
  });

  it('answers a browser the website 404 content as an HTML document (404) in its layout and theme; JSON clients keep JSON', async () => {
    const site = await k.createWebsite({ locales: ['en', 'de'] });
    // No 404 content at all: a plain heading in the website's theme.
    const bare = await page(site.rootPath, '/missing');
    expect(bare.statusCode).to.equal(404);
    expect(bare.headers['content-type']).to.equal('text/html; charset=utf-8');
    expect(bare.body).to.contain('<h1>Page not found</h1>');
    expect(bare.body).to.contain('<style data-cms-theme>');

    // The published /404 page of the first locale.
    await k.createPage({
      websiteId: site.id,
      path: '/404',
      title: 'Lost',
      published: true,
      content: { type: 'p', text: 'Nothing <here>' },
    });
    const fromPage = await page(site.rootPath, '/missing');
    expect(fromPage.statusCode).to.equal(404);
    expect(fromPage.body).to.contain('<title>Lost</title>');
    expect(fromPage.body).to.contain('<main><p>Nothing &lt;here&gt;</p></main>');

    // The layout's notFound region wins (the /public/404 source), drawn in that layout and theme, with forms.
    await k.call('POST', `/cms-one/websites/${site.id}/templates`, k.admin, {
      name: 'Main',
      isDefault: true,
      regions: {
        header: { type: 'p', text: 'Site header' },
        notFound: {
          type: 'section',
          children: [
            { type: 'h1', text: 'Gone fishing' },
            { type: 'form', props: { classId } },
          ],
        },
      },
    });
    const theme = await k.call('POST', `/cms-one/websites/${site.id}/themes`, k.admin, {
      name: 'Dark',
      customStyles: 'h1{letter-spacing:3px}',
    });
    await k.call('PUT', `/cms-one/websites/${site.id}/theme`, k.admin, { themeId: theme.json().id });
    const region = await page(site.rootPath, '/missing/deeper');
    expect(region.statusCode).to.equal(404);
    expect(region.headers['content-type']).to.equal('text/html; charset=utf-8');
    expect(region.body).to.contain('<html lang="en">');
    expect(region.body).to.contain('h1{letter-spacing:3px}');
    expect(region.body).to.contain('<header data-cms-region="header"><p>Site header</p></header>');
    expect(region.body).to.contain('<main><section><h1>Gone fishing</h1><form ');
    expect(region.body).to.contain(`<script src="${FORM_SCRIPT_PATH}" defer></script>`);
    const json404 = await k.call('GET', `/public/404/${site.id}`, null);
    expect(json404.json().content.children[0].text).to.equal('Gone fishing');
    // By locale: the locale asked for (the website has it); a draft is a 404 too.
    const de = await k.call('GET', `/public/pages/de${site.rootPath}/missing`, null, undefined, BROWSER);
    expect(de.statusCode).to.equal(404);
    expect(de.body).to.contain('<html lang="de">');
    await k.createPage({ websiteId: site.id, path: '/draft', title: 'Draft secret' });
    const draft = await page(site.rootPath, '/draft');
    expect(draft.statusCode).to.equal(404);
    expect(draft.body).to.contain('Gone fishing');
    expect(draft.body).not.to.contain('Draft secret');

    // JSON clients: the JSON 404 as before.
    for (const accept of ['*/*', 'application/json']) {
      const json = await k.call('GET', `/public/page${site.rootPath}/missing`, null, undefined, { accept });
      expect(json.statusCode).to.equal(404);
      expect(json.headers['content-type']).to.match(/^application\/json/);
      expect(json.json().code).to.equal('NOT_FOUND');
    }
    // No website at that address: the JSON 404 for everyone.
    const none = await k.call('GET', '/public/page/no-such-site/x', null, undefined, BROWSER);
    expect(none.statusCode).to.equal(404);
    expect(none.headers['content-type']).to.match(/^application\/json/);
  });
});
