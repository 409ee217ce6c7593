import Fastify from 'fastify';
import pg from 'pg';
import { answerSqlCaptureRequests } from './sql-capture.ts';
import { portOf, reportReady } from './child-server.ts';

/**
 * Child process of the data benchmark: the natural bare implementation to compare the product with.
 * Fastify 5 and a pg Pool of the product's size (10) over a plain table `bench_articles` with real
 * columns and btree indexes (bench/data/baseline-table.ts); each route runs one plain statement with
 * `pool.query({ text, values })` and answers the rows as they come (Fastify's JSON.stringify).
 * No schema, no validation, no access control: the floor, not a copy of the product's SQL.
 * Reports `{ port }` to the parent over IPC.
 */
const url = process.env.BENCH_BASELINE_DATABASE_URL;
if (!url || !process.send) throw new Error('baseline-server runs as a child of bench/data.ts');

const pool = new pg.Pool({ connectionString: url, max: 10 });
const app = Fastify({ logger: false });
const COLUMNS = 'SELECT id, title, slug, body, published, created_at FROM bench_articles';

app.get<{ Params: { id: string } }>('/articles/:id', async (request, reply) => {
  const { rows } = await pool.query({ text: `${COLUMNS} WHERE id = $1 AND published`, values: [request.params.id] });
  if (rows.length === 0) return reply.code(404).send({ message: 'Not found' });
  return rows[0];
});

// ?slug=x: the published article with that slug; otherwise a page of published articles by title,
// starting at ?from (a title), ?limit long.
app.get<{ Querystring: { slug?: string; from?: string; limit?: string } }>('/articles', async (request) => {
  const { slug, from = '', limit = '20' } = request.query;
  if (slug !== undefined)
    return (await pool.query({ text: `${COLUMNS} WHERE slug = $1 AND published`, values: [slug] })).rows;
  const text = `${COLUMNS} WHERE published AND title >= $1 ORDER BY title LIMIT $2`;
  return (await pool.query({ text, values: [from, Math.min(Number(limit) || 20, 100)] })).rows;
});

await app.listen({ port: 0, host: '127.0.0.1' });
answerSqlCaptureRequests();
reportReady({ port: portOf(app.server) }, async () => {
  await app.close();
  await pool.end();
});
