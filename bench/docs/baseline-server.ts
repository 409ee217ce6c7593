import { readFileSync } from 'node:fs';
import Fastify from 'fastify';
import { portOf, reportReady } from '../lib/child-server.ts';

/**
 * Child process of the documentation benchmark: the bare floor to compare the product with. Fastify 5
 * sending, from memory (encoded once, as the product keeps them), the very JSON texts the product answered (pages and the public search index,
 * read from the file BENCH_DOCS_BODIES names) at the same paths, with the same content type and ETag.
 * No schema, no access control, no rate limit, no site lookup. Reports `{ port }` over IPC.
 */
const file = process.env.BENCH_DOCS_BODIES;
if (!file || !process.send) throw new Error('docs/baseline-server runs as a child of bench/docs.ts');
const bodies = JSON.parse(readFileSync(file, 'utf8')) as {
  pages: Record<string, string>;
  index: { body: string; etag: string };
};
// Encoded once, as the product keeps its answers.
const pages = new Map(Object.entries(bodies.pages).map(([k, v]) => [k, Buffer.from(v)]));
const index = Buffer.from(bodies.index.body);
const app = Fastify({ logger: false });
app.get<{ Params: { '*': string } }>('/public/docs/:websiteId/page/*', async (request, reply) => {
  const body = pages.get(request.params['*']);
  if (body === undefined) return reply.code(404).send({ message: 'Not found' });
  return reply.type('application/json; charset=utf-8').send(body);
});
app.get('/public/docs/:websiteId/search-index', async (_request, reply) =>
  reply
    .type('application/json; charset=utf-8')
    .header('etag', bodies.index.etag)
    .header('cache-control', 'no-cache')
    .send(index),
);
await app.listen({ port: 0, host: '127.0.0.1' });
reportReady({ port: portOf(app.server) }, () => app.close());
