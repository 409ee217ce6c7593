import { expect } from 'chai';
import { SERVICE_TOKEN, startAssetsKernel } from './assets-kernel.ts';

type AssetsKernel = Awaited<ReturnType<typeof startAssetsKernel>>;

const filePart = (boundary: string) =>
  `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n`;

/** Bodies that say they are multipart and are not, as an outside run sent them (they answered 500). */
const MALFORMED: Array<[string, string, string | Buffer]> = [
  ['no boundary', 'multipart/form-data', 'hello'],
  ['an empty boundary', 'multipart/form-data; boundary=', 'hello'],
  ['a boundary over 70 characters', `multipart/form-data; boundary=${'b'.repeat(300)}`, 'hello'],
  [
    'another boundary than the one declared',
    'multipart/form-data; boundary=abc',
    `${filePart('xyz')}data\r\n--xyz--\r\n`,
  ],
  ['a body cut off inside the file', 'multipart/form-data; boundary=abc', `${filePart('abc')}partial data`],
  ['bytes that are no multipart at all', 'multipart/form-data; boundary=abc', Buffer.from([0, 1, 2, 3, 255, 254])],
];

/**
 * Issue 30, item 11: every multipart route of the product (the library upload and the asset
 * processor's image routes) answers a malformed multipart body 400 `MALFORMED_MULTIPART` naming the
 * body, never 500, and keeps nothing of it.
 */
describe('assets: malformed multipart bodies', function () {
  this.timeout(60_000);
  let k: AssetsKernel;
  before(async () => {
    k = await startAssetsKernel();
  });
  after(() => k?.close());

  for (const url of ['/api/v1/dam/upload', '/api/v1/process', '/api/v1/metadata'])
    it(`POST ${url} answers 400 naming the body`, async () => {
      const keysBefore = (await k.storedKeys()).length;
      for (const [what, contentType, payload] of MALFORMED) {
        const res = await k.t.inject({
          method: 'POST',
          url,
          payload,
          headers: { 'content-type': contentType, cookie: k.admin.cookie, authorization: `Bearer ${SERVICE_TOKEN}` },
        });
        expect(res.statusCode, `${what}: ${res.body}`).to.equal(400);
        expect(res.json(), what).to.include({ code: 'MALFORMED_MULTIPART', field: 'body' });
        expect(res.json().message, what).to.match(/multipart\/form-data/);
      }
      // A body that is not multipart at all is a 4xx of its own, never a 500.
      const text = await k.t.inject({
        method: 'POST',
        url,
        payload: 'hello',
        headers: { 'content-type': 'text/plain', cookie: k.admin.cookie, authorization: `Bearer ${SERVICE_TOKEN}` },
      });
      expect(text.statusCode, text.body).to.equal(400);
      expect(await k.t.db('assets').select('id')).to.deep.equal([]);
      expect((await k.storedKeys()).length).to.equal(keysBefore);
    });
});
