import { expect } from 'chai';
import { definePlugin } from '../../../kernel/index.ts';
import { expectNoLeaks } from '../../../test/helpers/answer-leaks.ts';
import { startTestKernel, type TestKernel, type TestUser } from '../../../test/helpers/kernel.ts';

const HASH = 'sha256:5f4dcc3b5aa765d61d8327deb882cf99-site-key-hash';

/**
 * A part that plans with more than the documented action: the stored website row and its site API
 * key hash. The answer schemas are the filter: the dry run's report and the apply's answer name the
 * actions and never carry the rest.
 */
const carelessPart = definePlugin({
  id: 'careless-part',
  processes: ['core-api'],
  needs: [],
  contributes: {
    websiteBundleParts: () => ({
      id: 'careless-part',
      order: 100,
      async exportSections() {
        return {};
      },
      async plan() {
        const row = { id: 'w1', gateway_api_key_hash: HASH };
        return {
          counts: { careless: 1 },
          actions: [{ kind: 'website', name: 'Shop', action: 'create' as const, row, siteKeyHash: HASH }],
          warnings: [],
          blocking: [],
        };
      },
      async apply() {},
    }),
  },
});

describe('bundles: no import answer carries what a part holds beyond the documented action', function () {
  this.timeout(60_000);
  let t: TestKernel;
  let admin: TestUser;
  before(async () => {
    t = await startTestKernel({ plugins: ['identity', 'assets', 'bundles'], extraPlugins: [carelessPart] });
    admin = await t.admin();
  });
  after(() => t?.close());

  it('the dry run and the apply', async () => {
    const manifest = { version: 2, website: { name: 'Shop', rootPath: '/leaks' } };
    const forbidden = { keys: ['row', 'gateway_api_key_hash', 'siteKeyHash'], values: [HASH] };
    const dryRun = await t.call('POST', '/cms-one/websites/import?dryRun=1', admin, manifest);
    expect(dryRun.statusCode, dryRun.body).to.equal(200);
    expectNoLeaks(dryRun, forbidden);
    expect(dryRun.json().actions).to.deep.equal([{ kind: 'website', name: 'Shop', action: 'create' }]);
    const applied = await t.call('POST', '/cms-one/websites/import', admin, manifest);
    expect(applied.statusCode, applied.body).to.equal(201);
    expectNoLeaks(applied, forbidden);
  });
});
