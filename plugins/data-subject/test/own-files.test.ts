import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { jpeg } from '../../../test/helpers/images.ts';
import { startTestKernel, type TestKernel, type TestUser } from '../../../test/helpers/kernel.ts';

const SERVICE_TOKEN = 'test-service-token-0123456789';

/**
 * An erase takes only what is provably the person's own (issue 30, items 1-3): an asset field takes
 * only a file its writer may reference (a public form: an upload of that submission), an erase
 * deletes only files the person uploaded through a form and none that a page, a layout or another
 * object still uses (asked through the registry `assetReferences`), a staff account's uploads are
 * reported, queued mails are reported, and a too short identifier is refused.
 */
describe("data-subject: an erase takes only what is the person's own", function () {
  this.timeout(120_000);
  let t: TestKernel;
  let admin: TestUser;
  let classId: string;
  let siteId: string;
  let logo: { id: string; uuid: string; path: string };
  let ip = 0;
  let photo: Buffer;

  const upload = async (user: TestUser, folder: string, name: string) => {
    const boundary = `----ds${randomBytes(6).toString('hex')}`;
    const res = await t.inject({
      method: 'POST',
      url: '/api/v1/dam/upload',
      payload: Buffer.concat([
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="folder"\r\n\r\n${folder}\r\n` +
            `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: image/jpeg\r\n\r\n`,
        ),
        photo,
        Buffer.from(`\r\n--${boundary}--\r\n`),
      ]),
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, cookie: user.cookie },
    });
    expect(res.statusCode, res.body).to.equal(201);
    return res.json() as { id: string; uuid: string; path: string };
  };
  const submit = (attributes: Record<string, unknown>) =>
    t.inject({
      method: 'POST',
      url: `/public/forms/${classId}/submit`,
      payload: { attributes },
      headers: { 'x-forwarded-for': `10.9.0.${++ip}` },
    });
  /** What a visitor's browser does: intent, PUT of the bytes, submit with `{ uploadId }`. */
  const visitor = async (email: string) => {
    const intent = await t.inject({
      method: 'POST',
      url: '/public/uploads/intent',
      payload: { fieldId: 'attachment', filename: 'me.jpg', size: photo.length },
      headers: { origin: 'https://shop.example' },
    });
    expect(intent.statusCode, intent.body).to.equal(201);
    const put = await t.inject({ method: 'PUT', url: intent.json().uploadUrl, payload: photo });
    expect(put.statusCode, put.body).to.equal(201);
    const res = await submit({ email, attachment: { uploadId: intent.json().uploadId } });
    expect(res.statusCode, res.body).to.equal(201);
    const assetId = res.json().attachments[0].assetId as string;
    const asset = (await t.call('GET', `/api/v1/dam/assets/${assetId}`, admin)).json();
    return { objectId: res.json().id as string, asset: { id: assetId, uuid: asset.uuid, path: asset.path } };
  };
  const erase = (identifier: string, dryRun = false) =>
    t.call('POST', '/data-subject/erase', admin, { identifier, dryRun, confirm: identifier });
  const exists = async (id: string) => (await t.db('assets').where({ id }).first()) !== undefined;

  before(async () => {
    t = await startTestKernel({
      plugins: ['identity', 'data', 'assets', 'content', 'forms', 'mail', 'data-subject'],
      ownDataDir: true,
      env: {
        MAIL_WORKER_ENABLED: '0',
        DATA_SUBJECT_RATE_LIMIT_PER_MINUTE: '1000',
        UPLOAD_TOKEN_SECRET: 'upload-ticket-secret-0123456789-abcdef',
        TRUST_PROXY: '1',
        DAM_SERVICE_TOKEN: SERVICE_TOKEN,
      },
    });
    admin = await t.admin();
    photo = await jpeg(40, 30);
    const site = await t.call('POST', '/cms-one/websites', admin, {
      name: 'Shop',
      rootPath: '/shop',
      domains: ['shop.example'],
    });
    expect(site.statusCode, site.body).to.equal(201);
    const settings = await t.call('PUT', `/cms-one/websites/${site.json().id}/upload-settings`, admin, {
      enabled: true,
      allowedTypes: ['image/jpeg'],
      maxFileBytes: 200_000,
    });
    expect(settings.statusCode, settings.body).to.equal(200);
    const cls = await t.call('POST', '/data-classes', admin, {
      name: 'contact',
      fields: [
        { name: 'email', type: 'text', required: true },
        { name: 'attachment', type: 'asset' },
      ],
    });
    classId = cls.json().id;
    // The published form the visitors use.
    const form = await t.call('POST', '/cms-one/pages', admin, {
      websiteId: site.json().id,
      locale: 'en',
      path: '/contact',
      title: 'Contact',
      published: true,
      content: { type: 'form', props: { classId } },
    });
    expect(form.statusCode, form.body).to.equal(201);
    logo = await upload(admin, 'brand', 'logo.jpg');
    siteId = site.json().id;
  });
  after(() => t?.close());

  it('an asset field takes only what its writer may reference: a public form only its own upload, staff an existing file', async () => {
    for (const ref of [logo.path, logo.id, logo.uuid, 'brand/none.jpg']) {
      const res = await submit({ email: 'me@evil.test', attachment: ref });
      expect(res.statusCode, `${ref}: ${res.body}`).to.equal(400);
      expect(res.json()).to.include({ code: 'ASSET_NOT_ALLOWED', field: 'attributes.attachment' });
    }
    const missing = await t.call('POST', '/data-objects', admin, {
      className: 'contact',
      attributes: { email: 'x@y.test', attachment: 'brand/none.jpg' },
    });
    expect(missing.statusCode).to.equal(400);
    expect(missing.json()).to.include({ code: 'ASSET_NOT_FOUND', field: 'attributes.attachment' });
    const bulk = await t.call('POST', '/data-objects/bulk', admin, {
      className: 'contact',
      objects: [{ attributes: { email: 'x@y.test', attachment: 'brand/none.jpg' } }],
    });
    expect(bulk.json().rejected, bulk.body).to.have.length(1);
    const named = await t.call('POST', '/data-objects', admin, {
      className: 'contact',
      attributes: { email: 'me@evil.test', attachment: logo.path },
    });
    expect(named.statusCode, named.body).to.equal(201);
    // A value the record already held stays when the rest changes (its file may be gone since).
    const kept = await t.call('PATCH', `/data-objects/${named.json().id}`, admin, {
      attributes: { email: 'me@evil.test', attachment: logo.path },
    });
    expect(kept.statusCode, kept.body).to.equal(200);
  });

  it("a library file merely named in a field is not the person's: not exported, not erased", async () => {
    const found = (await t.call('POST', '/data-subject/search', admin, { identifier: 'me@evil.test' })).json();
    expect(found.counts).to.include({ objects: 1, files: 0 });
    const exported = (await t.call('POST', '/data-subject/export', admin, { identifier: 'me@evil.test' })).json();
    expect(exported.records.files).to.deep.equal([]);
    const res = await erase('me@evil.test');
    expect(res.statusCode, res.body).to.equal(200);
    expect(res.json()).to.deep.include({ erased: { files: 0, objects: 1, mails: 0 }, complete: true });
    expect(await exists(logo.id)).to.equal(true);
    const got = await t.inject({ method: 'GET', url: `/dam-asset/${logo.path}` });
    expect(got.statusCode).to.equal(200);
  });

  it('a form upload is erased with its person, unless a page, a layout or another object still uses it', async () => {
    const own = await visitor('vera@example.test');
    const onPage = await visitor('vera@example.test');
    const inLayout = await visitor('vera@example.test');
    const inObject = await visitor('vera@example.test');
    const page = await t.call('POST', '/cms-one/pages', admin, {
      websiteId: siteId,
      locale: 'en',
      path: '/thanks',
      title: 'Thanks',
      content: { type: 'section', children: [{ type: 'img', props: { src: `/dam-asset/${onPage.asset.path}` } }] },
    });
    expect(page.statusCode, page.body).to.equal(201);
    const layout = await t.call('POST', `/cms-one/websites/${siteId}/templates`, admin, {
      name: 'Main',
      regions: { header: { type: 'img', props: { src: `/public/assets/${inLayout.asset.uuid}` } } },
    });
    expect(layout.statusCode, layout.body).to.equal(201);
    const other = await t.call('POST', '/data-objects', admin, {
      className: 'contact',
      attributes: { email: 'testimonial@example.test', attachment: inObject.asset.id },
    });
    expect(other.statusCode, other.body).to.equal(201);

    const dry = (await erase('vera@example.test', true)).json();
    expect(dry).to.deep.include({ erased: { files: 1, objects: 4, mails: 0 } });
    expect(dry.sharedFiles).to.deep.equal([onPage.asset.path, inLayout.asset.path, inObject.asset.path].sort());
    const done = await erase('vera@example.test');
    expect(done.json()).to.deep.include({ erased: { files: 1, objects: 4, mails: 0 }, complete: true });
    const reasons = Object.fromEntries(
      done.json().reported.map((r: { id: string; reason: string }) => [r.id, r.reason] as const),
    );
    expect(reasons[onPage.asset.id]).to.match(/page \/thanks \(en\) \(content\)/);
    expect(reasons[inLayout.asset.id]).to.match(/layout Main \(content\)/);
    expect(reasons[inObject.asset.id]).to.match(/object contact\/.* \(data\)/);
    expect(await exists(own.asset.id)).to.equal(false);
    for (const kept of [onPage, inLayout, inObject]) expect(await exists(kept.asset.id)).to.equal(true);
    expect((await t.call('GET', `/data-objects/${own.objectId}`, admin)).statusCode).to.equal(404);
  });

  it("a staff account's uploads (bundle imports too) are reported, never erased", async () => {
    const { staff } = await t.users({ staff: ['objects:write'] });
    const email = (await t.db('users').where({ id: staff.id }).first()).email as string;
    const file = await upload(staff, 'team', `own-${Date.now()}.jpg`);
    const found = (await t.call('POST', '/data-subject/search', admin, { identifier: email })).json();
    expect(found.results.files.map((f: { matched: string[] }) => f.matched)).to.deep.equal([['uploader']]);
    const res = (await erase(email)).json();
    expect(res.erased.files).to.equal(0);
    expect(res.reportedOnly).to.deep.include({ accounts: 1, files: 1 });
    expect(res.reported[0]).to.include({ kind: 'files', id: file.id });
    expect(res.reported[0].reason).to.match(/staff account/);
    expect(await exists(file.id)).to.equal(true);
  });

  it('mails still queued or retrying are reported, not deleted; sent ones are erased', async () => {
    const mail = t.kernel.resolve('mail');
    await mail.send({ to: 'quinn@example.test', subject: 'Queued', text: 'x', kind: 'ds' });
    await mail.send({ to: 'quinn@example.test', subject: 'Sent', text: 'x', kind: 'ds' });
    await t.db('mail_outbox').where({ subject: 'Sent' }).update({ status: 'sent' });
    const res = (await erase('quinn@example.test')).json();
    expect(res).to.deep.include({ erased: { files: 0, objects: 0, mails: 1 }, complete: false });
    expect(res.kept).to.have.length(1);
    expect(res.kept[0]).to.include({ kind: 'mails', label: 'Queued' });
    expect(res.kept[0].reason).to.match(/queued/);
    expect(await t.db('mail_outbox').where({ subject: 'Queued' }).first()).to.not.equal(undefined);
  });

  it('an identifier shorter than 5 characters is refused (400 naming it) and costs no scan', async () => {
    for (const path of ['search', 'export', 'erase'])
      for (const identifier of ['b', ' ab ', 'a@b.']) {
        const res = await t.call('POST', `/data-subject/${path}`, admin, { identifier });
        expect(res.statusCode, `${path} ${identifier}`).to.equal(400);
        expect(res.json()).to.include({ code: 'IDENTIFIER_TOO_SHORT', field: 'identifier' });
      }
    expect((await t.call('POST', '/data-subject/search', admin, { identifier: 'a@b.c' })).statusCode).to.equal(200);
  });
});

describe('data-subject: the asset service routes under the sandbox profile', function () {
  this.timeout(60_000);

  it('POST /api/v1/dam/data-subject/* answers 403 SANDBOX_BLOCKED, with the service token too', async () => {
    const t = await startTestKernel({
      plugins: ['assets'],
      env: { SANDBOX: '1', DAM_SERVICE_TOKEN: SERVICE_TOKEN },
    });
    try {
      for (const route of ['find', 'records', 'erase'])
        for (const headers of [{ authorization: `Bearer ${SERVICE_TOKEN}` }, {}]) {
          const res = await t.inject({
            method: 'POST',
            url: `/api/v1/dam/data-subject/${route}`,
            payload: { identifier: 'anna@example.test', options: {}, dryRun: false },
            headers,
          });
          expect(res.statusCode, `${route}: ${res.body}`).to.equal(403);
          expect(res.json().code).to.equal('SANDBOX_BLOCKED');
        }
    } finally {
      await t.close();
    }
  });
});
