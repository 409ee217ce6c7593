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
    const i = (await intent({ fieldId: 'attachment', filename: 'a.jpg', size: 100_000 })).json();
    const tampered = i.uploadUrl.replace(/\.[^.]+$/, '.AAAA');
    expect((await put(tampered, photo)).statusCode).to.equal(404);
    const over = await put(i.uploadUrl, Buffer.alloc(100_001, 0xff));
    expect(over.statusCode).to.equal(413);
    const markup = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');
    const svg = (await intent({ fieldId: 'attachment', filename: 'a.jpg', size: markup.length })).json();
    const refused = await put(svg.uploadUrl, markup);
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

  it('a ticket accepts at most the size it was issued for: more is 413, nothing is staged, and the ticket is spent', async () => {
    const i = await intent({ fieldId: 'attachment', filename: 'small.jpg', size: 1 });
    expect(i.statusCode, i.body).to.equal(201);
    expect(i.json().maxBytes, 'the reply says what the ticket accepts').to.equal(1);
    const over = await put(i.json().uploadUrl, photo);
    expect(over.statusCode, over.body).to.equal(413);
    expect(over.json()).to.include({ code: 'ASSET_TOO_LARGE', field: 'file' });
    expect(over.json().message).to.match(/declared/);
    expect(await k.services().storage.list('s/')).to.deep.equal([]);
    expect((await put(i.json().uploadUrl, Buffer.from([0xff]))).statusCode, 'single use').to.equal(404);
    expect(await k.t.db('asset_form_uploads').where({ id: i.json().uploadId }).first()).to.equal(undefined);

    const exact = (await intent({ fieldId: 'attachment', filename: 'exact.jpg', size: photo.length })).json();
    const ok = await put(exact.uploadUrl, photo);
    expect(ok.statusCode, ok.body).to.equal(201);
    expect(ok.json().size).to.equal(photo.length);
  });

  it('the daily quota counts stored bytes and live tickets, not declared sizes; a day later it starts again', async () => {
    const day = 86_400_000;
    // A fresh UTC day, so earlier tests' bytes are not counted.
    clock.advance((Math.floor(clock.now().getTime() / day) + 1) * day + 3_600_000 - clock.now().getTime());
    const budget = photo.length * 3;
    await k.t.db('fixture_sites').insert({
      id: 'site-q',
      name: 'Quota',
      root_path: '/q',
      host: 'q.example',
      uploads: JSON.stringify(uploadSettings({ dailyBytes: budget })),
    });
    const firstDay = clock.now().toISOString().slice(0, 10);
    const quotaIntent = (size: number) =>
      intent({ fieldId: 'attachment', filename: 'q.jpg', size }, 'https://q.example');

    // The attack: declare 1 byte, send the whole file. The PUT refuses it, so nothing counts.
    for (let n = 0; n < 5; n++) {
      const i = (await quotaIntent(1)).json();
      expect((await put(i.uploadUrl, photo)).statusCode).to.equal(413);
    }
    const used = async () =>
      Number((await k.t.db('asset_form_upload_usage').where({ website_id: 'site-q' }).first())?.bytes ?? 0);
    expect(await used()).to.equal(0);

    // Two stored files and one live ticket take the whole budget; a fourth intent is refused.
    for (let n = 0; n < 2; n++) {
      const i = (await quotaIntent(photo.length)).json();
      expect((await put(i.uploadUrl, photo)).statusCode).to.equal(201);
    }
    expect(await used()).to.equal(photo.length * 2);
    const held = await quotaIntent(photo.length);
    expect(held.statusCode).to.equal(201);
    const refused = await quotaIntent(1);
    expect(refused.statusCode).to.equal(429);
    expect(refused.json().code).to.equal('UPLOAD_QUOTA_EXCEEDED');
    expect(Number(refused.headers['retry-after'])).to.be.within(1, 86_400);

    // A ticket that expires unused gives its bytes back.
    clock.advance(901_000);
    expect((await quotaIntent(photo.length)).statusCode).to.equal(201);
    expect((await quotaIntent(1)).statusCode).to.equal(429);

    // Stored bytes stay counted after the purge job removed the staged files and their rows.
    clock.advance(7200_000 + 1000);
    await k.t.kernel.runJob('assets', 'form-uploads.purge');
    expect(await k.t.db('asset_form_uploads').where({ website_id: 'site-q' })).to.deep.equal([]);
    const afterPurge = await quotaIntent(photo.length);
    expect(afterPurge.statusCode, 'two files stored today still count').to.equal(201);
    expect((await quotaIntent(1)).statusCode).to.equal(429);

    clock.advance(day);
    expect((await quotaIntent(photo.length)).statusCode, 'a new day').to.equal(201);

    // Intents sent at the same moment cannot share the last bytes: the budget holds exactly three.
    clock.advance(day);
    const together = await Promise.all(Array.from({ length: 8 }, () => quotaIntent(photo.length)));
    expect(together.map((r) => r.statusCode).sort()).to.deep.equal([201, 201, 201, 429, 429, 429, 429, 429]);

    // The job forgets a day's count once the day after it is over too.
    const countOf = async (d: string) =>
      k.t.db('asset_form_upload_usage').where({ website_id: 'site-q' }).whereRaw('day = ?::date', [d]).first();
    expect(await countOf(firstDay)).not.to.equal(undefined);
    await k.t.kernel.runJob('assets', 'form-uploads.purge');
    expect(await countOf(firstDay)).to.equal(undefined);
  });

  it('intents are limited per client address (UPLOAD_INTENT_RATE_LIMIT_PER_WINDOW): 429 with Retry-After', async () => {
    const from = (address: string) =>
      k.t.inject({
        method: 'POST',
        url: '/public/uploads/intent',
        payload: { fieldId: 'f', filename: 'x.jpg', size: 1 },
        headers: { origin: 'https://a.example', 'x-forwarded-for': address },
      });
    for (let n = 0; n < 30; n++) expect((await from('203.0.113.7')).statusCode).to.equal(201);
    const limited = await from('203.0.113.7');
    expect(limited.statusCode).to.equal(429);
    expect(limited.json().code).to.equal('UPLOAD_RATE_LIMITED');
    expect(Number(limited.headers['retry-after'])).to.be.within(1, 900);
    expect((await from('203.0.113.8')).statusCode, 'another address').to.equal(201);
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
