import { expect } from 'chai';
import { expectNoLeaks } from '../../../test/helpers/answer-leaks.ts';
import { sitesFixturePlugin } from '../../../test/fixtures/sites-plugin.ts';
import { startTestKernel, type TestKernel } from '../../../test/helpers/kernel.ts';
import type { FormSubmissions } from '../services/form-submit.ts';

/**
 * The answer schema is the filter: even when the submit hands over more than the submission (the
 * stored object's row, an upload's storage key and ticket), a public client reads only the id and the
 * attachments.
 */
describe('forms: no internal column reaches a client', function () {
  this.timeout(60_000);
  let t: TestKernel;
  let classId: string;
  let email = 0;
  const submit = () =>
    t.call('POST', `/public/forms/${classId}/submit`, null, {
      attributes: { email: `leak-${++email}@example.test` },
    });

  before(async () => {
    t = await startTestKernel({
      plugins: ['data', 'assets', 'forms'],
      extraPlugins: [sitesFixturePlugin],
      ownDataDir: true,
      env: { UPLOAD_TOKEN_SECRET: 'upload-ticket-secret-0123456789-abcdef' },
    });
    const cls = await t.call('POST', '/data-classes', await t.admin(), {
      name: `leaks_${Date.now()}`,
      fields: [{ name: 'email', type: 'text', required: true }],
    });
    expect(cls.statusCode, cls.body).to.equal(201);
    classId = cls.json().id;
  });
  after(() => t?.close());

  it('answers a submit without an internal column', async () => {
    const res = await submit();
    expect(res.statusCode, res.body).to.equal(201);
    expectNoLeaks(res);
  });

  it('answers a submit by its schema, whatever else the service returns', async () => {
    const forms = t.services<FormSubmissions>('forms');
    const original = forms.submit;
    forms.submit = (async (...args) => {
      const out = await original.apply(forms, args);
      const row = await t.db('data_objects').where({ id: out.id }).first();
      return {
        ...row,
        ...out,
        claim_token: 'raw-upload-ticket',
        attachments: [{ field: 'email', assetId: out.id, storage_key: 'a/raw-storage-key' }],
      };
    }) as typeof forms.submit;
    try {
      const res = await submit();
      expect(res.statusCode, res.body).to.equal(201);
      expect(res.json()).to.have.keys('id', 'attachments');
      expect(res.json().attachments[0]).to.have.keys('field', 'assetId');
      expectNoLeaks(res, { keys: ['claim_token', 'storage_key'], values: ['raw-upload-ticket', 'raw-storage-key'] });
    } finally {
      forms.submit = original;
    }
  });
});
