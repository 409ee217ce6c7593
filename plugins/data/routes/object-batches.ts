import { Type } from '@sinclair/typebox';
import type { App } from '../../../kernel/index.ts';
import { DATA_KEYS } from '../permissions.ts';
import { writeContextOf } from '../services/actor.ts';
import { BULK_MAX } from '../services/bulk-service.ts';
import type { DataServices } from '../services/index.ts';
import { Attributes, Ids, QueryBody } from './schemas.ts';
import { BatchResultView, BulkResultView, ObjectBatchView, ObjectQueryPage } from './views.ts';

const BulkBody = Type.Object(
  {
    classId: Type.Optional(Type.String()),
    className: Type.Optional(Type.String()),
    objects: Type.Array(
      Type.Object(
        {
          key: Type.Optional(Type.Union([Type.String(), Type.Null()])),
          locale: Type.Optional(Type.String()),
          attributes: Type.Optional(Attributes),
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: BULK_MAX },
    ),
    onConflict: Type.Optional(Type.Literal('update')),
  },
  { additionalProperties: false },
);
const BatchBody = Type.Object(
  {
    ids: Type.Array(Type.String(), { minItems: 1, maxItems: 100 }),
    action: Type.Union([
      Type.Literal('publish'),
      Type.Literal('unpublish'),
      Type.Literal('delete'),
      Type.Literal('resolve-assets'),
    ]),
  },
  { additionalProperties: false },
);

/** Several objects per call: bulk create/update, batch read and actions, class queries. */
export async function objectBatchRoutes(app: App, data: DataServices): Promise<void> {
  const read = { permission: DATA_KEYS.objectsRead };
  const write = { permission: DATA_KEYS.objectsWrite };
  const tags = ['data-objects'];

  app.post(
    '/data-objects/bulk',
    { config: write, schema: { tags, body: BulkBody, response: { 200: BulkResultView } } },
    async (request) => data.bulk.run(writeContextOf(request), request.body),
  );

  app.get(
    '/data-objects/batch',
    { config: read, schema: { tags, querystring: Type.Object({ ids: Ids }), response: { 200: ObjectBatchView } } },
    async (request) => data.reads.batch(request.query.ids, 'admin'),
  );

  app.post(
    '/data-objects/batch',
    { config: write, schema: { tags, body: BatchBody, response: { 200: BatchResultView } } },
    async (request) => ({
      results: await data.batch.run(writeContextOf(request), request.body.ids, request.body.action),
    }),
  );

  app.post(
    '/data-objects/query',
    {
      config: read,
      schema: {
        tags,
        summary: 'Objects of a class by filters and sort, drafts included; keyset pages with after/nextCursor',
        body: QueryBody,
        response: { 200: ObjectQueryPage },
      },
    },
    async (request) => {
      const { rows, total, hasMore, nextCursor } = await data.query.run(request.body, 'admin');
      return { objects: await data.reads.toDtos(rows), total, hasMore, nextCursor };
    },
  );
}
