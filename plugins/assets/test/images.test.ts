import { expect } from 'chai';
import { Readable } from 'node:stream';
import sharp from 'sharp';
import { request } from 'undici';
import { eventually } from '../../../test/helpers/kernel.ts';
import { jpeg, png } from '../../../test/helpers/images.ts';
import { multipartBody, SERVICE_TOKEN, startAssetsKernel, type AssetsKernel } from './assets-kernel.ts';

describe('assets: images (sharp)', function () {
  this.timeout(60_000);
  let k: AssetsKernel;
  let photo: Buffer;
  const bearer = { authorization: `Bearer ${SERVICE_TOKEN}` };
  before(async () => {
    k = await startAssetsKernel({ ASSET_MAX_INPUT_PIXELS: String(3_000_000) });
    photo = await jpeg(1200, 900, {
      exif: {
        IFD0: { Make: 'Canon', Model: 'EOS R5' },
        IFD2: { ExposureTime: '1/250', FNumber: '28/10', LensModel: 'RF 24-70' },
        IFD3: {
          GPSLatitudeRef: 'N',
          GPSLatitude: '48/1 51/1 2964/100',
          GPSLongitudeRef: 'W',
          GPSLongitude: '2/1 17/1 4000/100',
        },
      },
    });
  });
  after(async () => k.close());

  it('process and metadata need assets:process or the service token (401 without either, 403 without the key)', async () => {
    const raw = { 'content-type': 'image/jpeg' };
    expect((await k.call('POST', '/api/v1/process?width=100', null, photo, raw)).statusCode).to.equal(401);
    expect(
      (
        await k.call('POST', '/api/v1/process?width=100', null, photo, {
          ...raw,
          authorization: 'Bearer wrong-token-0123456789',
        })
      ).statusCode,
    ).to.equal(401);
    expect((await k.call('POST', '/api/v1/metadata', null, photo, raw)).statusCode).to.equal(401);
    // A signed-in user whose role has no image key (a reader, or no permission at all) is refused.
    const nobody = await k.t.createUser({ permissions: [] });
    for (const user of [k.reader, nobody]) {
      for (const url of ['/api/v1/process?width=100', '/api/v1/metadata']) {
        const refused = await k.call('POST', url, user, photo, raw);
        expect(refused.statusCode, url).to.equal(403);
        expect(refused.json().code, url).to.equal('PERMISSION_REQUIRED');
      }
    }
    const processor = await k.t.createUser({ permissions: ['assets:process'] });
    for (const user of [processor, k.editor]) {
      expect((await k.call('POST', '/api/v1/process?width=100', user, photo, raw)).statusCode).to.equal(200);
      expect((await k.call('POST', '/api/v1/metadata', user, photo, raw)).statusCode).to.equal(200);
    }
    // Declared by the plugin: listed with the other keys and granted to editors, not to readers.
    const listed = k.t.kernel.resolve('permissions').list();
    expect(listed.find((p) => p.key === 'assets:process')).to.include({ owner: 'assets' });
    expect(listed.find((p) => p.key === 'assets:process')?.grantedBy).to.include('objects:write');
  });

  it('process resizes and converts a raw, multipart or base64 image', async () => {
    const raw = await k.call('POST', '/api/v1/process?width=800&format=webp&quality=80', null, photo, {
      ...bearer,
      'content-type': 'image/jpeg',
    });
    expect(raw.statusCode, raw.body).to.equal(200);
    expect(raw.headers['content-type']).to.equal('image/webp');
    const meta = await sharp(raw.rawPayload).metadata();
    expect([meta.format, meta.width, meta.height]).to.deep.equal(['webp', 800, 600]);
    const form = multipartBody({ name: 'p.jpg', data: photo });
    const multi = await k.t.inject({
      method: 'POST',
      url: '/api/v1/process?width=300&height=300&fit=cover&format=png',
      payload: form.payload,
      headers: { ...form.headers, ...bearer },
    });
    expect(multi.statusCode, multi.body).to.equal(200);
    expect(await sharp(multi.rawPayload).metadata()).to.include({ format: 'png', width: 300, height: 300 });
    const b64 = await k.call(
      'POST',
      '/api/v1/process?width=120',
      null,
      { image: `data:image/jpeg;base64,${photo.toString('base64')}` },
      bearer,
    );
    expect(b64.statusCode, b64.body).to.equal(200);
    expect(b64.headers['content-type']).to.equal('image/jpeg');
  });

  it('mode=variants returns several sizes in one call', async () => {
    const res = await k.call('POST', '/api/v1/process?mode=variants&widths=100,200,400&format=webp', null, photo, {
      ...bearer,
      'content-type': 'image/jpeg',
    });
    expect(res.statusCode, res.body).to.equal(200);
    const body = res.json();
    expect(body.source).to.deep.equal({ width: 1200, height: 900, format: 'jpeg' });
    expect(body.variants.map((v: { width: number }) => v.width)).to.deep.equal([100, 200, 400]);
    expect((await sharp(Buffer.from(body.variants[2].data, 'base64')).metadata()).width).to.equal(400);
  });

  it('refuses images over the pixel limit with 413 and non-images with 400', async () => {
    const big = await png(2000, 2000);
    const res = await k.call('POST', '/api/v1/process?width=10', null, big, { ...bearer, 'content-type': 'image/png' });
    expect(res.statusCode).to.equal(413);
    expect(res.json().code).to.equal('IMAGE_TOO_LARGE');
    const junk = await k.call('POST', '/api/v1/process?width=10', null, Buffer.from('not an image at all'), {
      ...bearer,
      'content-type': 'image/jpeg',
    });
    expect(junk.statusCode).to.equal(400);
    const empty = await k.call('POST', '/api/v1/process', null, { image: '!!!' }, bearer);
    expect(empty.statusCode).to.equal(400);
  });

  it('raw bodies share reused buffers: back to back and at once, each request reads only its own image', async () => {
    // A large image first, so later smaller ones land in a buffer holding its leftover bytes.
    const images = [
      await jpeg(1100, 800),
      await png(120, 80),
      await jpeg(300, 200),
      await png(640, 10),
      await jpeg(50, 50),
    ];
    const expected = [
      [1100, 800],
      [120, 80],
      [300, 200],
      [640, 10],
      [50, 50],
    ];
    const meta = (data: Buffer, i: number) =>
      k.call('POST', '/api/v1/metadata', null, data, { ...bearer, 'content-type': i % 2 ? 'image/png' : 'image/jpeg' });
    for (let i = 0; i < images.length; i++)
      expect((await meta(images[i], i)).json(), `request ${i}`).to.include({
        width: expected[i][0],
        height: expected[i][1],
      });
    const together = await Promise.all(
      images.map((data, i) =>
        k.call('POST', '/api/v1/process?format=png', null, data, {
          ...bearer,
          'content-type': i % 2 ? 'image/png' : 'image/jpeg',
        }),
      ),
    );
    for (let i = 0; i < images.length; i++) {
      expect(together[i].statusCode, together[i].body).to.equal(200);
      expect(await sharp(together[i].rawPayload).metadata(), `request ${i}`).to.include({
        width: expected[i][0],
        height: expected[i][1],
      });
    }
  });

  it('a reused body buffer goes back only when the image work over it has finished', async () => {
    const bodies = k.services().imageBodies;
    expect(bodies, 'the libvips cache is off by default, so raw bodies are pooled').to.not.equal(null);
    const big = await jpeg(1600, 1200);
    const before = bodies!.kept;
    const images = k.services().images;
    // Hold the image work until the check below has run.
    let letGo!: () => void;
    const gate = new Promise<void>((resolve) => (letGo = resolve));
    let reached!: () => void;
    const resizing = new Promise<void>((resolve) => (reached = resolve));
    const original = images.resize.bind(images);
    images.resize = async (...args: Parameters<typeof images.resize>) => {
      reached();
      await gate;
      return original(...args);
    };
    try {
      const pending = k.call('POST', '/api/v1/process?width=100', null, big, {
        ...bearer,
        'content-type': 'image/jpeg',
      });
      await resizing;
      expect(bodies!.kept, 'in use while sharp has not finished').to.equal(Math.max(0, before - 1));
      letGo();
      expect((await pending).statusCode).to.equal(200);
      expect(bodies!.kept).to.equal(Math.max(1, before));
    } finally {
      images.resize = original;
      letGo();
    }
  });

  it('metadata reads camera, EXIF and GPS', async () => {
    const res = await k.call('POST', '/api/v1/metadata', null, photo, { ...bearer, 'content-type': 'image/jpeg' });
    expect(res.statusCode, res.body).to.equal(200);
    const m = res.json();
    expect(m).to.include({ format: 'jpeg', width: 1200, height: 900 });
    expect(m.camera).to.deep.equal({ make: 'Canon', model: 'EOS R5', lens: 'RF 24-70' });
    expect(m.exif).to.include({ exposureTime: 0.004, fNumber: 2.8 });
    expect(m.gps.latitude).to.be.closeTo(48.85823, 1e-4);
    expect(m.gps.longitude).to.be.closeTo(-2.29444, 1e-4);
  });

  it('dam/transform saves a new version or an edited copy', async () => {
    const a = (await k.upload({ name: 't.jpg', data: await jpeg(800, 400) }, { folder: 'tr' })).json();
    k.events.splice(0);
    const rotated = await k.call('POST', '/api/v1/dam/transform', k.editor, {
      id: a.id,
      rotate: 90,
      saveAs: 'version',
    });
    expect(rotated.statusCode, rotated.body).to.equal(200);
    expect(rotated.json()).to.include({
      id: a.id,
      uuid: a.uuid,
      version: 2,
      width: 400,
      height: 800,
      path: 'tr/t.jpg',
    });
    const copy = await k.call('POST', '/api/v1/dam/transform', k.editor, {
      id: a.id,
      crop: { left: 0, top: 0, width: 100, height: 100 },
      format: 'webp',
      saveAs: 'copy',
    });
    expect(copy.statusCode, copy.body).to.equal(201);
    expect(copy.json()).to.include({ path: 'tr/t-edited.webp', mimeType: 'image/webp', width: 100, height: 100 });
    expect(copy.json().metadata).to.deep.equal({ editedFrom: a.id });
    expect(k.events.map((e) => e.kind)).to.deep.equal(['updated', 'created']);
    const outside = await k.call('POST', '/api/v1/dam/transform', k.editor, {
      id: a.id,
      crop: { left: 300, top: 0, width: 200, height: 100 },
      saveAs: 'copy',
      filename: 'x.jpg',
    });
    expect(outside.statusCode).to.equal(400);
    expect(outside.json().field).to.equal('crop');
    const text = (await k.upload({ name: 'n.txt', data: Buffer.from('n') }, { folder: 'tr' })).json();
    expect(
      (await k.call('POST', '/api/v1/dam/transform', k.editor, { id: text.id, rotate: 90, saveAs: 'version' }))
        .statusCode,
    ).to.equal(400);
    expect(
      (await k.call('POST', '/api/v1/dam/transform', k.reader, { id: a.id, rotate: 90, saveAs: 'version' })).statusCode,
    ).to.equal(403);
  });

  it('regenerate-thumbnails rebuilds them and reports unknown ids and non-images', async () => {
    const a = (await k.upload({ name: 'r.jpg', data: await jpeg(500, 500) }, { folder: 'rg' })).json();
    const text = (await k.upload({ name: 'r.txt', data: Buffer.from('r') }, { folder: 'rg' })).json();
    await k.services().storage.deletePrefix(`t/${a.id}/`);
    expect((await k.call('GET', a.thumbnails[0].url, null)).statusCode).to.equal(404);
    const res = await k.call('POST', '/api/v1/dam/regenerate-thumbnails', k.editor, {
      ids: [a.id, text.id, '00000000-0000-4000-8000-000000000000'],
    });
    expect(res.json().results.map((r: { status: string }) => r.status)).to.deep.equal([
      'regenerated',
      'not_an_image',
      'not_found',
    ]);
    expect((await k.call('GET', a.thumbnails[0].url, null)).statusCode).to.equal(200);
  });
});

describe('assets: raw image bodies over a real socket', function () {
  this.timeout(60_000);
  let k: AssetsKernel;
  let base: string;
  before(async () => {
    k = await startAssetsKernel({ ASSET_MAX_FILE_BYTES: String(1024 * 1024) });
    base = await k.t.kernel.listen(0);
  });
  after(async () => k.close());

  const post = (body: Buffer | Readable, headers: Record<string, string> = {}) =>
    request(`${base}/api/v1/process?width=64&format=png`, {
      method: 'POST',
      body,
      headers: { authorization: `Bearer ${SERVICE_TOKEN}`, 'content-type': 'image/jpeg', ...headers },
    });

  it('a chunked body over ASSET_MAX_FILE_BYTES gets its 413 (the connection is cut once another limit of bytes keeps coming), and the next image is served', async () => {
    async function* chunks() {
      for (let i = 0; i < 48; i++) yield Buffer.alloc(64 * 1024, i);
    }
    const over = await post(Readable.from(chunks()));
    expect(over.statusCode).to.equal(413);
    expect((await over.body.json()) as { code: string }).to.include({ code: 'ASSET_TOO_LARGE' });
    const declared = await post(Buffer.alloc(2 * 1024 * 1024, 1));
    expect(declared.statusCode).to.equal(413);
    await declared.body.text();
    const ok = await post(await jpeg(400, 300));
    expect(ok.statusCode).to.equal(200);
    expect(await sharp(Buffer.from(await ok.body.arrayBuffer())).metadata()).to.include({ format: 'png', width: 64 });
  });
});

/** A noise image: encoding it at quality 100 takes seconds, so a one-second timeout always cuts it. */
async function noisePng(width: number, height: number): Promise<Buffer> {
  const raw = Buffer.alloc(width * height * 3);
  for (let i = 0; i < raw.length; i++) raw[i] = (Math.imul(i, 2654435761) >>> 24) & 0xff;
  return sharp(raw, { raw: { width, height, channels: 3 } })
    .png({ compressionLevel: 1 })
    .toBuffer();
}

/** An image of `frames` frames (GIF) or pages (TIFF), each `side` square, each a different grey. */
async function multiFrame(format: 'gif' | 'tiff', frames: number, side: number): Promise<Buffer> {
  const raw = Buffer.alloc(side * side * frames * 3);
  for (let f = 0; f < frames; f++) raw.fill((f * 40) % 256, f * side * side * 3, (f + 1) * side * side * 3);
  return sharp(raw, { raw: { width: side, height: side * frames, channels: 3, pageHeight: side } })
    .toFormat(format)
    .toBuffer();
}

describe('assets: image limits (permission, output cap, frames, timeout, fair slots)', function () {
  this.timeout(60_000);
  let k: AssetsKernel;
  const bearer = { authorization: `Bearer ${SERVICE_TOKEN}` };
  const raw = (type = 'image/png') => ({ ...bearer, 'content-type': type });
  before(async () => {
    k = await startAssetsKernel(
      {
        ASSET_MAX_INPUT_PIXELS: String(4_000_000),
        ASSET_PROCESS_MAX_OUTPUT_PIXELS: String(3_000_000),
        ASSET_MAX_INPUT_PAGES: '4',
        ASSET_IMAGE_TIMEOUT_SECONDS: '1',
        ASSET_IMAGE_JOBS: '2',
        ASSET_IMAGE_QUEUE_PER_CALLER: '2',
      },
      [],
      ['identity', 'assets'],
    );
  });
  after(async () => k.close());

  it('GET /auth/permissions lists assets:process', async () => {
    const res = await k.call('GET', '/auth/permissions', k.admin);
    expect(res.statusCode, res.body).to.equal(200);
    expect(JSON.stringify(res.json())).to.include('assets:process');
  });

  it('caps the pixels one request produces, all variants together, with a 400 naming the cap', async () => {
    const photo = await jpeg(1200, 900); // 1.08 MP; withoutEnlargement keeps 9990 at 1200
    const many = await k.call(
      'POST',
      '/api/v1/process?mode=variants&widths=9990,9990,9990&format=webp',
      null,
      photo,
      raw('image/jpeg'),
    );
    expect(many.statusCode, many.body).to.equal(400);
    expect(many.json()).to.include({ code: 'OUTPUT_TOO_LARGE', field: 'widths' });
    expect(many.json().message).to.include('3000000').and.include('ASSET_PROCESS_MAX_OUTPUT_PIXELS');
    const fits = await k.call('POST', '/api/v1/process?mode=variants&widths=600,1200', null, photo, raw('image/jpeg'));
    expect(fits.statusCode, fits.body).to.equal(200);
    // One output: a full-size conversion of a 3.24 MP image is over the cap, a smaller size is not.
    const big = await png(1800, 1800);
    const whole = await k.call('POST', '/api/v1/process?format=webp', null, big, raw());
    expect(whole.statusCode, whole.body).to.equal(400);
    expect(whole.json()).to.include({ code: 'OUTPUT_TOO_LARGE', field: 'width' });
    const covered = await k.call('POST', '/api/v1/process?height=1800&width=1800&fit=cover', null, big, raw());
    expect(covered.json()).to.include({ code: 'OUTPUT_TOO_LARGE' });
    expect((await k.call('POST', '/api/v1/process?width=1000', null, big, raw())).statusCode).to.equal(200);
  });

  it('refuses images of more frames or pages than ASSET_MAX_INPUT_PAGES wherever they are decoded, and decodes only the first', async () => {
    for (const format of ['gif', 'tiff'] as const) {
      const type = `image/${format}`;
      const bomb = await multiFrame(format, 5, 64);
      for (const url of ['/api/v1/process?width=32', '/api/v1/metadata', '/api/v1/process?mode=variants&widths=16']) {
        const res = await k.call('POST', url, null, bomb, raw(type));
        expect(res.statusCode, `${format} ${url}`).to.equal(413);
        expect(res.json().code, `${format} ${url}`).to.equal('IMAGE_TOO_MANY_PAGES');
      }
      const upload = await k.upload({ name: `bomb.${format}`, data: bomb }, { folder: 'pages' });
      expect(upload.statusCode, upload.body).to.equal(413);
      expect(upload.json().code).to.equal('IMAGE_TOO_MANY_PAGES');
      expect(await k.services().storage.list('a/')).to.not.satisfy((keys: string[]) =>
        keys.some((key) => key.includes('bomb')),
      );
      // Within the limit: one frame comes out, never the frames stacked.
      const ok = await k.call('POST', '/api/v1/process?format=png', null, await multiFrame(format, 4, 64), raw(type));
      expect(ok.statusCode, ok.body).to.equal(200);
      expect(await sharp(ok.rawPayload).metadata()).to.include({ width: 64, height: 64 });
    }
  });

  it('stops an operation at ASSET_IMAGE_TIMEOUT_SECONDS with 413 IMAGE_TIMEOUT, and the slots serve the next', async () => {
    // An encode several times longer than the 1 s timeout on any machine this runs on (about 3.5 s
    // here on a quiet core): a smaller one finished inside the second on a fast, quiet machine.
    const big = await startAssetsKernel(
      {
        ASSET_MAX_INPUT_PIXELS: String(16_000_000),
        ASSET_PROCESS_MAX_OUTPUT_PIXELS: String(16_000_000),
        ASSET_IMAGE_TIMEOUT_SECONDS: '1',
      },
      [],
      ['identity', 'assets'],
    );
    try {
      const slow = await noisePng(3500, 3500);
      const res = await big.call('POST', '/api/v1/process?format=webp&quality=100', null, slow, raw());
      expect(res.statusCode, res.body).to.equal(413);
      expect(res.json().code).to.equal('IMAGE_TIMEOUT');
      expect(res.json().message).to.include('ASSET_IMAGE_TIMEOUT_SECONDS');
      expect(big.services().images.load).to.deep.equal({ running: 0, waiting: 0 });
      const next = await big.call('POST', '/api/v1/process?width=50', null, await png(100, 100), raw());
      expect(next.statusCode).to.equal(200);
    } finally {
      await big.close();
    }
  });

  it("one caller never holds every slot: a staff upload runs while another caller's operations are held", async () => {
    const images = k.services().images;
    const flooder = await k.t.createUser({ permissions: ['assets:process'] });
    const original = images.run.bind(images);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let held = 0;
    images.run = ((work, w) =>
      original(async () => {
        if (w?.caller === `user:${flooder.id}`) {
          held++;
          await gate;
        }
        return work();
      }, w)) as typeof images.run;
    try {
      const input = await png(300, 300);
      const flood = [1, 2, 3].map(() =>
        k.call('POST', '/api/v1/process?width=100', flooder, input, { 'content-type': 'image/png' }),
      );
      // One of the flooder's operations runs (held), the other two wait for the flooder's turn.
      await eventually(() => held === 1 && images.load.waiting === 2, { what: 'the flood in the slots' });
      const fourth = await k.call('POST', '/api/v1/process?width=100', flooder, input, { 'content-type': 'image/png' });
      expect(fourth.statusCode, 'beyond ASSET_IMAGE_QUEUE_PER_CALLER').to.equal(429);
      expect(fourth.json().code).to.equal('IMAGE_QUEUE_FULL');
      expect(fourth.headers['retry-after']).to.equal('1');
      // Staff's 300x300 upload (probe and thumbnails) goes through the free slot meanwhile.
      const staff = await k.upload({ name: 'staff.png', data: input }, { folder: 'fair' });
      expect(staff.statusCode, staff.body).to.equal(201);
      expect(staff.json().thumbnails.length).to.be.greaterThan(0);
      expect(held, 'the flood is still held').to.equal(1);
      release();
      for (const res of await Promise.all(flood)) expect(res.statusCode).to.equal(200);
    } finally {
      images.run = original;
      release();
    }
  });
});
