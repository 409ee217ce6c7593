import { expect } from 'chai';
import { expectNoLeaks } from '../../../test/helpers/answer-leaks.ts';
import { startContentKernel, type ContentKernel } from './content-kernel.ts';

describe('content: no internal column reaches a client', () => {
  let k: ContentKernel;
  before(async () => {
    k = await startContentKernel();
  });
  after(() => k.t.close());

  it('lists, reads and writes websites, pages and snippets without a site key or an internal column', async () => {
    const site = await k.createWebsite();
    const key = await k.call('POST', `/cms-one/websites/${site.id}/gateway-api-key/regenerate`, k.admin);
    expect(key.statusCode, key.body).to.equal(200);
    // Shown once, to the one who made it; never again, in any answer.
    const siteKey = key.json().siteKey as string;
    expect(siteKey).to.be.a('string').and.not.empty;
    const page = await k.createPage({ websiteId: site.id, path: '/leaks', published: true });
    const snippet = await k.call('POST', '/cms-one/snippets', k.editor, { name: k.unique('leak') });
    const answers = [
      await k.call('GET', '/cms-one/websites', k.reader),
      await k.call('GET', `/cms-one/websites/${site.id}`, k.reader),
      await k.call('PATCH', `/cms-one/websites/${site.id}`, k.admin, { name: k.unique('Renamed ') }),
      await k.call('GET', '/public/websites', null),
      await k.call('GET', `/public/websites/${site.id}`, null),
      await k.call('GET', `/cms-one/pages/${page.id}`, k.reader),
      await k.call('GET', `/cms-one/pages?websiteId=${site.id}`, k.reader),
      await k.call('GET', `/public/pages?websiteId=${site.id}`, null),
      snippet,
      await k.call('GET', `/cms-one/snippets/${snippet.json().id}`, k.reader),
      await k.call('GET', `/cms-one/websites/${site.id}/upload-settings`, k.reader),
    ];
    for (const res of answers) expect(res.statusCode, res.body).to.be.oneOf([200, 201]);
    expectNoLeaks(answers, { values: [siteKey] });
  });

  it('answers a setting and upload rules by their schemas, whatever else the service returns', async () => {
    const site = await k.createWebsite();
    const services = k.services();
    const settingsGet = services.settings.get.bind(services.settings);
    const uploadSettings = services.websites.uploadSettings.bind(services.websites);
    // As if a store started returning an internal column beside the stored value.
    services.settings.get = (async (key: Parameters<typeof settingsGet>[0]) => ({
      ...(await settingsGet(key)),
      secret: 'raw-setting-secret',
    })) as typeof settingsGet;
    services.websites.uploadSettings = async (id: string) => ({
      ...(await uploadSettings(id)),
      token_hash: 'raw-token-hash',
    });
    try {
      const autosave = await k.call('GET', '/cms-one/settings/autosave', k.reader);
      expect(autosave.json()).to.deep.equal({ enabled: true, intervalSeconds: 30 });
      const uploads = await k.call('GET', `/cms-one/websites/${site.id}/upload-settings`, k.reader);
      expect(uploads.statusCode, uploads.body).to.equal(200);
      expectNoLeaks([autosave, uploads], { values: ['raw-setting-secret', 'raw-token-hash'] });
    } finally {
      services.settings.get = settingsGet;
      services.websites.uploadSettings = uploadSettings;
    }
  });
});
