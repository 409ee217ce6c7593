import { expect } from 'chai';
import { startDocsKernel } from './docs-kernel.ts';

type Kit = Awaited<ReturnType<typeof startDocsKernel>>;
type Nav = Array<{ title: string; path?: string; children?: Nav }>;
const paths = (nav: Nav): string[] =>
  nav.flatMap((i) => [...(i.path !== undefined ? [i.path] : []), ...paths(i.children ?? [])]);

describe('documentation sites: versions (vN/ folders)', function () {
  this.timeout(60_000);
  let k: Kit;
  let folderSite: string;
  let rootSite: string;

  before(async () => {
    k = await startDocsKernel(process.env.DOCS_TEST_LOG ? { LOG_LEVEL: 'error' } : {});
    // No documents of the root's own: the highest vN is the default.
    await k.put('vmanual/index.md', '# Product manual\n\nPick a version.\n');
    await k.put('vmanual/v1/index.md', '# Manual 1\n\nThe first release.\n');
    await k.put('vmanual/v1/install.md', '---\norder: 1\n---\n# Install 1\n\nOld setup with gerbils.\n');
    await k.put('vmanual/v2/install.md', '---\norder: 1\n---\n# Install 2\n\nNew setup with otters.\n');
    await k.put('vmanual/v2/upgrade.md', '---\norder: 2\n---\n# Upgrade\n\nFrom 1 to 2.\n');
    await k.put('vmanual/v2/secret.md', '---\nvisibility: private\n---\n# Secret 2\n\nThe word is narwhal.\n');
    await k.put('vmanual/v3/draft.md', '---\nvisibility: private\n---\n# Draft 3\n\nNot out yet: quokka.\n');
    folderSite = await k.site('Versioned', '/versioned', { sourceFolder: 'vmanual' });
    // Documents at the root: the root (`latest`) is the default, v1 an older version.
    await k.put('rmanual/install.md', '# Install now\n\nToday.\n');
    await k.put('rmanual/v1/install.md', '# Install then\n\nYesterday.\n');
    rootSite = await k.site('Rooted', '/rooted', { sourceFolder: 'rmanual' });
  });
  after(() => k.close());

  it('lists the versions a scope shows, newest first, and marks the default', async () => {
    const pub = await k.t.call('GET', `/public/docs/${folderSite}/nav`, null);
    expect(pub.statusCode, pub.body).to.equal(200);
    // v3 holds private documents only: the public never learns it exists.
    expect(pub.json().site.versions).to.deep.equal([
      { name: 'v2', path: 'v2', default: true },
      { name: 'v1', path: 'v1', default: false },
    ]);
    const staff = await k.t.call('GET', `/docs-sites/${folderSite}/preview/v3/draft`, k.reader);
    expect(staff.statusCode, staff.body).to.equal(200);
    expect(staff.json().site.versions.map((v: { name: string }) => v.name)).to.deep.equal(['v3', 'v2', 'v1']);
    expect(staff.json().page.version).to.equal('v3');

    const rooted = await k.t.call('GET', `/public/docs/${rootSite}/nav`, null);
    expect(rooted.json().site.versions).to.deep.equal([
      { name: 'latest', path: '', default: true },
      { name: 'v1', path: 'v1', default: false },
    ]);
  });

  it('scopes a page to its version: version, the page in other versions, nav and prev/next', async () => {
    const res = await k.t.call('GET', `/public/docs/${folderSite}/page/v1/install`, null);
    expect(res.statusCode, res.body).to.equal(200);
    const { page } = res.json();
    expect(page.version).to.equal('v1');
    expect(page.inVersions).to.deep.equal([
      { version: 'v2', path: 'v2/install' },
      { version: 'v1', path: 'v1/install' },
    ]);
    expect(page.prev).to.deep.equal({ path: 'v1', title: 'Manual 1' });
    expect(page.next).to.equal(undefined);

    // A page missing in another version goes to that version's start page.
    const upgrade = (await k.t.call('GET', `/public/docs/${folderSite}/page/v2/upgrade`, null)).json().page;
    expect(upgrade.inVersions).to.deep.equal([
      { version: 'v2', path: 'v2/upgrade' },
      { version: 'v1', path: 'v1' },
    ]);
    expect(upgrade.prev).to.deep.equal({ path: 'v2/install', title: 'Install 2' });

    // v2 has no index.md: its start page is an automatic index of its documents.
    const start = await k.t.call('GET', `/public/docs/${folderSite}/page/v2`, null);
    expect(start.statusCode, start.body).to.equal(200);
    expect(start.json().page).to.include({ title: 'Versioned v2', version: 'v2' });
    expect(start.json().page.html).to.contain('/versioned/v2/install').and.not.contain('/versioned/v1/');
    // The site's start page belongs to the default version.
    const home = (await k.t.call('GET', `/public/docs/${folderSite}/page/`, null)).json().page;
    expect(home).to.include({ title: 'Product manual', version: 'v2' });
    expect(home.next).to.deep.equal({ path: 'v2', title: 'Versioned v2' });

    const v1Nav = await k.t.call('GET', `/public/docs/${folderSite}/nav?version=v1`, null);
    expect(v1Nav.statusCode, v1Nav.body).to.equal(200);
    expect(paths(v1Nav.json().nav)).to.deep.equal(['v1', 'v1/install']);
    const v2Nav = await k.t.call('GET', `/public/docs/${folderSite}/nav?version=v2`, null);
    expect(paths(v2Nav.json().nav)).to.deep.equal(['v2/install', 'v2/upgrade']);
    // The whole nav without a version, as a site without versions answers it.
    const all = await k.t.call('GET', `/public/docs/${folderSite}/nav`, null);
    expect(paths(all.json().nav)).to.include.members(['v1/install', 'v2/install']);

    const rooted = (await k.t.call('GET', `/public/docs/${rootSite}/page/install`, null)).json().page;
    expect(rooted.version).to.equal('latest');
    expect(rooted.inVersions).to.deep.equal([
      { version: 'latest', path: 'install' },
      { version: 'v1', path: 'v1/install' },
    ]);
  });

  it('scopes the search indexes per version; an unknown or private-only version is a 404', async () => {
    const words = async (url: string, user: typeof k.reader | null) => {
      const res = await k.t.call('GET', url, user);
      expect(res.statusCode, res.body).to.equal(200);
      return JSON.stringify(res.json().index);
    };
    const v1 = await words(`/public/docs/${folderSite}/search-index?version=v1`, null);
    expect(v1).to.contain('gerbils').and.not.contain('otters');
    const v2 = await words(`/public/docs/${folderSite}/search-index?version=v2`, null);
    expect(v2).to.contain('otters').and.not.contain('gerbils').and.not.contain('narwhal');
    const v2staff = await words(`/docs-sites/${folderSite}/search-index?version=v2`, k.reader);
    expect(v2staff).to.contain('narwhal').and.not.contain('quokka');
    expect(await words(`/docs-sites/${folderSite}/search-index?version=v3`, k.reader)).to.contain('quokka');

    for (const url of [
      `/public/docs/${folderSite}/search-index?version=v3`,
      `/public/docs/${folderSite}/search-index?version=v9`,
      `/public/docs/${folderSite}/nav?version=v3`,
      `/public/docs/${folderSite}/page/v3`,
    ]) {
      const res = await k.t.call('GET', url, null);
      expect(res.statusCode, url).to.equal(404);
    }
    const tooLong = await k.t.call('GET', `/public/docs/${folderSite}/nav?version=${'v'.repeat(40)}`, null);
    expect(tooLong.statusCode).to.equal(400);
  });

  it('publishes a version switcher of links to the same page in each version', async () => {
    const html = (path: string) => k.t.call('GET', `/public/page/${path}`, null, undefined, { accept: 'text/html' });
    const res = await html('versioned/v2/upgrade');
    expect(res.statusCode, res.body).to.equal(200);
    const switcher = /<nav class="versions" aria-label="Versions">(.*?)<\/nav>/.exec(res.body)?.[1] ?? '';
    expect(switcher).to.contain('<a href="/versioned/v2/upgrade" aria-current="true">v2 (default)</a>');
    expect(switcher).to.contain('<a href="/versioned/v1">v1</a>');
    expect(switcher).not.to.contain('v3');
    expect(res.body).to.contain(`data-index="/public/docs/${folderSite}/search-index?version=v2"`);
    const sidebar = /<nav class="sidebar"[^>]*>(.*?)<\/nav>/.exec(res.body)?.[1] ?? '';
    expect(sidebar).to.contain('/versioned/v2/install').and.not.contain('/versioned/v1/install');
    // The root's own documents are the `latest` version.
    const rooted = await html('rooted/install');
    expect(rooted.body).to.contain('<a href="/rooted/v1/install">v1</a>');
  });
});
