import { expect } from 'chai';
import { expectNoLeaks } from '../../../test/helpers/answer-leaks.ts';
import { png } from '../../../test/helpers/images.ts';
import type { AssetRow } from '../model.ts';
import { startAssetsKernel, type AssetsKernel } from './assets-kernel.ts';

/**
 * The answer schemas are the filter: even when the code building an answer hands over the whole
 * row (its storage key, who uploaded it), no answer of the library carries them.
 */
describe('assets: no answer carries an internal column', function () {
  this.timeout(60_000);
  let k: AssetsKernel;
  const storageKeys: string[] = [];
  before(async () => {
    k = await startAssetsKernel();
    const { urls } = k.services();
    const dto = urls.dto.bind(urls);
    const ref = urls.ref.bind(urls);
    // A careless answer builder: the whole row goes along.
    const withRow = <T>(row: AssetRow, answer: T) => {
      storageKeys.push(row.storage_key);
      return { ...row, ...answer };
    };
    urls.dto = (row) => withRow(row, dto(row));
    urls.ref = (row) => withRow(row, ref(row));
  });
  after(async () => k.close());

  const forbidden = () => ({ keys: ['storage_key', 'created_by'], values: storageKeys });

  it('upload, list, read, metadata, move, transform, URLs, existence, public reference and delete', async () => {
    const uploaded = await k.upload(
      { name: 'leak.png', data: await png(40, 30), type: 'image/png' },
      { folder: 'leaks' },
    );
    expect(uploaded.statusCode, uploaded.body).to.equal(201);
    const asset = uploaded.json();
    const { editor, reader, admin } = k;
    const answers = [
      ['POST /api/v1/dam/upload', uploaded],
      ['GET /api/v1/dam/assets', await k.call('GET', '/api/v1/dam/assets?folder=leaks', reader)],
      ['POST /api/v1/dam/assets', await k.call('POST', '/api/v1/dam/assets', reader, { folder: 'leaks' })],
      ['GET /api/v1/dam/assets/:id', await k.call('GET', `/api/v1/dam/assets/${asset.id}`, reader)],
      [
        'PATCH /api/v1/dam/assets/metadata',
        await k.call('PATCH', '/api/v1/dam/assets/metadata', admin, { id: asset.id, metadata: { alt: 'a' } }),
      ],
      [
        'POST /api/v1/dam/transform',
        await k.call('POST', '/api/v1/dam/transform', editor, { id: asset.id, rotate: 90, saveAs: 'copy' }),
      ],
      [
        'POST /api/v1/dam/assets/move',
        await k.call('POST', '/api/v1/dam/assets/move', admin, { id: asset.id, to: 'leaks/moved.png' }),
      ],
      ['GET /api/v1/dam/asset-urls', await k.call('GET', '/api/v1/dam/asset-urls?path=leaks/moved.png', reader)],
      ['POST /api/v1/dam/exists', await k.call('POST', '/api/v1/dam/exists', reader, { paths: ['leaks/moved.png'] })],
      ['GET /api/v1/dam/folders', await k.call('GET', '/api/v1/dam/folders', reader)],
      ['GET /api/v1/dam/info', await k.call('GET', '/api/v1/dam/info', reader)],
      ['GET /public/assets/:uuid', await k.call('GET', `/public/assets/${asset.uuid}`, null)],
      ['DELETE /api/v1/dam/asset', await k.call('DELETE', `/api/v1/dam/asset?id=${asset.id}`, admin)],
    ] as const;
    expect(storageKeys).to.not.be.empty;
    for (const [what, res] of answers) {
      expect(res.statusCode, `${what}: ${res.body}`).to.be.lessThan(300);
      expectNoLeaks(res, forbidden());
    }
  });
});
