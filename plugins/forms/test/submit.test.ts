import { expect } from 'chai';
import { sitesFixturePlugin, uploadSettings } from '../../../test/fixtures/sites-plugin.ts';
import { jpeg } from '../../../test/helpers/images.ts';
import { eventually, startTestKernel, type TestKernel, type TestUser } from '../../../test/helpers/kernel.ts';
import type { RecordChange } from '../../../kernel/record-hooks.ts';

/** What these tests read of the assets plugin's services: its store. */
type AssetStorage = { storage: { list(prefix: string): Promise<string[]> } };

describe('forms: public submits with staged uploads', function () {
  this.timeout(60_000);
  let k: {
    t: TestKernel;
    admin: TestUser;
    events: RecordChange[];
    call: TestKernel['call'];
    services(): AssetStorage;
    storedKeys(): Promise<string[]>;
  };
  let classId: string;
  let photo: Buffer;
  let ip = 0;
  /** Each test its own client address, so the submit limit is counted per test. */
  const nextIp = () => `10.0.0.${++ip}`;

  before(async () => {
    const t = await startTestKernel({
      plugins: ['data', 'assets', 'forms'],
      extraPlugins: [sitesFixturePlugin],
      ownDataDir: true,
      env: { UPLOAD_TOKEN_SECRET: 'upload-ticket-secret-0123456789-abcdef', TRUST_PROXY: '1' },
    });
    const services = () => t.services<AssetStorage>('assets');
    k = {
      t,
      admin: await t.admin(),
      events: t.recordChanges('asset'),
      call: t.call,
      services,
      storedKeys: async () =>
        (await Promise.all(['a/', 't/', 'd/', 's/'].map((p) => services().storage.list(p)))).flat(),
    };
    await t.db('fixture_sites').insert({
      id: 'site-a',
      name: 'A',
      root_path: '/a',
      host: 'a.example',
      uploads: JSON.stringify(uploadSettings()),
    });
    const cls = await k.call('POST', '/data-classes', k.admin, {
      name: `contact_${Date.now()}`,
      fields: [
        { name: 'email', type: 'text', required: true, unique: true },
        { name: 'attachment', type: 'asset' },
      ],
    });
    classId = cls.json().id;
    photo = await jpeg(200, 100);
  });
  after(() => k.t.close());

  const intent = (body: Record<string, unknown>, origin = 'https://a.example') =>
    k.t.inject({ method: 'POST', url: '/public/uploads/intent', payload: body, headers: { origin } });
  const put = (url: string, data: Buffer) =>
    k.t.inject({ method: 'PUT', url, payload: data, headers: { 'content-type': 'application/octet-stream' } });
  const submit = (body: unknown, address: string) =>
    k.t.inject({
      method: 'POST',
      url: `/public/forms/${classId}/submit`,
      payload: body as object,
      headers: { 'x-forwarded-for': address },
    });

  it('intent → PUT → submit: an unpublished object whose asset field holds the attached private asset', async () => {
    const i = await intent({ fieldId: 'attachment', filename: 'cv.jpg', size: photo.length });
    expect(i.statusCode, i.body).to.equal(201);
    const { uploadId, uploadUrl, expiresIn, maxBytes } = i.json();
    expect(expiresIn).to.equal(900);
    expect(maxBytes, 'the ticket accepts the declared size').to.equal(photo.length);
    expect(uploadUrl).to.match(/^\/public\/upload-data\/[0-9a-z]{38,}\.[A-Za-z0-9_-]{22}$/);
    const sent = await put(uploadUrl, photo);
    expect(sent.statusCode, sent.body).to.equal(201);
    expect(sent.json()).to.deep.include({ uploadId, size: photo.length, mimeType: 'image/jpeg' });
    expect((await put(uploadUrl, photo)).statusCode, 'single use').to.equal(404);
    k.events.splice(0);
    const res = await submit({ attributes: { email: 'a@example.test', attachment: { uploadId } } }, nextIp());
    expect(res.statusCode, res.body).to.equal(201);
    const object = await k.call('GET', `/data-objects/${res.json().id}`, k.admin);
    expect(object.json().published).to.equal(false);
    const assetId = object.json().attributes.attachment;
    const asset = (await k.call('GET', `/api/v1/dam/assets/${assetId}`, k.admin)).json();
    expect(asset).to.include({ folder: 'forms/site-a', visibility: 'private', mimeType: 'image/jpeg' });
    expect(k.events.map((e) => [e.kind, e.actor.type])).to.deep.equal([['created', 'system']]);
    // The staged copy goes once the attach has committed, after the answer.
    await eventually(async () => (await k.services().storage.list('s/')).length === 0, { what: 'staged file removed' });
    expect(
      (await submit({ attributes: { email: 'b@example.test', attachment: { uploadId } } }, nextIp())).statusCode,
      'attached once',
    ).to.equal(404);
  });

  it('a refused object (400 naming the field, 409 unique) leaves no object, no asset and no stored copy', async () => {
    const stage = async () => {
      const i = (await intent({ fieldId: 'attachment', filename: 'cv.jpg', size: photo.length })).json();
      expect((await put(i.uploadUrl, photo)).statusCode).to.equal(201);
      return i.uploadId as string;
    };
    const first = await stage();
    const ok = await submit(
      { attributes: { email: 'unique@example.test', attachment: { uploadId: first } } },
      nextIp(),
    );
    expect(ok.statusCode, ok.body).to.equal(201);
    const assetsBefore = await k.t.db('assets').count<{ count: number }[]>({ count: '*' });
    const keysBefore = (await k.storedKeys()).filter((key) => key.startsWith('a/'));
    const second = await stage();
    const dup = await submit(
      { attributes: { email: 'unique@example.test', attachment: { uploadId: second } } },
      nextIp(),
    );
    expect(dup.statusCode, dup.body).to.equal(409);
    expect(dup.json().code).to.equal('UNIQUE_VIOLATION');
    const missing = await submit({ attributes: { attachment: { uploadId: second } } }, nextIp());
    expect(missing.statusCode, missing.body).to.equal(400);
    expect(missing.json().field).to.match(/email/);
    expect(await k.t.db('assets').count<{ count: number }[]>({ count: '*' })).to.deep.equal(assetsBefore);
    // Files of the refused submissions go once their rollback is seen, in the background.
    await eventually(async () =>
      expect((await k.storedKeys()).filter((key) => key.startsWith('a/'))).to.deep.equal(keysBefore),
    );
    const wrongField = await submit({ attributes: { email: 'w@example.test', other: { uploadId: second } } }, nextIp());
    expect(wrongField.statusCode).to.equal(400);
    expect(wrongField.json().field).to.equal('attributes.other');
    expect(
      (
        await submit(
          { attributes: { email: 'x@example.test', attachment: { uploadId: '00000000-0000-4000-8000-000000000000' } } },
          nextIp(),
        )
      ).statusCode,
    ).to.equal(404);
    const unknownClass = await k.t.inject({
      method: 'POST',
      url: '/public/forms/00000000-0000-4000-8000-000000000000/submit',
      payload: { attributes: { email: 'y@example.test' } },
      headers: { 'x-forwarded-for': nextIp() },
    });
    expect(unknownClass.statusCode).to.equal(404);
  });

  it('10 submits per address per window, then 429 with Retry-After', async () => {
    const address = nextIp();
    for (let i = 0; i < 10; i++)
      expect(
        (await submit({ attributes: { email: `rl${i}-${Date.now()}@example.test` } }, address)).statusCode,
      ).to.equal(201);
    const limited = await submit({ attributes: { email: `rl-last@example.test` } }, address);
    expect(limited.statusCode).to.equal(429);
    expect(Number(limited.headers['retry-after'])).to.be.greaterThan(0);
    expect((await submit({ attributes: { email: `rl-other@example.test` } }, nextIp())).statusCode).to.equal(201);
  });
});
