import { createHash } from 'node:crypto';
import type { PublicPageStore, SitemapRow } from '../store/public-pages.ts';
import { escapeHtml } from './render.ts';
import type { ResolvedWebsite, SiteDirectory } from './site-directory.ts';

/** URLs per sitemap file (the sitemaps.org limit); past it `/public/sitemap.xml` is an index of parts. */
export const SITEMAP_MAX_URLS = 50_000;

const xml = (s: string) => escapeHtml(s);

/** Absolute URL of a page: the website's first domain, or this host under the website's root path. */
function pageUrl(site: ResolvedWebsite | undefined, origin: string, path: string): string {
  if (site?.domains[0]) return `https://${site.domains[0]}${path === '/' ? '/' : path}`;
  return `${origin}${site?.rootPath ?? ''}${path === '/' ? '' : path}` || '/';
}

const TAG_TTL_MS = 5_000;

export class Sitemaps {
  private cached: { tag: string; xml: string } | null = null;
  /** Validators by scope, origin and part; dropped on page and website writes in this process, else kept 5 s. */
  private tags = new Map<string, { at: number; tag: string }>();

  constructor(private readonly deps: { store: PublicPageStore; directory: SiteDirectory; now: () => number }) {}

  invalidate(): void {
    this.tags.clear();
  }

  /** Websites a request asks about: `?websiteId=`, the host's website, or all. */
  async scope(websiteId: string | undefined, host: string | undefined): Promise<ResolvedWebsite[] | null> {
    if (websiteId) {
      const site = await this.deps.directory.byId(websiteId);
      return site ? [site] : [];
    }
    const byHost = host ? await this.deps.directory.byDomain(host) : undefined;
    return byHost ? [byHost] : null;
  }

  /** A weak validator computed without building the document (and kept, so a 304 costs no query). */
  async tag(scope: ResolvedWebsite[] | null, origin: string, part: number | undefined): Promise<string> {
    const key = `${scope ? scope.map((s) => s.id).join(',') : '*'}|${origin}|${part ?? ''}|${this.deps.directory.generation}`;
    const now = this.deps.now();
    const hit = this.tags.get(key);
    if (hit && now - hit.at < TAG_TTL_MS) return hit.tag;
    if (this.tags.size > 1000) this.tags.clear();
    const tag = await this.computeTag(scope, origin, part);
    this.tags.set(key, { at: now, tag });
    return tag;
  }

  private async computeTag(scope: ResolvedWebsite[] | null, origin: string, part: number | undefined): Promise<string> {
    const stamp = await this.deps.store.sitemapStamp(scope ? scope.map((s) => s.id) : null);
    const sites = scope ?? (await this.deps.directory.all());
    const siteStamp = sites.map((s) => `${s.id}:${s.row.updated_at.toISOString()}`).join(',');
    const hash = createHash('sha1')
      .update(`${stamp.count}|${stamp.latest}|${origin}|${part ?? ''}|${siteStamp}`)
      .digest('base64');
    return `W/"${hash}"`;
  }

  /** `selfUrl`: this sitemap's own URL with the query that chose its scope, for the index's part links. */
  async build(
    scope: ResolvedWebsite[] | null,
    origin: string,
    part: number | undefined,
    tag: string,
    selfUrl = `${origin}/public/sitemap.xml?`,
  ): Promise<string | undefined> {
    if (this.cached?.tag === tag) return this.cached.xml;
    const rows = await this.deps.store.sitemapRows(scope ? scope.map((s) => s.id) : null);
    const sites = new Map((scope ?? (await this.deps.directory.all())).map((s) => [s.id, s]));
    let doc: string | undefined;
    if (part === undefined && rows.length > SITEMAP_MAX_URLS) {
      const parts = Math.ceil(rows.length / SITEMAP_MAX_URLS);
      const entries = Array.from(
        { length: parts },
        (_, i) => `<sitemap><loc>${xml(`${selfUrl}part=${i + 1}`)}</loc></sitemap>`,
      );
      doc = `<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${entries.join('')}</sitemapindex>\n`;
    } else {
      const index = (part ?? 1) - 1;
      const slice = rows.slice(index * SITEMAP_MAX_URLS, (index + 1) * SITEMAP_MAX_URLS);
      if (part !== undefined && slice.length === 0 && part > 1) return undefined;
      doc = urlSet(slice, rows, sites, origin);
    }
    this.cached = { tag, xml: doc };
    return doc;
  }
}

function urlSet(slice: SitemapRow[], all: SitemapRow[], sites: Map<string, ResolvedWebsite>, origin: string): string {
  // Each page's escaped URL and alternate line are built once; a group's lines are shared by its members.
  const lines = new Map<SitemapRow, { loc: string; alternate: string }>();
  const groups = new Map<string, SitemapRow[]>();
  for (const row of all) {
    const loc = xml(pageUrl(sites.get(row.website_id), origin, row.path));
    lines.set(row, { loc, alternate: `<xhtml:link rel="alternate" hreflang="${xml(row.locale)}" href="${loc}"/>` });
    const list = groups.get(row.translation_group_id);
    if (list) list.push(row);
    else groups.set(row.translation_group_id, [row]);
  }
  const alternates = new Map<string, string>();
  for (const [group, rows] of groups)
    if (rows.length > 1) alternates.set(group, rows.map((r) => lines.get(r)!.alternate).join(''));
  const out: string[] = [
    '<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml">',
  ];
  for (const row of slice) {
    out.push(
      `<url><loc>${lines.get(row)!.loc}</loc><lastmod>${row.lastmod}</lastmod>${alternates.get(row.translation_group_id) ?? ''}</url>`,
    );
  }
  out.push('</urlset>\n');
  return out.join('');
}

export function robotsTxt(
  origin: string,
  disallowed: Array<{ website_id: string; path: string }>,
  sites: Map<string, ResolvedWebsite>,
): string {
  const lines = ['User-agent: *'];
  for (const d of disallowed) {
    const site = sites.get(d.website_id);
    const path = `${site?.rootPath ?? ''}${d.path === '/' ? '/' : d.path}`;
    lines.push(`Disallow: ${path.replace(/[\r\n]/g, '')}`);
  }
  lines.push('Allow: /', '', `Sitemap: ${origin}/public/sitemap.xml`, '');
  return lines.join('\n');
}
