import { Type } from '@sinclair/typebox';
import { requestContext, type App } from '../../../kernel/index.ts';
import { DATA_KEYS } from '../permissions.ts';
import { writeContextOf } from '../services/actor.ts';
import type { DataServices } from '../services/index.ts';
import { IdParams } from './schemas.ts';
import { ClassView, Deleted } from './views.ts';

const ClassBody = {
  name: Type.String({ minLength: 1, maxLength: 63 }),
  label: Type.String({ maxLength: 200 }),
  fields: Type.Array(Type.Unknown(), { maxItems: 200 }),
  viewConfig: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]),
  retentionDays: Type.Union([Type.Integer({ minimum: 1, maximum: 36500 }), Type.Null()]),
};
const CreateClass = Type.Object(
  {
    name: ClassBody.name,
    label: Type.Optional(ClassBody.label),
    fields: Type.Optional(ClassBody.fields),
    viewConfig: Type.Optional(ClassBody.viewConfig),
    retentionDays: Type.Optional(ClassBody.retentionDays),
  },
  { additionalProperties: false },
);
const PatchClass = Type.Object(
  {
    name: Type.Optional(ClassBody.name),
    label: Type.Optional(ClassBody.label),
    fields: Type.Optional(ClassBody.fields),
    viewConfig: Type.Optional(ClassBody.viewConfig),
    retentionDays: Type.Optional(ClassBody.retentionDays),
  },
  { additionalProperties: false },
);

/** Class definitions: /data-classes. Field types and rules are in the plugin README. */
export async function classRoutes(app: App, data: DataServices): Promise<void> {
  const read = { permission: DATA_KEYS.classesRead };
  const manage = { permission: DATA_KEYS.classesManage };
  const tags = ['data-classes'];

  app.get(
    '/data-classes',
    { config: read, schema: { tags, response: { 200: Type.Object({ classes: Type.Array(ClassView) }) } } },
    async () => ({ classes: await data.classes.list() }),
  );

  app.post(
    '/data-classes',
    { config: manage, schema: { tags, body: CreateClass, response: { 201: ClassView } } },
    async (request, reply) => reply.code(201).send(await data.classes.create(requestContext(request), request.body)),
  );

  app.get(
    '/data-classes/:id',
    { config: read, schema: { tags, params: IdParams, response: { 200: ClassView } } },
    async (request) => data.classes.get(request.params.id),
  );

  app.patch(
    '/data-classes/:id',
    { config: manage, schema: { tags, params: IdParams, body: PatchClass, response: { 200: ClassView } } },
    async (request) => data.classes.update(requestContext(request), request.params.id, request.body),
  );

  app.delete(
    '/data-classes/:id',
    { config: manage, schema: { tags, params: IdParams, response: Deleted } },
    async (request, reply) => {
      await data.classes.remove(requestContext(request), request.params.id);
      return reply.code(204).send();
    },
  );

  app.get(
    '/data-classes/:id/object-count',
    { config: read, schema: { tags, params: IdParams, response: { 200: Type.Object({ count: Type.Integer() }) } } },
    async (request) => ({
      count: await data.classes.objectCount(request.params.id),
    }),
  );

  app.post(
    '/data-classes/:id/empty',
    {
      config: manage,
      schema: {
        tags,
        params: IdParams,
        body: Type.Object({ confirm: Type.String() }, { additionalProperties: false }),
        response: { 200: Type.Object({ deleted: Type.Integer() }) },
      },
    },
    async (request) => ({
      deleted: await data.classes.empty(
        requestContext(request),
        writeContextOf(request),
        request.params.id,
        request.body.confirm,
      ),
    }),
  );
}
