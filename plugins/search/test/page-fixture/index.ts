import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Type } from '@sinclair/typebox';
import { badRequest, definePlugin, notFound, type RecordHooks, type Tx } from '../../../../kernel/index.ts';
import type { SearchDocument, SearchSource } from '../../ports.ts';
import { ANY_JSON_ANSWER } from '../../../../test/helpers/any-answer.ts';

/**
 * A stand-in for a plugin that owns pages (websites are built elsewhere): a real table, routes that
 * write it and announce `page` changes in their transaction, and a `page` search source (which throws
for a page titled `source-failure...`). It proves
 * that the registry works for any plugin, not only the data plugin. `fail: true` on a write makes it
 * throw after the announcement, so the transaction (and the indexed document) rolls back.
 */
interface PageRow {
  id: string;
  website_id: string;
  locale: string;
  slug: string;
  title: string;
  body: string;
  published: boolean;
  indexable: boolean;
  updated_at: Date;
}

const here = path.dirname(fileURLToPath(import.meta.url));
const TABLE = 'search_fixture_pages';

function pageDocument(row: PageRow): SearchDocument {
  return {
    sourceType: 'page',
    sourceId: row.id,
    websiteId: row.website_id,
    locale: row.locale,
    title: row.title,
    body: row.body,
    url: `/${row.locale}/${row.slug}`,
    public: row.published && row.indexable,
    meta: { slug: row.slug },
    updatedAt: new Date(row.updated_at),
  };
}

const pageSource: SearchSource = {
  recordType: 'page',
  async documentsFor(change, trx) {
    const row: PageRow | undefined = await trx(TABLE).where({ id: change.recordId }).first();
    if (row?.title.startsWith('source-failure')) throw new Error('the page source failed (fixture)');
    return row ? [pageDocument(row)] : [];
  },
  async *allDocuments(trx) {
    let after = '00000000-0000-0000-0000-000000000000';
    for (;;) {
      const rows: PageRow[] = await trx(TABLE).where('id', '>', after).orderBy('id').limit(2);
      if (rows.length === 0) return;
      yield rows.map(pageDocument);
      after = rows[rows.length - 1].id;
    }
  },
};

const PageBody = Type.Object({
  websiteId: Type.Optional(Type.String({ maxLength: 100 })),
  locale: Type.Optional(Type.String({ maxLength: 10 })),
  slug: Type.Optional(Type.String({ maxLength: 100 })),
  title: Type.Optional(Type.String({ maxLength: 1000 })),
  body: Type.Optional(Type.String({ maxLength: 100_000 })),
  published: Type.Optional(Type.Boolean()),
  indexable: Type.Optional(Type.Boolean()),
  fail: Type.Optional(Type.Boolean()),
});

async function announce(hooks: RecordHooks, trx: Tx, id: string, kind: string) {
  await hooks.announce(trx, { recordType: 'page', recordId: id, kind, actor: { type: 'system', id: null } });
}

export default definePlugin({
  id: 'search-page-fixture',
  processes: ['core-api'],
  needs: ['db', 'recordHooks'],
  migrations: path.join(here, 'migrations'),
  contributes: { searchSources: () => pageSource },
  routes(app, { db, recordHooks }) {
    const config = { permission: 'objects:write' };
    app.post(
      '/test-pages',
      { config, schema: { response: ANY_JSON_ANSWER, body: PageBody } },
      async (request, reply) => {
        const { fail, websiteId, ...b } = request.body;
        const row = await db.transaction(async (trx) => {
          const [created]: PageRow[] = await trx(TABLE)
            .insert({
              website_id: websiteId ?? 'site-1',
              locale: b.locale ?? 'en',
              slug: b.slug ?? 'page',
              title: b.title ?? 'Untitled',
              body: b.body ?? '',
              published: b.published ?? false,
              indexable: b.indexable ?? true,
            })
            .returning('*');
          await announce(recordHooks, trx, created.id, 'created');
          if (fail) throw badRequest('refused after the announcement (fixture)', 'fail');
          return created;
        });
        return reply.code(201).send({ id: row.id });
      },
    );
    app.patch(
      '/test-pages/:id',
      {
        config,
        schema: {
          response: ANY_JSON_ANSWER,
          params: Type.Object({ id: Type.String({ format: 'uuid' }) }),
          body: PageBody,
        },
      },
      async (request) => {
        const { fail, websiteId, ...b } = request.body;
        await db.transaction(async (trx) => {
          const changes = {
            ...b,
            ...(websiteId !== undefined ? { website_id: websiteId } : {}),
            updated_at: trx.fn.now(),
          };
          const n = await trx(TABLE).where({ id: request.params.id }).update(changes);
          if (n === 0) throw notFound();
          await announce(recordHooks, trx, request.params.id, 'updated');
          if (fail) throw badRequest('refused after the announcement (fixture)', 'fail');
        });
        return { ok: true };
      },
    );
    app.delete(
      '/test-pages/:id',
      { config, schema: { response: ANY_JSON_ANSWER, params: Type.Object({ id: Type.String({ format: 'uuid' }) }) } },
      async (request) => {
        await db.transaction(async (trx) => {
          if ((await trx(TABLE).where({ id: request.params.id }).delete()) === 0) throw notFound();
          await announce(recordHooks, trx, request.params.id, 'deleted');
        });
        return { ok: true };
      },
    );
  },
});
