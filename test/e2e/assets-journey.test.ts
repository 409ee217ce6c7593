import { expect } from 'chai';
import sharp from 'sharp';
import { jpeg, png } from '../helpers/images.ts';
import { mp3, mp4, pdf } from '../helpers/media.ts';
import { eventually } from '../helpers/kernel.ts';
import { startAssetsKernel, type AssetsKernel } from '../../plugins/assets/test/assets-kernel.ts';

const SECRET = 'journey-upload-ticket-secret-0123456789';

/**
 * The asset journey of the README's walk-through, over HTTP with the real plugins (content, data,
 * assets, forms) on one database: the library, presets and delivery, private files, and the public
 * form flow driven by the upload settings the content plugin stores for a website.
 */
describe('e2e: asset journey (content, data, assets, forms together)', function () {
  this.timeout(60_000);
  let k: AssetsKernel;

  before(async () => {
    k = await startAssetsKernel(
      { UPLOAD_TOKEN_SECRET: SECRET, TRUST_PROXY: '1' },
      [],
      ['content', 'data', 'assets', 'forms'],
    );
  });
  after(async () => k?.close());

  it('uploads an image, reads its thumbnail and metadata, and delivers a preset chosen by Accept', async () => {
    const hero = await jpeg(1200, 600, { exif: { IFD0: { Make: 'JourneyCam' } } });
    const up = await k.upload(
      { name: 'hero.jpg', data: hero, type: 'image/jpeg' },
      { folder: 'site/images', visibility: 'public', metadata: '{"alt":"Hero"}' },
      k.admin,
    );
    expect(up.statusCode, up.body).to.equal(201);
    const asset = up.json();
    expect(asset).to.include({
      path: 'site/images/hero.jpg',
      mimeType: 'image/jpeg',
      width: 1200,
      height: 600,
      visibility: 'public',
    });
    expect(asset.metadata).to.include({ alt: 'Hero' });
    expect(asset.thumbnails.map((t: { width: number }) => t.width)).to.deep.equal([200, 800]);

    const read = await k.call('GET', `/api/v1/dam/assets/${asset.id}`, k.admin);
    expect(read.statusCode).to.equal(200);
    expect(read.json()).to.deep.include({ thumbnailUrl: asset.thumbnailUrl, metadata: asset.metadata });
    const thumb = await k.call('GET', asset.thumbnailUrl, null);
    expect(thumb.statusCode).to.equal(200);
    expect(thumb.headers['content-type']).to.equal('image/webp');
    expect((await sharp(thumb.rawPayload).metadata()).width).to.equal(200);
    const camera = await k.call('POST', '/api/v1/metadata', k.admin, hero, { 'content-type': 'image/jpeg' });
    expect(camera.statusCode, camera.body).to.equal(200);
    expect(JSON.stringify(camera.json())).to.include('JourneyCam');

    const preset = await k.call('POST', '/api/v1/dam/presets', k.admin, {
      name: 'card',
      width: 640,
      format: 'auto',
      quality: 75,
    });
    expect(preset.statusCode, preset.body).to.equal(200);
    const avif = await k.call('GET', '/dam-asset/site/images/hero.jpg?preset=card', null, undefined, {
      accept: 'image/avif,image/webp',
    });
    expect(avif.statusCode).to.equal(200);
    expect(avif.headers['content-type']).to.equal('image/avif');
    expect(String(avif.headers.vary)).to.match(/accept/i);
    const webp = await k.call('GET', '/dam-asset/site/images/hero.jpg?preset=card', null, undefined, {
      accept: 'image/webp',
    });
    expect(webp.headers['content-type']).to.equal('image/webp');
    const plain = await k.call('GET', '/dam-asset/site/images/hero.jpg?preset=card', null, undefined, {
      accept: 'image/*',
    });
    expect(plain.headers['content-type']).to.equal('image/jpeg');
    expect(await sharp(plain.rawPayload).metadata()).to.include({ width: 640, height: 320 });
  });

  it('keeps a private file from anonymous callers and serves it with a session', async () => {
    const up = await k.upload(
      { name: 'contract.png', data: await png(40, 40), type: 'image/png' },
      { folder: 'internal', visibility: 'private' },
      k.admin,
    );
    expect(up.statusCode, up.body).to.equal(201);
    expect((await k.call('GET', '/dam-asset/internal/contract.png', null)).statusCode).to.equal(404);
    expect((await k.call('GET', `/public/assets/${up.json().uuid}`, null)).statusCode).to.equal(404);
    const signedIn = await k.call('GET', '/dam-asset/internal/contract.png', k.reader);
    expect(signedIn.statusCode).to.equal(200);
    expect(signedIn.headers['content-type']).to.equal('image/png');
  });

  describe('public form flow with the website upload settings of the content plugin', () => {
    let websiteId: string;
    let classId: string;
    let picture: Buffer;
    let ip = 0;
    const client = () => ({ origin: 'https://shop.example', 'x-forwarded-for': `198.51.100.${++ip}` });
    /** A published page of the shop with a form for the class: only then does the class take submits. */
    const publishForm = async (formClassId: string) => {
      const page = await k.call('POST', '/cms-one/pages', k.admin, {
        websiteId,
        locale: 'en',
        path: `/form-${formClassId}`,
        title: 'Form',
        published: true,
        content: { type: 'form', props: { classId: formClassId } },
      });
      expect(page.statusCode, page.body).to.equal(201);
    };

    before(async () => {
      const site = await k.call('POST', '/cms-one/websites', k.admin, {
        name: 'Shop',
        rootPath: '/shop',
        domains: ['shop.example'],
      });
      expect(site.statusCode, site.body).to.equal(201);
      websiteId = site.json().id;
      const settings = await k.call('PUT', `/cms-one/websites/${websiteId}/upload-settings`, k.admin, {
        enabled: true,
        allowedTypes: ['image/png'],
        maxFileBytes: 200_000,
      });
      expect(settings.statusCode, settings.body).to.equal(200);
      const cls = await k.call('POST', '/data-classes', k.admin, {
        name: 'JourneyContact',
        fields: [
          { name: 'email', type: 'text', required: true },
          { name: 'photo', type: 'asset' },
        ],
      });
      expect(cls.statusCode, cls.body).to.equal(201);
      classId = cls.json().id;
      await publishForm(classId);
      picture = await png(64, 48);
    });

    /** intent → PUT of the bytes to the ticket URL; the staged upload's id. */
    async function stage(data: Buffer, filename = 'me.png', fieldId = 'photo'): Promise<string> {
      const intent = await k.t.inject({
        method: 'POST',
        url: '/public/uploads/intent',
        payload: { fieldId, filename, size: data.length },
        headers: client(),
      });
      expect(intent.statusCode, intent.body).to.equal(201);
      expect(intent.json().maxBytes).to.equal(data.length);
      const put = await k.t.inject({
        method: 'PUT',
        url: intent.json().uploadUrl,
        payload: data,
        headers: { 'content-type': 'image/png' },
      });
      expect(put.statusCode, put.body).to.equal(201);
      expect(put.json()).to.include({ mimeType: 'image/png', size: data.length });
      return intent.json().uploadId;
    }
    const submit = (body: unknown) =>
      k.t.inject({
        method: 'POST',
        url: `/public/forms/${classId}/submit`,
        payload: body as object,
        headers: client(),
      });
    const assetFiles = async () => (await k.services().storage.list('a/')).length;

    it('intent → PUT → submit: a draft object with the private file in the website folder', async () => {
      const uploadId = await stage(picture);
      const res = await submit({ attributes: { email: 'visitor@example.test', photo: { uploadId } } });
      expect(res.statusCode, res.body).to.equal(201);
      const object = await k.call('GET', `/data-objects/${res.json().id}`, k.admin);
      expect(object.json().published).to.equal(false);
      const asset = await k.call('GET', `/api/v1/dam/assets/${object.json().attributes.photo}`, k.admin);
      expect(asset.json()).to.include({
        folder: `form-uploads/${websiteId}`,
        visibility: 'private',
        mimeType: 'image/png',
      });
      expect((await k.call('GET', asset.json().url, null)).statusCode, 'private to anonymous callers').to.equal(404);
      expect((await k.call('GET', asset.json().url, k.admin)).statusCode).to.equal(200);
    });

    it('refuses a type the website does not allow at the PUT (JPEG where only PNG is allowed)', async () => {
      const photo = await jpeg(20, 20);
      const intent = await k.t.inject({
        method: 'POST',
        url: '/public/uploads/intent',
        payload: { fieldId: 'photo', filename: 'x.png', size: photo.length },
        headers: client(),
      });
      const put = await k.t.inject({ method: 'PUT', url: intent.json().uploadUrl, payload: photo });
      expect(put.statusCode).to.equal(400);
      expect(put.json()).to.include({ code: 'FILE_TYPE_REFUSED', field: 'file' });
    });

    it('a refused object leaves no object, no asset and no stored file; the upload can then be used', async () => {
      const uploadId = await stage(picture, 'again.png');
      const [objectsBefore, filesBefore] = [(await k.t.db('data_objects').count({ n: '*' }))[0].n, await assetFiles()];
      const refused = await submit({ attributes: { photo: { uploadId } } });
      expect(refused.statusCode, refused.body).to.equal(400);
      expect(refused.json().field).to.match(/email/);
      expect((await k.t.db('data_objects').count({ n: '*' }))[0].n).to.equal(objectsBefore);
      expect(
        await k.t
          .db('assets')
          .where('filename', 'like', `${uploadId.slice(0, 8)}-%`)
          .first(),
      ).to.equal(undefined);
      // The stored copy is removed when the submit's transaction has rolled back, just after the answer.
      await eventually(async () => expect(await assetFiles(), 'no orphan file').to.equal(filesBefore));
      const accepted = await submit({ attributes: { email: 'second@example.test', photo: { uploadId } } });
      expect(accepted.statusCode, accepted.body).to.equal(201);
    });

    it('the website maxFilesPerSubmit (content plugin) caps the files of one submit: 400, nothing attached', async () => {
      const cls = await k.call('POST', '/data-classes', k.admin, {
        name: 'JourneyTwoFiles',
        fields: [
          { name: 'email', type: 'text', required: true },
          { name: 'photo', type: 'asset' },
          { name: 'back', type: 'asset' },
        ],
      });
      await publishForm(cls.json().id);
      const [front, back] = [await stage(picture, 'front.png'), await stage(picture, 'back.png', 'back')];
      const send = () =>
        k.t.inject({
          method: 'POST',
          url: `/public/forms/${cls.json().id}/submit`,
          payload: { attributes: { email: 'two@example.test', photo: { uploadId: front }, back: { uploadId: back } } },
          headers: client(),
        });
      await k.call('PUT', `/cms-one/websites/${websiteId}/upload-settings`, k.admin, { maxFilesPerSubmit: 1 });
      const refused = await send();
      expect(refused.statusCode, refused.body).to.equal(400);
      expect(refused.json()).to.include({ code: 'TOO_MANY_FILES', field: 'attributes' });
      expect(
        await k.t
          .db('assets')
          .whereIn('filename', [`${front.slice(0, 8)}-front.png`, `${back.slice(0, 8)}-back.png`])
          .first(),
      ).to.equal(undefined);
      await k.call('PUT', `/cms-one/websites/${websiteId}/upload-settings`, k.admin, { maxFilesPerSubmit: 2 });
      const accepted = await send();
      expect(accepted.statusCode, accepted.body).to.equal(201);
      expect(accepted.json().attachments).to.have.length(2);
    });

    it('every type the content plugin lets a website allow is recognised by the upload check', async () => {
      const all = [
        'image/png',
        'image/jpeg',
        'image/webp',
        'image/gif',
        'image/avif',
        'application/pdf',
        'video/mp4',
        'audio/mpeg',
      ];
      const allowed = await k.call('PUT', `/cms-one/websites/${websiteId}/upload-settings`, k.admin, {
        allowedTypes: all,
      });
      expect(allowed.statusCode, allowed.body).to.equal(200);
      const image = sharp({ create: { width: 16, height: 16, channels: 3, background: '#336699' } });
      const samples: Record<string, Buffer> = {
        'image/png': await image.clone().png().toBuffer(),
        'image/jpeg': await image.clone().jpeg().toBuffer(),
        'image/webp': await image.clone().webp().toBuffer(),
        'image/gif': await image.clone().gif().toBuffer(),
        'image/avif': await image.clone().avif().toBuffer(),
        'application/pdf': pdf(),
        'video/mp4': mp4(),
        'audio/mpeg': mp3(),
      };
      for (const type of all) {
        const data = samples[type];
        const intent = await k.t.inject({
          method: 'POST',
          url: '/public/uploads/intent',
          payload: { fieldId: 'photo', filename: 'sample.bin', size: data.length },
          headers: client(),
        });
        const put = await k.t.inject({ method: 'PUT', url: intent.json().uploadUrl, payload: data });
        expect(put.statusCode, `${type}: ${put.body}`).to.equal(201);
        expect(put.json().mimeType).to.equal(type);
      }
    });

    it('uploads switched off through the content plugin stop the intent (403)', async () => {
      await k.call('PUT', `/cms-one/websites/${websiteId}/upload-settings`, k.admin, { enabled: false });
      const intent = await k.t.inject({
        method: 'POST',
        url: '/public/uploads/intent',
        payload: { fieldId: 'photo', filename: 'me.png', size: 10 },
        headers: client(),
      });
      expect(intent.statusCode).to.equal(403);
      expect(intent.json().code).to.equal('UPLOADS_DISABLED');
    });
  });
});
