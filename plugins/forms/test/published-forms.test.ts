import { expect } from 'chai';
import { startTestKernel, type TestKernel, type TestUser } from '../../../test/helpers/kernel.ts';

/**
 * Issue 30, item 9: `/public/forms/:classId/submit` writes only objects of a class a visitor was shown a
 * form for: a form block of a published page, or of a layout region of a website with a published
 * page (the content plugin's `publishedFormSources`). Any other class, known or not, answers 404
 * `FORM_NOT_FOUND` and nothing is stored.
 */
describe('forms: a submit needs a published form for its class', function () {
  this.timeout(60_000);
  let t: TestKernel;
  let admin: TestUser;
  let websiteId: string;
  let ip = 0;

  before(async () => {
    t = await startTestKernel({ plugins: ['data', 'assets', 'content', 'forms'], env: { TRUST_PROXY: '1' } });
    admin = await t.admin();
    const site = await t.call('POST', '/cms-one/websites', admin, {
      name: 'Forms',
      rootPath: '/forms',
      locales: ['en'],
    });
    expect(site.statusCode, site.body).to.equal(201);
    websiteId = site.json().id;
  });
  after(() => t?.close());

  const newClass = async (name: string) => {
    const cls = await t.call('POST', '/data-classes', admin, {
      name: `${name}_${Date.now()}`,
      fields: [{ name: 'email', type: 'text', required: true }],
    });
    expect(cls.statusCode, cls.body).to.equal(201);
    return cls.json().id as string;
  };
  const submit = (classId: string) =>
    t.inject({
      method: 'POST',
      url: `/public/forms/${classId}/submit`,
      payload: { attributes: { email: `v${ip}@example.test` } },
      headers: { 'x-forwarded-for': `10.9.0.${++ip}` },
    });
  const objectsOf = async (classId: string) => t.db('data_objects').where({ class_id: classId }).select('id');
  const refused = async (classId: string, why: string) => {
    const res = await submit(classId);
    expect(res.statusCode, `${why}: ${res.body}`).to.equal(404);
    expect(res.json().code, why).to.equal('FORM_NOT_FOUND');
  };

  it('refuses a class without a form, with a form on a draft page only, and an unknown class', async () => {
    const internal = await newClass('internal');
    await refused(internal, 'a class no page shows');
    const draft = await t.call('POST', '/cms-one/pages', admin, {
      websiteId,
      locale: 'en',
      path: '/draft',
      title: 'Draft',
      content: { type: 'section', children: [{ type: 'form', props: { classId: internal } }] },
    });
    expect(draft.statusCode, draft.body).to.equal(201);
    await refused(internal, 'a form on a draft page');
    await refused('00000000-0000-4000-8000-000000000000', 'an unknown class');
    expect(await objectsOf(internal)).to.deep.equal([]);
  });

  it('accepts the class once the page is published, and refuses it again when unpublished', async () => {
    const contact = await newClass('contact');
    const page = await t.call('POST', '/cms-one/pages', admin, {
      websiteId,
      locale: 'en',
      path: '/contact',
      title: 'Contact',
      published: true,
      content: {
        type: 'section',
        children: [{ type: 'section', children: [{ type: 'form', props: { classId: contact } }] }],
      },
    });
    expect(page.statusCode, page.body).to.equal(201);
    const accepted = await submit(contact);
    expect(accepted.statusCode, accepted.body).to.equal(201);
    expect(await objectsOf(contact)).to.have.length(1);
    const unpublished = await t.call('PATCH', `/cms-one/pages/${page.json().id}`, admin, { published: false });
    expect(unpublished.statusCode, unpublished.body).to.equal(200);
    await refused(contact, 'the page was unpublished');
  });

  it('accepts a class whose form is in a layout region of a website with a published page', async () => {
    const newsletter = await newClass('newsletter');
    const layout = await t.call('POST', `/cms-one/websites/${websiteId}/templates`, admin, {
      name: 'Main',
      regions: { footer: { type: 'section', children: [{ type: 'form', props: { classId: newsletter } }] } },
      isDefault: true,
    });
    expect(layout.statusCode, layout.body).to.equal(201);
    // The site's only published page was unpublished above: the layout is drawn around nothing.
    await refused(newsletter, 'a layout of a website without a published page');
    const home = await t.call('POST', '/cms-one/pages', admin, {
      websiteId,
      locale: 'en',
      path: '/',
      title: 'Home',
      published: true,
      content: { type: 'section', children: [] },
    });
    expect(home.statusCode, home.body).to.equal(201);
    expect((await submit(newsletter)).statusCode).to.equal(201);
  });
});
