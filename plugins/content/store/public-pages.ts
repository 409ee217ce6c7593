import type { Db } from '../../../kernel/index.ts';

/** The public page JSON, built once in the database (no parse and re-serialise of the content). */
const PAGE_JSON = `json_build_object('id', id, 'websiteId', website_id, 'locale', locale, 'translationGroupId', translation_group_id,
  'path', path, 'title', title, 'content', content, 'seo', seo, 'kind', kind,
  'updatedAt', to_char(updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))::text as body,
  'W/"' || md5(id::text || updated_at::text) || '"' as etag`;

const PAGE_BY_PATH = `select ${PAGE_JSON} from content_pages where website_id = $1 and locale = $2 and path = $3 and published`;

/** The part of a pg connection the prepared read uses. */
interface PgConnection {
  query(q: { name: string; text: string; values: unknown[] }): Promise<{ rows: Array<{ body: string; etag: string }> }>;
}

export interface SitemapRow {
  website_id: string;
  locale: string;
  path: string;
  translation_group_id: string;
  /** ISO 8601 in UTC, to the second. */
  lastmod: string;
}

export interface DynamicPattern {
  id: string;
  path: string;
  data_class: string;
}

/** Reads of published pages only: a draft is never selected, so it answers like an unknown path. */
export class PublicPageStore {
  constructor(private readonly db: Db) {}

  /** One lookup on the unique (website_id, locale, path) index. */
  /**
   * The page's JSON and a validator from its id and last change (no hash of the body per request).
   * The hot path of the public API: a named (prepared) statement on a pooled connection, planned once
   * per connection, without the query builder.
   */
  async pageBody(websiteId: string, locale: string, path: string): Promise<{ body: string; etag: string } | undefined> {
    const client = this.db.client as {
      acquireConnection(): Promise<PgConnection>;
      releaseConnection(c: PgConnection): Promise<void>;
    };
    const connection = await client.acquireConnection();
    try {
      const { rows } = await connection.query({
        name: 'content_public_page',
        text: PAGE_BY_PATH,
        values: [websiteId, locale, path],
      });
      return rows[0];
    } finally {
      await client.releaseConnection(connection);
    }
  }

  async pageBodyById(id: string): Promise<string | undefined> {
    const { rows } = await this.db.raw(`select ${PAGE_JSON} from content_pages where id = ? and published`, [id]);
    return rows[0]?.body;
  }

  dynamicPatterns(websiteId: string, locale: string): Promise<DynamicPattern[]> {
    return this.db('content_pages')
      .select('id', 'path', 'data_class')
      .where({ website_id: websiteId, locale, dynamic: true, published: true })
      .orderBy('path')
      .limit(1000);
  }

  list(filter: {
    websiteId: string;
    locale?: string;
    kind?: string;
    limit: number;
    offset: number;
  }): Promise<Array<{ id: string; path: string; title: string; locale: string }>> {
    const q = this.db('content_pages')
      .select('id', 'path', 'title', 'locale', 'kind')
      .where({ website_id: filter.websiteId, published: true })
      .orderBy(['path', 'locale'])
      .limit(filter.limit)
      .offset(filter.offset);
    if (filter.locale) q.where({ locale: filter.locale });
    if (filter.kind) q.where({ kind: filter.kind });
    return q;
  }

  /** Every published page of a website, every locale, static and dynamic, in path order (a static build). */
  publishedPages(websiteId: string, limit: number): Promise<Array<{ path: string; locale: string; dynamic: boolean }>> {
    return this.db('content_pages')
      .select('path', 'locale', 'dynamic')
      .where({ website_id: websiteId, published: true })
      .orderBy(['path', 'locale'])
      .limit(limit);
  }

  /** What a sitemap's validator is computed from: count and latest change of its pages. */
  async sitemapStamp(websiteIds: string[] | null): Promise<{ count: number; latest: string }> {
    const q = this.db('content_pages')
      .count<{ count: string }[]>({ count: '*' })
      .max({ latest: 'updated_at' })
      .where({ published: true, in_sitemap: true, dynamic: false });
    if (websiteIds) q.whereIn('website_id', websiteIds);
    const [row] = (await q) as unknown as Array<{ count: string; latest: Date | null }>;
    return { count: Number(row.count), latest: row.latest ? row.latest.toISOString() : '' };
  }

  sitemapRows(websiteIds: string[] | null): Promise<SitemapRow[]> {
    // lastmod formatted by the database: no Date built and formatted again per row.
    const lastmod = this.db.raw(`to_char(updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as lastmod`);
    const q = this.db('content_pages')
      .select('website_id', 'locale', 'path', 'translation_group_id', lastmod)
      .where({ published: true, in_sitemap: true, dynamic: false })
      .orderBy(['website_id', 'path', 'locale']);
    if (websiteIds) q.whereIn('website_id', websiteIds);
    return q;
  }

  notIndexable(websiteIds: string[] | null): Promise<Array<{ website_id: string; path: string }>> {
    const q = this.db('content_pages')
      .distinct('website_id', 'path')
      .where({ published: true, indexable: false, dynamic: false })
      .limit(10_000);
    if (websiteIds) q.whereIn('website_id', websiteIds);
    return q;
  }
}
