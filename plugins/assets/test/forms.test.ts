import { expect } from 'chai';
import { ManualClock } from '../../../kernel/clock.ts';
import { jpeg, SERVICE_TOKEN, startAssetsKernel, type AssetsKernel } from './assets-kernel.ts';
import { sitesFixturePlugin } from './fixtures/sites-plugin.ts';

const SECRET = 'upload-ticket-secret-0123456789-abcdef';
const uploads = (over: Record<string, unknown> = {}) => ({
  enabled: true,
  allowedTypes: ['image/jpeg', 'image/png', 'application/pdf'],
  maxFileBytes: 100_000,
  maxFilesPerSubmit: 3,
  dailyBytes: 1_000_000,
  folder: 'forms/site-a',
  visibility: 'private',
  ...over,
});

describe('assets: public form uploads and submits', function () {
  this.timeout(60_000);
  let k: AssetsKernel;
  let classId: string;
  let photo: Buffer;
  const clock = new ManualClock();
  let ip = 0;
  /** Each test its own client address, so the submit limit is counted per test. */
  const nextIp = () => `10.0.0.${++ip}`;

  before(async () => {
    k = await startAssetsKernelWithClock();
    await k.t.db('fixture_sites').insert([
      { id: 'site-a', name: 'A', root_path: '/a', host: 'a.example', uploads: JSON.stringify(uploads()) },
      {
        id: 'site-off',
        name: 'Off',
        root_path: '/off',
        host: 'off.example',
        uploads: JSON.stringify(uploads({ enabled: false })),
      },
    ]);
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
  after(async () => k.close());

  async function startAssetsKernelWithClock() {
    return startAssetsKernel(
      { UPLOAD_TOKEN_SECRET: SECRET, TRUST_PROXY: '1' },
      [sitesFixturePlugin],
      ['data', 'assets', 'forms'],
      clock,
    );
  }

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
    expect(maxBytes).to.equal(100_000);
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
    expect(await k.services().storage.list('s/')).to.deep.equal([]);
    expect(
      (await submit({ attributes: { email: 'b@example.test', attachment: { uploadId } } }, nextIp())).statusCode,
      'attached once',
    ).to.equal(404);
  });

  it('intent: 503 without UPLOAD_TOKEN_SECRET (for a request that is otherwise fine), 404 for an unknown website, 403 when uploads are off, 413 over maxBytes', async () => {
    const bare = await startAssetsKernel({}, [sitesFixturePlugin], ['data', 'assets', 'forms']);
    try {
      await bare.t
        .db('fixture_sites')
        .insert({ id: 'site-a', name: 'A', root_path: '/a', host: 'a.example', uploads: JSON.stringify(uploads()) });
      const res = await bare.t.inject({
        method: 'POST',
        url: '/public/uploads/intent',
        payload: { fieldId: 'f', filename: 'x.jpg', size: 10 },
        headers: { origin: 'https://a.example' },
      });
      expect(res.statusCode).to.equal(503);
      const unknown = await bare.t.inject({
        method: 'POST',
        url: '/public/uploads/intent',
        payload: { fieldId: 'f', filename: 'x.jpg', size: 10 },
        headers: { origin: 'https://nobody.example' },
      });
      expect(unknown.statusCode).to.equal(404);
      expect(
        (await bare.t.inject({ method: 'PUT', url: '/public/upload-data/x.y', payload: Buffer.from('x') })).statusCode,
        'no ticket is valid',
      ).to.equal(404);
    } finally {
      await bare.close();
    }
    expect((await intent({ fieldId: 'f', filename: 'x.jpg', size: 10 }, 'https://nobody.example')).statusCode).to.equal(
      404,
    );
    expect((await intent({ fieldId: 'f', filename: 'x.jpg', size: 10 }, 'https://off.example')).statusCode).to.equal(
      403,
    );
    const big = await intent({ fieldId: 'f', filename: 'x.jpg', size: 100_001 });
    expect(big.statusCode).to.equal(413);
    expect((await intent({ fieldId: 'f', filename: '../x.jpg', size: 10 })).statusCode).to.equal(400);
    const byReferer = await k.t.inject({
      method: 'POST',
      url: '/public/uploads/intent',
      payload: { fieldId: 'f', filename: 'x.jpg', size: 10 },
      headers: { referer: 'https://cms.example/a/contact' },
    });
    expect(byReferer.statusCode, byReferer.body).to.equal(201);
  });

  it('PUT: forged, expired and over-size tickets are refused; types come from content and markup is never staged', async () => {
    const forged = await put('/public/upload-data/eyJ4IjoxfQ.c2lnbmF0dXJl', photo);
    expect(forged.statusCode).to.equal(404);
    const i = (await intent({ fieldId: 'attachment', filename: 'a.jpg', size: 10 })).json();
    const tampered = i.uploadUrl.replace(/\.[^.]+$/, '.AAAA');
    expect((await put(tampered, photo)).statusCode).to.equal(404);
    const over = await put(i.uploadUrl, Buffer.alloc(100_001, 0xff));
    expect(over.statusCode).to.equal(413);
    const svg = (await intent({ fieldId: 'attachment', filename: 'a.jpg', size: 10 })).json();
    const refused = await put(
      svg.uploadUrl,
      Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'),
    );
    expect(refused.statusCode).to.equal(400);
    expect(refused.json().code).to.equal('FILE_TYPE_REFUSED');
    const gif = (await intent({ fieldId: 'attachment', filename: 'a.jpg', size: 10 })).json();
    expect(
      (await put(gif.uploadUrl, Buffer.from('GIF89a\u0001\u0000\u0001\u0000'))).statusCode,
      'not in the allowed types',
    ).to.equal(400);
    const late = (await intent({ fieldId: 'attachment', filename: 'a.jpg', size: 10 })).json();
    clock.advance(901_000);
    expect((await put(late.uploadUrl, photo)).statusCode).to.equal(404);
    expect(await k.services().storage.list('s/')).to.deep.equal([]);
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
    await new Promise((r) => setTimeout(r, 50));
    expect((await k.storedKeys()).filter((key) => key.startsWith('a/'))).to.deep.equal(keysBefore);
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

  it('the service route attaches with the bearer DAM_SERVICE_TOKEN (or a session with assets:upload); the job removes staged bytes after the staging time', async () => {
    const i = (await intent({ fieldId: 'attachment', filename: 'svc.jpg', size: photo.length })).json();
    await put(i.uploadUrl, photo);
    const body = { uploadId: i.uploadId, folder: 'forms/site-a', visibility: 'private' };
    expect((await k.call('POST', '/api/v1/dam/form-uploads/attach', null, body)).statusCode).to.equal(401);
    expect((await k.call('POST', '/api/v1/dam/form-uploads/attach', k.reader, body)).statusCode).to.equal(403);
    expect(
      (
        await k.call('POST', '/api/v1/dam/form-uploads/attach', null, body, {
          authorization: 'Bearer wrong-token-0123456789',
        })
      ).statusCode,
    ).to.equal(401);
    const attached = await k.call('POST', '/api/v1/dam/form-uploads/attach', null, body, {
      authorization: `Bearer ${SERVICE_TOKEN}`,
    });
    expect(attached.statusCode, attached.body).to.equal(201);
    expect(attached.json()).to.include({ folder: 'forms/site-a', visibility: 'private' });

    const stale = (await intent({ fieldId: 'attachment', filename: 'stale.jpg', size: photo.length })).json();
    await put(stale.uploadUrl, photo);
    expect(await k.services().storage.list('s/')).to.include(`s/${stale.uploadId}`);
    clock.advance(7200_000 + 1000);
    await k.t.kernel.runJob('assets', 'form-uploads.purge');
    expect(await k.services().storage.list('s/')).to.deep.equal([]);
    expect(await k.t.db('asset_form_uploads').where({ id: stale.uploadId }).first()).to.equal(undefined);
  });
});
