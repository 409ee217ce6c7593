import { Type } from '@sinclair/typebox';
import type { App } from '../../../kernel/index.ts';
import { toObjectDto } from '../model.ts';
import { DATA_KEYS } from '../permissions.ts';
import { writeContextOf } from '../services/actor.ts';
import { toStaffDto } from '../services/drafts.ts';
import type { DataServices } from '../services/index.ts';
import { Attributes, IdParams, Paging } from './schemas.ts';
import { Deleted, ObjectList, ObjectView } from './views.ts';

const CreateObject = Type.Object(
  {
    classId: Type.Optional(Type.String()),
    className: Type.Optional(Type.String()),
    locale: Type.Optional(Type.String()),
    key: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    parentId: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    published: Type.Optional(Type.Boolean()),
    attributes: Type.Optional(Attributes),
    translationGroupId: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);
const PatchObject = Type.Object(
  {
    // Null first: the request validator coerces types, and would turn a null tried against the
    // string first into "" (then refused as a key, or taken as a parent id).
    key: Type.Optional(Type.Union([Type.Null(), Type.String()])),
    parentId: Type.Optional(Type.Union([Type.Null(), Type.String()])),
    published: Type.Optional(Type.Boolean()),
    attributes: Type.Optional(Attributes),
  },
  { additionalProperties: false },
);
/** `?version=live` reads the live row of an object that has a working copy. */
const VersionQuery = Type.Object({ version: Type.Optional(Type.Union([Type.Literal('live'), Type.Literal('draft')])) });
/** `?draft=true`: a publisher's save of a published object goes to its working copy instead of live. */
const DraftQuery = Type.Object({ draft: Type.Optional(Type.Union([Type.Literal('true'), Type.Literal('false')])) });
const ListQuery = Type.Object({
  classId: Type.Optional(Type.String()),
  locale: Type.Optional(Type.String()),
  ...Paging,
});

/** Data objects (one row per language): /data-objects and their translations. */
export async function objectRoutes(app: App, data: DataServices): Promise<void> {
  const read = { permission: DATA_KEYS.objectsRead };
  const write = { permission: DATA_KEYS.objectsWrite };
  const tags = ['data-objects'];

  app.get(
    '/data-objects',
    {
      config: read,
      schema: {
        tags,
        querystring: ListQuery,
        response: {
          200: Type.Composite([ObjectList, Type.Object({ total: Type.Integer(), hasMore: Type.Boolean() })]),
        },
      },
    },
    async (request) => data.reads.list({ ...request.query, publishedOnly: false }),
  );

  app.post(
    '/data-objects',
    { config: write, schema: { tags, body: CreateObject, response: { 201: ObjectView } } },
    async (request, reply) => {
      const { row, className } = await data.objects.create(writeContextOf(request), request.body);
      return reply.code(201).send(toObjectDto(row, className));
    },
  );

  app.get(
    '/data-objects/translations/:translationGroupId',
    {
      config: read,
      schema: {
        tags,
        params: Type.Object({ translationGroupId: Type.String() }),
        response: { 200: ObjectList },
      },
    },
    async (request) => ({ objects: await data.reads.translationGroup(request.params.translationGroupId) }),
  );

  app.get(
    '/data-objects/:id',
    {
      config: read,
      schema: { tags, params: IdParams, querystring: VersionQuery, response: { 200: ObjectView } },
    },
    async (request) => data.drafts.staffView(request.params.id, request.query.version ?? 'draft'),
  );

  app.patch(
    '/data-objects/:id',
    {
      config: write,
      schema: { tags, params: IdParams, querystring: DraftQuery, body: PatchObject, response: { 200: ObjectView } },
    },
    async (request) => {
      const { row, className, draft } = await data.objects.update(
        writeContextOf(request),
        request.params.id,
        request.body,
        undefined,
        { draft: request.query.draft === 'true' },
      );
      return toStaffDto(row, className, draft);
    },
  );

  app.delete(
    '/data-objects/:id',
    { config: write, schema: { tags, params: IdParams, response: Deleted } },
    async (request, reply) => {
      await data.objects.remove(writeContextOf(request), request.params.id);
      return reply.code(204).send();
    },
  );

  app.get(
    '/data-objects/:id/translations',
    { config: read, schema: { tags, params: IdParams, response: { 200: ObjectList } } },
    async (request) => ({
      objects: await data.reads.translationsOf(request.params.id),
    }),
  );
}
