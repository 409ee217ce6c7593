import { Type } from '@sinclair/typebox';
import type { App } from '../../../kernel/index.ts';
import { DATA_KEYS } from '../permissions.ts';
import type { DataServices } from '../services/index.ts';
import { IdParams } from './schemas.ts';
import { ComponentUsageView, ComponentView, Deleted } from './views.ts';

const CreateComponent = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 63 }),
    label: Type.Optional(Type.String({ maxLength: 200 })),
    fields: Type.Optional(Type.Array(Type.Unknown(), { maxItems: 200 })),
  },
  { additionalProperties: false },
);
const PatchComponent = Type.Partial(CreateComponent, { additionalProperties: false });

/** Reusable field collections: /data-components. */
export async function componentRoutes(app: App, data: DataServices): Promise<void> {
  const read = { permission: DATA_KEYS.classesRead };
  const manage = { permission: DATA_KEYS.classesManage };
  const tags = ['data-components'];

  app.get(
    '/data-components',
    { config: read, schema: { tags, response: { 200: Type.Object({ components: Type.Array(ComponentView) }) } } },
    async () => ({
      components: await data.components.list(),
    }),
  );

  app.post(
    '/data-components',
    { config: manage, schema: { tags, body: CreateComponent, response: { 201: ComponentView } } },
    async (request, reply) => reply.code(201).send(await data.components.create(request.body)),
  );

  app.get(
    '/data-components/:id',
    { config: read, schema: { tags, params: IdParams, response: { 200: ComponentView } } },
    async (request) => data.components.get(request.params.id),
  );

  app.patch(
    '/data-components/:id',
    { config: manage, schema: { tags, params: IdParams, body: PatchComponent, response: { 200: ComponentView } } },
    async (request) => data.components.update(request.params.id, request.body),
  );

  app.delete(
    '/data-components/:id',
    { config: manage, schema: { tags, params: IdParams, response: Deleted } },
    async (request, reply) => {
      await data.components.remove(request.params.id);
      return reply.code(204).send();
    },
  );

  app.get(
    '/data-components/:id/usage',
    { config: read, schema: { tags, params: IdParams, response: { 200: ComponentUsageView } } },
    async (request) => data.components.usage(request.params.id),
  );
}
