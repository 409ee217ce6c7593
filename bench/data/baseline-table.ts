import pg from 'pg';
import type { Article } from './fixtures.ts';

/**
 * The baseline's plain table: real columns and the btree indexes a developer would add for the
 * three reads (slug lookup; published pages by title; published, newest first).
 */
const DDL = [
  `CREATE TABLE bench_articles (
     id uuid PRIMARY KEY,
     title text NOT NULL,
     slug text NOT NULL,
     body text NOT NULL,
     published boolean NOT NULL DEFAULT false,
     created_at timestamptz NOT NULL DEFAULT now()
   )`,
  'CREATE INDEX bench_articles_slug ON bench_articles (slug)',
  'CREATE INDEX bench_articles_published_title ON bench_articles (published, title)',
  'CREATE INDEX bench_articles_published_created ON bench_articles (published, created_at DESC)',
];

/** Creates the table and inserts the articles with the ids the product gave them, 1,000 per statement. */
export async function seedBaselineTable(
  url: string,
  articles: readonly Article[],
  ids: readonly string[],
): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (const sql of DDL) await client.query(sql);
    for (let start = 0; start < articles.length; start += 1000) {
      const chunk = articles.slice(start, start + 1000);
      const values: unknown[] = [];
      const tuples = chunk.map((a, i) => {
        values.push(ids[start + i], a.title, a.slug, a.body, a.published);
        const p = i * 5;
        return `($${p + 1}, $${p + 2}, $${p + 3}, $${p + 4}, $${p + 5})`;
      });
      await client.query(
        `INSERT INTO bench_articles (id, title, slug, body, published) VALUES ${tuples.join(', ')}`,
        values,
      );
    }
    await client.query('VACUUM (ANALYZE) bench_articles');
  } finally {
    await client.end();
  }
}
