import Fastify from 'fastify';
import pg from 'pg';

/**
 * Child process of the data benchmark: the floor to compare the product with. Plain Fastify and a
 * pg Pool (same size as the product's), no kernel, no validation, no access control: each route runs
 * the SQL the product runs for that read, on the same database, and answers the same JSON shape.
 * Reports `{ port }` to the parent over IPC.
 */
const url = process.env.BENCH_DATABASE_URL;
const classId = process.env.BENCH_CLASS_ID;
const className = process.env.BENCH_CLASS_NAME;
if (!url || !classId || !className || !process.send) throw new Error('baseline-server runs as a child of bench/data.ts');

interface Row {
  id: string;
  class_id: string;
  translation_group_id: string;
  locale: string;
  key: string | null;
  parent_id: string | null;
  path: string;
  published: boolean;
  workflow_state: string | null;
  attributes: Record<string, unknown>;
  created_at: Date | string;
  updated_at: Date | string;
}

const dto = (row: Row) => ({
  id: row.id,
  class: { id: row.class_id, name: className },
  classId: row.class_id,
  translationGroupId: row.translation_group_id,
  locale: row.locale,
  key: row.key,
  parentId: row.parent_id,
  path: row.path,
  published: row.published,
  workflowState: row.workflow_state,
  attributes: row.attributes ?? {},
  createdAt: new Date(row.created_at).toISOString(),
  updatedAt: new Date(row.updated_at).toISOString(),
});

const pool = new pg.Pool({ connectionString: url, max: 10 });
const app = Fastify({ logger: false });
const notFound = { statusCode: 404, error: 'Not Found', code: 'OBJECT_NOT_FOUND', message: 'Object not found' };

/** The page plus one row (to tell `hasMore`), as the product's public page query does. */
async function page(where: string, order: string, params: unknown[], limit: number) {
  const filtered = `from data_objects where class_id = $1 and published and ${where}`;
  const sql = `select coalesce(json_agg(p), '[]'::json) as rows from (select * ${filtered} order by ${order} limit ${limit + 1} offset 0) p`;
  const { rows } = await pool.query(sql, [classId, ...params]);
  const found = rows[0].rows as Row[];
  return { objects: found.slice(0, limit).map(dto), hasMore: found.length > limit };
}

app.get<{ Params: { id: string } }>('/public/data-objects/:id', async (request, reply) => {
  const { rows } = await pool.query<Row>('select * from data_objects where id = $1 limit 1', [request.params.id]);
  if (!rows[0] || !rows[0].published) return reply.code(404).send(notFound);
  return dto(rows[0]);
});

// GET /public/data-objects?className=..&category=..&limit=20: one equality filter, newest first.
app.get<{ Querystring: { category: string; limit?: string } }>('/public/data-objects', async (request) =>
  page(`((attributes ->> $2) COLLATE "C") = $3`, 'created_at desc, id desc', ['category', request.query.category], Number(request.query.limit ?? 20)),
);

// POST /public/data-objects/query with `category eq` and `price lt`, ordered by price.
app.post<{ Body: { filters: Array<{ value: unknown }>; limit?: number } }>('/public/data-objects/query', async (request) => {
  const [category, price] = request.body.filters.map((f) => f.value);
  return page(
    `((attributes ->> $2) COLLATE "C") = $3 and ((attributes ->> $4)::numeric) < $5`,
    `((attributes ->> $6)::numeric) asc, id asc`,
    ['category', category, 'price', price, 'price'],
    request.body.limit ?? 20,
  );
});

await app.listen({ port: 0, host: '127.0.0.1' });
const address = app.server.address();
process.send({ port: typeof address === 'object' && address ? address.port : 0 });

const stop = async () => {
  await app.close();
  await pool.end();
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('disconnect', stop);
