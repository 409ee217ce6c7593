import { expect } from 'chai';
import { ManualClock } from '../../../kernel/clock.ts';
import { jpeg } from '../../../test/helpers/images.ts';
import { SERVICE_TOKEN, startAssetsKernel, type AssetsKernel } from './assets-kernel.ts';
import { sitesFixturePlugin, uploadSettings } from '../../../test/fixtures/sites-plugin.ts';

const SECRET = 'upload-ticket-secret-0123456789-abcdef';

describe('assets: public form uploads', function () {
  this.timeout(60_000);
  let k: AssetsKernel;
  let photo: Buffer;
  const clock = new ManualClock();

  before(async () => {
    k = await startAssetsKernelWithClock();
    await k.t.db('fixture_sites').insert([
      { id: 'site-a', name: 'A', root_path: '/a', host: 'a.example', uploads: JSON.stringify(uploadSettings()) },
      {
        id: 'site-off',
        name: 'Off',
        root_path: '/off',
        host: 'off.example',
        uploads: JSON.stringify(uploadSettings({ enabled: false })),
      },
    ]);
    photo = await jpeg(200, 100);
  });
  after(async () => k.close());

  async function startAssetsKernelWithClock() {
    return startAssetsKernel(
      { UPLOAD_TOKEN_SECRET: SECRET, TRUST_PROXY: '1' },
      [sitesFixturePlugin],
      ['assets'],
      clock,
    );
  }

  const intent = (body: Record<string, unknown>, origin = 'https://a.example') =>
    k.t.inject({ method: 'POST', url: '/public/uploads/intent', payload: body, headers: { origin } });
  const put = (url: string, data: Buffer) =>
    k.t.inject({ method: 'PUT', url, payload: data, headers: { 'content-type': 'application/octet-stream' } });

  it('intent: 503 without UPLOAD_TOKEN_SECRET (for a request that is otherwise fine), 404 for an unknown website, 403 when uploads are off, 413 over maxBytes', async () => {
    const bare = await startAssetsKernel({}, [sitesFixturePlugin], ['assets']);
    try {
      await bare.t.db('fixture_sites').insert({
        id: 'site-a',
        name: 'A',
        root_path: '/a',
        host: 'a.example',
        uploads: JSON.stringify(uploadSettings()),
      });
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
