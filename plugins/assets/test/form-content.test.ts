import { expect } from 'chai';
import sharp from 'sharp';
import { ManualClock } from '../../../kernel/clock.ts';
import { box, mp3, mp4, pdf } from '../../../test/helpers/media.ts';
import { sitesFixturePlugin, uploadSettings } from '../../../test/fixtures/sites-plugin.ts';
import { startAssetsKernel, type AssetsKernel } from './assets-kernel.ts';

const SECRET = 'upload-ticket-secret-0123456789-abcdef';
const ALL_TYPES = [
  'image/png',
  'image/jpeg',
  'image/webp',
  'image/gif',
  'image/avif',
  'application/pdf',
  'video/mp4',
  'audio/mpeg',
];
const SCRIPT = '<html><body><script>alert(document.cookie)</script></body></html>';
const text = (s: string) => Buffer.from(s, 'latin1');

describe('assets: public form uploads are checked by their whole content, not their magic bytes', function () {
  this.timeout(60_000);
  let k: AssetsKernel;
  let ip = 0;
  const valid: Record<string, Buffer> = {};

  before(async () => {
    k = await startAssetsKernel(
      { UPLOAD_TOKEN_SECRET: SECRET, TRUST_PROXY: '1' },
      [sitesFixturePlugin],
      ['assets'],
      new ManualClock(),
    );
    await k.t.db('fixture_sites').insert({
      id: 'site-all',
      name: 'All',
      root_path: '/all',
      host: 'all.example',
      uploads: JSON.stringify(uploadSettings({ allowedTypes: ALL_TYPES, dailyBytes: 100_000_000 })),
    });
    const image = sharp({ create: { width: 32, height: 24, channels: 3, background: '#336699' } });
    Object.assign(valid, {
      'image/png': await image.clone().png().toBuffer(),
      'image/jpeg': await image.clone().jpeg().toBuffer(),
      'image/webp': await image.clone().webp().toBuffer(),
      'image/gif': await image.clone().gif().toBuffer(),
      'image/avif': await image.clone().avif().toBuffer(),
      'application/pdf': pdf(),
      'video/mp4': mp4(),
      'audio/mpeg': mp3(),
    });
  });
  after(async () => k.close());

  /** intent (for the file's own size) and PUT: the PUT's answer. */
  async function send(data: Buffer) {
    const intent = await k.t.inject({
      method: 'POST',
      url: '/public/uploads/intent',
      payload: { fieldId: 'file', filename: 'upload.bin', size: data.length },
      headers: { origin: 'https://all.example', 'x-forwarded-for': `198.51.100.${++ip % 250}` },
    });
    expect(intent.statusCode, intent.body).to.equal(201);
    return k.t.inject({ method: 'PUT', url: intent.json().uploadUrl, payload: data });
  }

  it('accepts a well-formed file of every type a website may allow', async () => {
    for (const type of ALL_TYPES) {
      const res = await send(valid[type]);
      expect(res.statusCode, `${type}: ${res.body}`).to.equal(201);
      expect(res.json().mimeType).to.equal(type);
    }
  });

  const hostile = (): Array<[string, Buffer]> => [
    ['a GIF header followed by HTML (the reported case)', text(`GIF89a${SCRIPT}`)],
    [
      'a GIF header and screen descriptor followed by HTML',
      Buffer.concat([text('GIF89a\x01\x00\x01\x00\x00\x00\x00'), text(SCRIPT)]),
    ],
    [
      'a PNG signature followed by HTML',
      Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), text(SCRIPT)]),
    ],
    ['a JPEG marker followed by HTML', Buffer.concat([Buffer.from([0xff, 0xd8, 0xff]), text(SCRIPT)])],
    ['a WebP RIFF header followed by HTML', text(`RIFF\x40\x00\x00\x00WEBP${SCRIPT}`)],
    [
      'an AVIF ftyp box followed by HTML',
      Buffer.concat([box('ftyp', text('avif\x00\x00\x00\x00avifmif1')), text(SCRIPT)]),
    ],
    ['a PNG cut in half', valid['image/png'].subarray(0, Math.floor(valid['image/png'].length / 2))],
    ['a JPEG cut in half', valid['image/jpeg'].subarray(0, Math.floor(valid['image/jpeg'].length / 2))],
    ['a PNG signature on a JPEG body', Buffer.concat([valid['image/png'].subarray(0, 8), valid['image/jpeg']])],
    ['a PDF header followed by HTML', text(`%PDF-1.4\n${SCRIPT}`)],
    ['a PDF header and trailer around HTML', text(`%PDF-1.4\n${SCRIPT}\nstartxref\n9\n%%EOF\n`)],
    [
      'an MP4 ftyp box followed by HTML',
      Buffer.concat([box('ftyp', text('isom\x00\x00\x02\x00isomiso2')), text(SCRIPT)]),
    ],
    [
      'MP4 boxes without a movie',
      Buffer.concat([box('ftyp', text('isom\x00\x00\x02\x00isomiso2')), box('free', text(SCRIPT))]),
    ],
    ['an ID3 tag followed by HTML', Buffer.concat([text('ID3\x03\x00\x00\x00\x00\x00\x00'), text(SCRIPT)])],
    ['an MPEG frame sync followed by HTML', Buffer.concat([Buffer.from([0xff, 0xfb]), text(SCRIPT)])],
    ['MP3 frames followed by HTML', Buffer.concat([mp3().subarray(0, 30 + 417 * 2), text(SCRIPT.repeat(3))])],
  ];

  it('refuses each forgery with a 400 naming the file, staging nothing', async () => {
    const staged = await k.services().storage.list('s/');
    for (const [what, data] of hostile()) {
      const res = await send(data);
      expect(res.statusCode, `${what}: ${res.body}`).to.equal(400);
      expect(res.json(), what).to.include({ field: 'file' });
      expect(['FILE_CONTENT_INVALID', 'FILE_TYPE_REFUSED'], `${what}: ${res.json().code}`).to.include(res.json().code);
    }
    expect(await k.services().storage.list('s/')).to.deep.equal(staged);
  });

  it('never accepts a type it cannot check, whatever the website allows', async () => {
    await k.t.db('fixture_sites').insert({
      id: 'site-loose',
      name: 'Loose',
      root_path: '/loose',
      host: 'loose.example',
      uploads: JSON.stringify(uploadSettings({ allowedTypes: ['text/plain', 'application/zip', 'image/tiff'] })),
    });
    const tiff = await sharp({ create: { width: 4, height: 4, channels: 3, background: '#000' } })
      .tiff()
      .toBuffer();
    for (const data of [
      text('just some text, <b>bold</b>'),
      Buffer.concat([Buffer.from([0x50, 0x4b, 3, 4]), Buffer.alloc(40)]),
      tiff,
    ]) {
      const intent = await k.t.inject({
        method: 'POST',
        url: '/public/uploads/intent',
        payload: { fieldId: 'file', filename: 'x.bin', size: data.length },
        headers: { origin: 'https://loose.example', 'x-forwarded-for': `198.51.100.${++ip % 250}` },
      });
      const res = await k.t.inject({ method: 'PUT', url: intent.json().uploadUrl, payload: data });
      expect(res.statusCode, res.body).to.equal(400);
      expect(res.json()).to.include({ code: 'FILE_TYPE_REFUSED', field: 'file' });
    }
  });
});
