import { isHttpError } from '../../../kernel/index.ts';
import type { DynamicPattern, PublicPageStore } from '../store/public-pages.ts';
import type { ContentDeps } from './deps.ts';
import { matchPattern } from './path-pattern.ts';
import { firstSegment, type ResolvedWebsite, type SiteDirectory } from './site-directory.ts';

const PATTERN_TTL_MS = 5_000;

/**
 * The public page read path: website from the cached directory, then one indexed lookup of
 * (website, locale, path) among published pages; dynamic patterns (`/blog/:slug`) only when no static
 * page matches, resolved against published objects through the data plugin's `dataObjects`.
 */
export class PublicPages {
  private patterns = new Map<string, { at: number; list: DynamicPattern[] }>();

  constructor(private readonly deps: { kernel: ContentDeps; store: PublicPageStore; directory: SiteDirectory }) {}

  /** Page writes drop the dynamic pattern cache of this process. */
  invalidate(): void {
    this.patterns.clear();
  }

  /** Website and path inside it for a full path whose first segment is the root (`/shop/about`), or by host. */
  async locate(
    fullPath: string,
    host: string | undefined,
  ): Promise<{ site: ResolvedWebsite; path: string } | undefined> {
    const clean = '/' + fullPath.split(/[?#]/, 1)[0].split('/').filter(Boolean).join('/');
    const segment = firstSegment(clean);
    const site = segment ? await this.deps.directory.bySegment(segment) : undefined;
    if (site) return { site, path: clean.slice(segment.length + 1) || '/' };
    const byHost = host ? await this.deps.directory.byDomain(host) : undefined;
    return byHost ? { site: byHost, path: clean } : undefined;
  }

  /** JSON text of the published page (with its validator for a static page), or undefined (404). */
  async find(
    site: ResolvedWebsite,
    locale: string,
    path: string,
  ): Promise<{ body: string; etag?: string } | undefined> {
    if (!site.locales.includes(locale) || path.length > 2000) return undefined;
    const page = await this.deps.store.pageBody(site.id, locale, path);
    if (page !== undefined) return page;
    const body = await this.findDynamic(site, locale, path);
    return body === undefined ? undefined : { body };
  }

  private async patternsOf(websiteId: string, locale: string): Promise<DynamicPattern[]> {
    const key = `${websiteId}|${locale}`;
    const now = this.deps.kernel.clock.now().getTime();
    const hit = this.patterns.get(key);
    if (hit && now - hit.at < PATTERN_TTL_MS) return hit.list;
    const list = await this.deps.store.dynamicPatterns(websiteId, locale);
    this.patterns.set(key, { at: now, list });
    return list;
  }

  private async findDynamic(site: ResolvedWebsite, locale: string, path: string): Promise<string | undefined> {
    const data = this.deps.kernel.dataObjects;
    if (!data) return undefined;
    for (const pattern of await this.patternsOf(site.id, locale)) {
      const params = matchPattern(pattern.path, path);
      if (!params) continue;
      let object: unknown;
      try {
        const found = await data.queryPublished({
          className: pattern.data_class,
          filters: Object.entries(params).map(([field, value]) => ({
            field,
            op: 'eq',
            value: decodeURIComponent(value),
          })),
          limit: 1,
          locale,
        });
        object = found.objects[0];
      } catch (err) {
        // An unknown class or a field that cannot be filtered is a page that does not exist.
        if (isHttpError(err) && err.statusCode < 500) continue;
        if (err instanceof URIError) continue;
        throw err;
      }
      if (!object) continue;
      const body = await this.deps.store.pageBodyById(pattern.id);
      if (!body) continue;
      return `${body.slice(0, -1)},"params":${JSON.stringify(params)},"object":${JSON.stringify(object)}}`;
    }
    return undefined;
  }
}
