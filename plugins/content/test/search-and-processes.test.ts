import { expect } from 'chai';
import { definePlugin } from '../../../kernel/index.ts';
import type { RecordChange } from '../../../kernel/record-hooks.ts';
import { startTestKernel } from '../../../test/helpers/kernel.ts';
import { startContentKernel, type ContentKernel } from './content-kernel.ts';

/** A collector of `searchSources`, as the search plugin is: documents are asked inside the write's transaction. */
const collected: Array<{ kind: string; docs: unknown[] }> = [];
const searchCollector = definePlugin({
  id: 'fixture-search-collector',
  processes: ['core-api'],
  needs: ['searchSources', 'recordHooks'],
  collects: ['searchSources'],
  setup: ({ searchSources }) => ({ searchSources }),
  onStart: ({ services, recordHooks }) => {
    recordHooks.subscribe('page', async (change: RecordChange, trx) => {
      const source = services.searchSources.find((s) => s.recordType === change.recordType);
      if (source) collected.push({ kind: change.kind, docs: await source.documentsFor(change, trx) });
    });
  },
});

describe('content: search source and processes', () => {
  let k: ContentKernel;
  before(async () => {
    k = await startContentKernel({ extraPlugins: [searchCollector] });
  });
  after(() => k.t.close());

  it('documents a published indexable page as public, a draft for editors only, with text from the tree', async () => {
    const site = await k.createWebsite();
    collected.splice(0);
    const page = await k.createPage({
      websiteId: site.id,
      path: '/find-me',
      title: 'Findable',
      seo: { description: 'About finding' },
      content: {
        type: 'section',
        children: [
          { type: 'h1', text: 'Needle' },
          { type: 'img', props: { alt: 'hay', src: '/x.png' } },
          // A data binding's template: its placeholders are no words of the page.
          { type: 'p', text: 'Price: {{ price }}' },
        ],
      },
    });
    expect(collected[0].kind).to.equal('created');
    const draftDoc = collected[0].docs[0] as Record<string, unknown>;
    expect(draftDoc).to.include({
      sourceType: 'page',
      sourceId: page.id,
      websiteId: site.id,
      locale: 'en',
      title: 'Findable',
      public: false,
      url: `${site.rootPath}/find-me`,
    });
    expect(draftDoc.body).to.equal('About finding Needle hay Price:');
    await k.call('PATCH', `/cms-one/pages/${page.id}`, k.publisher, { published: true });
    expect((collected.at(-1)!.docs[0] as { public: boolean }).public).to.equal(true);
    await k.call('PATCH', `/cms-one/pages/${page.id}`, k.publisher, { indexable: false });
    expect((collected.at(-1)!.docs[0] as { public: boolean }).public).to.equal(false);
    await k.call('DELETE', `/cms-one/pages/${page.id}`, k.editor);
    expect(collected.at(-1)).to.deep.equal({ kind: 'deleted', docs: [] });
    const kept = await k.createPage({ websiteId: site.id, path: '/kept', title: 'Kept' });
    const source = k.t.kernel.resolve('searchSources').find((s) => s.recordType === 'page')!;
    const all: unknown[] = [];
    await k.t.db.transaction(async (trx) => {
      for await (const batch of source.allDocuments(trx)) all.push(...batch);
    });
    expect(all.map((d) => (d as { sourceId: string }).sourceId))
      .to.include(kept.id)
      .and.not.include(page.id);
    collected.splice(0);
    await k.call('DELETE', `/cms-one/websites/${site.id}`, k.admin);
    expect(collected).to.deep.equal([{ kind: 'deleted', docs: [] }]);
  });

  it('the gateway process gets its binding source from content without mounting the content routes', async () => {
    const t = await startTestKernel({ service: 'gateway' });
    try {
      const sources = t.kernel.resolve('gatewayBindingSources');
      expect(sources).to.have.length(1);
      expect(sources[0]).to.have.property('findBinding');
      expect((await t.inject({ method: 'GET', url: '/public/websites' })).statusCode).to.equal(404);
    } finally {
      await t.close();
    }
  });
});
