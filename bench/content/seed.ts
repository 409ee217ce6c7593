import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { Db } from '../../kernel/database.ts';

export const LOCALES = ['en', 'de', 'fr'];

export interface SeedPage {
  id: string;
  site: number;
  locale: string;
  path: string;
  group: string;
}

/** A page body of about 2 KB: a heading, paragraphs and a link, as an editor would build it. */
export function pageTree(n: number): unknown {
  const paragraphs = Array.from({ length: 5 }, (_, i) => ({
    type: 'p',
    text: `Paragraph ${i} of page ${n}. `.repeat(6),
  }));
  return {
    type: 'section',
    props: { className: 'page' },
    children: [
      { type: 'h1', text: `Page ${n}` },
      ...paragraphs,
      { type: 'a', props: { href: `/page-${n + 1}` }, text: 'Next' },
    ],
  };
}

/** `count` pages over the sites, each path in the three locales (one translation group), all published. */
export function planPages(count: number, sites: number): SeedPage[] {
  const perSite = Math.ceil(count / (sites * LOCALES.length));
  const out: SeedPage[] = [];
  for (let s = 0; s < sites; s++) {
    for (let k = 0; k < perSite; k++) {
      const group = randomUUID();
      for (const locale of LOCALES)
        out.push({ id: randomUUID(), site: s, locale, path: `/section-${k % 20}/page-${k}`, group });
    }
  }
  return out.slice(0, count);
}

// Every seeded page is published, so the sitemap holds all of them (the target is about 10,000 URLs);
// the draft rule is proven by the tests, not measured here.
const published = (_i: number) => true;

/** The product's rows, written straight into its table (10,000 POSTs would only measure seeding). */
export async function seedProduct(db: Db, siteIds: string[], pages: SeedPage[]): Promise<void> {
  for (let i = 0; i < pages.length; i += 1000) {
    await db('content_pages').insert(
      pages.slice(i, i + 1000).map((p, j) => ({
        id: p.id,
        website_id: siteIds[p.site],
        locale: p.locale,
        translation_group_id: p.group,
        path: p.path,
        title: `Page ${i + j}`,
        content: JSON.stringify(pageTree(i + j)),
        seo: JSON.stringify({ description: `About page ${i + j}` }),
        published: published(i + j),
        published_at: new Date(),
      })),
    );
  }
  await db.raw('ANALYZE content_pages');
}

export async function seedBaseline(url: string, roots: string[], pages: SeedPage[]): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('CREATE TABLE bench_sites (id uuid PRIMARY KEY, root text UNIQUE NOT NULL)');
    await client.query(`CREATE TABLE bench_pages (id uuid PRIMARY KEY, site_id uuid NOT NULL REFERENCES bench_sites(id), locale text NOT NULL, path text NOT NULL,
      title text NOT NULL, content jsonb NOT NULL, published boolean NOT NULL, updated_at timestamptz NOT NULL DEFAULT now(), UNIQUE (site_id, locale, path))`);
    const siteIds = roots.map(() => randomUUID());
    for (let s = 0; s < roots.length; s++)
      await client.query('INSERT INTO bench_sites VALUES ($1, $2)', [siteIds[s], roots[s]]);
    for (let i = 0; i < pages.length; i += 1000) {
      const chunk = pages.slice(i, i + 1000);
      await client.query(
        `INSERT INTO bench_pages (id, site_id, locale, path, title, content, published)
         SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[], $5::text[], $6::jsonb[], $7::boolean[])`,
        [
          chunk.map((p) => p.id),
          chunk.map((p) => siteIds[p.site]),
          chunk.map((p) => p.locale),
          chunk.map((p) => p.path),
          chunk.map((_, j) => `Page ${i + j}`),
          chunk.map((_, j) => JSON.stringify(pageTree(i + j))),
          chunk.map((_, j) => published(i + j)),
        ],
      );
    }
    await client.query('ANALYZE bench_pages');
  } finally {
    await client.end();
  }
}

export const isPublished = published;
