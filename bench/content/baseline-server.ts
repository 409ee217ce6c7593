import Fastify from 'fastify';
import pg from 'pg';
import { portOf, reportReady } from '../lib/child-server.ts';

/**
 * Child process of the content benchmark: the natural bare implementation of "published page by
 * locale and path". Fastify 5 and a pg Pool of 10 over plain tables `bench_sites(id, root)` and
 * `bench_pages(site_id, locale, path, title, content jsonb, published)` with a unique btree index on
 * (site_id, locale, path); the site list is read once at start; one statement per request with
 * `pool.query({ text, values })`, the row answered as Fastify serialises it. No validation, no access
 * control, no ETag: the floor. Reports `{ port }` over IPC.
 */
const url = process.env.BENCH_BASELINE_DATABASE_URL;
if (!url || !process.send) throw new Error('baseline-server runs as a child of bench/content.ts');

const pool = new pg.Pool({ connectionString: url, max: 10 });
const sites = new Map<string, string>(
  (await pool.query('SELECT id, root FROM bench_sites')).rows.map((r) => [r.root, r.id]),
);
const app = Fastify({ logger: false });
const SELECT =
  'SELECT id, site_id, locale, path, title, content, updated_at FROM bench_pages WHERE site_id = $1 AND locale = $2 AND path = $3 AND published';

app.get<{ Params: { locale: string; '*': string } }>('/pages/:locale/*', async (request, reply) => {
  const [root, ...rest] = request.params['*'].split('/');
  const siteId = sites.get(root);
  if (!siteId) return reply.code(404).send({ message: 'Not found' });
  const { rows } = await pool.query({ text: SELECT, values: [siteId, request.params.locale, '/' + rest.join('/')] });
  if (rows.length === 0) return reply.code(404).send({ message: 'Not found' });
  return rows[0];
});

await app.listen({ port: 0, host: '127.0.0.1' });
reportReady({ port: portOf(app.server) }, async () => {
  await app.close();
  await pool.end();
});
