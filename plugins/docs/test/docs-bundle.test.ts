import { expect } from 'chai';
import { readZip } from '../../../test/helpers/zip.ts';
import { startDocsKernel } from './docs-kernel.ts';

type Kit = Awaited<ReturnType<typeof startDocsKernel>>;

const importZip = (k: Kit, zip: Buffer, query = '') =>
  k.t.inject({
    method: 'POST',
    url: `/cms-one/websites/import${query}`,
    payload: zip,
    headers: { 'content-type': 'application/zip', cookie: k.editor.cookie },
  });

describe('documentation sites in website bundles', function () {
  this.timeout(90_000);
  let source: Kit;
  let target: Kit;
  let zip: Buffer;

  before(async () => {
    [source, target] = await Promise.all([
      startDocsKernel({}, ['data', 'bundles']),
      startDocsKernel({}, ['data', 'bundles']),
    ]);
    await source.put('manual/index.md', '# Handbook\n\nSee [the guide](guide/intro.md).\n');
    await source.put('manual/guide/intro.md', '# Introduction\n\nWords about kangaroos.\n');
    await source.put(
      'manual/internal.md',
      '---\nvisibility: private\n---\n# Staff only\n\nThe passphrase is aardvark.\n',
    );
    await source.put('manual/nav.yaml', '- /\n- guide/intro\n- internal\n');
    await source.site('Handbook', '/handbook', { sourceFolder: 'manual', navFile: 'nav.yaml' });
    // The target's library already holds another file in that folder.
    await target.put('manual/other.md', '# Somebody else\n');
  });
  after(() => Promise.all([source?.close(), target?.close()]));

  it('the export carries the documentation folder: every file, named in the manifest and stored in the zip', async () => {
    const site = (await source.t.call('GET', '/public/docs-site/handbook', null)).json();
    const res = await source.t.inject({
      method: 'GET',
      url: `/cms-one/websites/${site.websiteId}/export`,
      headers: { cookie: source.editor.cookie },
    });
    expect(res.statusCode, res.body).to.equal(200);
    zip = res.rawPayload;
    const entries = await readZip(zip);
    const manifest = JSON.parse(entries.get('bundle.json')!.toString());
    expect(manifest.website).to.include({ kind: 'documentation' });
    expect(manifest.website.settings.docs).to.deep.equal({ sourceFolder: 'manual', navFile: 'nav.yaml' });
    expect(manifest.docs.sourceFolder).to.equal('manual');
    expect([...manifest.docs.files].sort()).to.deep.equal([
      'manual/guide/intro.md',
      'manual/index.md',
      'manual/internal.md',
      'manual/nav.yaml',
    ]);
    const carried = manifest.assets.map((a: { path: string }) => a.path).sort();
    expect(carried).to.deep.equal([...manifest.docs.files].sort());
    const intro = manifest.assets.find((a: { path: string }) => a.path === 'manual/guide/intro.md');
    expect(entries.get(intro.file)!.toString()).to.contain('kangaroos');
  });

  it('a dry run reports the relocated folder and writes nothing', async () => {
    const res = await importZip(target, zip, '?dryRun=1');
    expect(res.statusCode, res.body).to.equal(200);
    const report = res.json();
    expect(report.docs).to.deep.equal({ sourceFolder: 'manual', targetFolder: 'manual-imported' });
    expect(report.counts.docsFiles).to.equal(4);
    expect(report.assetPlan.map((a: { targetPath: string }) => a.targetPath).sort()).to.deep.equal([
      'manual-imported/guide/intro.md',
      'manual-imported/index.md',
      'manual-imported/internal.md',
      'manual-imported/nav.yaml',
    ]);
    expect(report.assetPlan.every((a: { action: string }) => a.action === 'upload')).to.equal(true);
    expect(report.warnings.join(' ')).to.contain('imported into manual-imported');
    const stored = await target.t.db('assets').where('path', 'like', 'manual-imported/%').count('* as n');
    expect(Number(stored[0].n)).to.equal(0);
  });

  it('the apply stores the folder there, rewrites the settings, and the site reads from it (private stays private)', async () => {
    const res = await importZip(target, zip);
    expect(res.statusCode, res.body).to.equal(201);
    const applied = res.json();
    expect(applied.docsFolder).to.equal('manual-imported');
    const website = await target.t.call('GET', `/cms-one/websites/${applied.websiteId}`, target.editor);
    expect(website.json().settings.docs).to.deep.equal({ sourceFolder: 'manual-imported', navFile: 'nav.yaml' });
    const page = await target.t.call('GET', `/public/docs/${applied.websiteId}/page/guide/intro`, null);
    expect(page.statusCode, page.body).to.equal(200);
    expect(page.json().page.html).to.contain('kangaroos');
    const home = (await target.t.call('GET', `/public/docs/${applied.websiteId}/page/`, null)).json().page;
    expect(home.html).to.contain('href="/handbook/guide/intro"');
    expect((await target.t.call('GET', `/public/docs/${applied.websiteId}/page/internal`, null)).statusCode).to.equal(
      404,
    );
    const index = await target.t.call('GET', `/public/docs/${applied.websiteId}/search-index`, null);
    expect(index.body).to.contain('kangaroos').and.not.to.contain('aardvark');
    const tree = (await target.t.call('GET', `/docs-sites/${applied.websiteId}/tree`, target.reader)).json();
    expect(tree.documents.map((d: { path: string }) => d.path)).to.deep.equal(['', 'guide/intro', 'internal']);
    expect(tree.warnings).to.deep.equal([]);
    // The other file of the target's folder is untouched, and not part of the imported site.
    expect(JSON.stringify(tree)).not.to.contain('other.md').and.not.to.contain('Somebody');
  });

  it('imported where the library already holds the very same files, the folder stays and the files are reused', async () => {
    const res = await importZip(source, zip, '?dryRun=1&rootPath=/handbook-copy');
    expect(res.statusCode, res.body).to.equal(200);
    const report = res.json();
    expect(report.docs).to.deep.equal({ sourceFolder: 'manual', targetFolder: 'manual' });
    expect(report.assetPlan.every((a: { action: string }) => a.action === 'reuse')).to.equal(true);
    const applied = await importZip(source, zip, '?rootPath=/handbook-copy');
    expect(applied.statusCode, applied.body).to.equal(201);
    expect(applied.json().docsFolder).to.equal('manual');
    expect(applied.json().assets).to.include({ uploaded: 0, reused: 4 });
  });
});
