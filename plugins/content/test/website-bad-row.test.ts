import { expect } from 'chai';
import { startContentKernel, type ContentKernel } from './content-kernel.ts';

describe('content: one website with stored settings that break a read-time rule breaks no read', () => {
  let k: ContentKernel;
  before(async () => {
    k = await startContentKernel();
  });
  after(() => k.t.close());

  /** A website whose stored upload settings no editor could save (written by an old import, or by hand). */
  async function badSite() {
    const site = await k.createWebsite();
    await k.t
      .db('content_websites')
      .where({ id: site.id })
      .update({
        settings: JSON.stringify({
          color: 'red',
          uploads: { allowedTypes: ['text/html', 'image/png'], maxFileBytes: 'lots', folder: '../x' },
        }),
      });
    return site;
  }

  it('the list answers 200 with every website and reports the bad values; the safe value applies', async () => {
    const good = await k.createWebsite();
    const bad = await badSite();
    const list = await k.call('GET', '/cms-one/websites', k.reader);
    expect(list.statusCode, list.body).to.equal(200);
    const rows = list.json() as Array<{
      id: string;
      settings: { uploads: Record<string, unknown> };
      problems?: unknown[];
    }>;
    expect(rows.map((w) => w.id)).to.include.members([good.id, bad.id]);
    const shown = rows.find((w) => w.id === bad.id)!;
    expect(shown.settings.uploads.allowedTypes).to.deep.equal(['image/png']);
    expect(shown.settings.uploads.maxFileBytes).to.equal(10 * 1024 * 1024);
    expect(shown.settings.uploads.folder).to.equal(`/form-uploads/${bad.id}`);
    expect(shown.problems).to.deep.include({
      field: 'settings.uploads.allowedTypes.0',
      message: '"text/html" cannot be accepted and is ignored',
    });
    expect((shown.problems as Array<{ field: string }>).map((p) => p.field)).to.include.members([
      'settings.uploads.maxFileBytes',
      'settings.uploads.folder',
    ]);
    expect(rows.find((w) => w.id === good.id)).not.to.have.property('problems');
  });

  it("the website's own GET, PATCH, upload settings (read and repair) and DELETE answer as for a good one", async () => {
    const bad = await badSite();
    const got = await k.call('GET', `/cms-one/websites/${bad.id}`, k.reader);
    expect(got.statusCode, got.body).to.equal(200);
    const patched = await k.call('PATCH', `/cms-one/websites/${bad.id}`, k.editor, { name: 'Still here' });
    expect(patched.statusCode, patched.body).to.equal(200);
    const uploads = await k.call('GET', `/cms-one/websites/${bad.id}/upload-settings`, k.reader);
    expect(uploads.statusCode, uploads.body).to.equal(200);
    expect(uploads.json().allowedTypes).to.deep.equal(['image/png']);
    // Saving the upload settings stores the safe values: the problem is gone.
    const repaired = await k.call('PUT', `/cms-one/websites/${bad.id}/upload-settings`, k.editor, { enabled: true });
    expect(repaired.statusCode, repaired.body).to.equal(200);
    const after = await k.call('GET', `/cms-one/websites/${bad.id}`, k.reader);
    expect(after.json()).not.to.have.property('problems');
    // A change naming a type that cannot be checked is still refused.
    const refused = await k.call('PUT', `/cms-one/websites/${bad.id}/upload-settings`, k.editor, {
      allowedTypes: ['text/html'],
    });
    expect(refused.statusCode).to.equal(400);
    const other = await badSite();
    expect((await k.call('DELETE', `/cms-one/websites/${other.id}`, k.editor)).statusCode).to.equal(204);
  });
});
