import { Type } from '@sinclair/typebox';
import type { App } from '../../../kernel/index.ts';
import { DATA_KEYS } from '../permissions.ts';
import { writeContextOf } from '../services/actor.ts';
import type { DataServices } from '../services/index.ts';
import { IdParams, Paging } from './schemas.ts';
import { Deleted, DraftDiffView, ObjectView, PendingChangesView, ScheduleView } from './views.ts';

/**
 * Working copies of published objects: list, compare with live, publish (objects:publish, checked in
 * the service so ENFORCE_PUBLISH_PERMISSION=0 lets writers publish as elsewhere) and discard.
 */
export async function draftRoutes(app: App, data: DataServices): Promise<void> {
  const read = { permission: DATA_KEYS.objectsRead };
  const write = { permission: DATA_KEYS.objectsWrite };
  const tags = ['data-objects'];

  app.get(
    '/data-objects/drafts',
    {
      config: read,
      schema: {
        tags,
        querystring: Type.Object({ classId: Type.Optional(Type.String({ format: 'uuid' })), ...Paging }),
        response: { 200: PendingChangesView },
      },
    },
    async (request) => ({ drafts: await data.drafts.pending(request.query) }),
  );

  app.get(
    '/data-objects/schedules',
    {
      config: read,
      schema: {
        tags,
        summary: 'Scheduled publishing and unpublishing, soonest first',
        querystring: Type.Object(Paging),
        response: { 200: Type.Object({ schedules: Type.Array(ScheduleView) }) },
      },
    },
    async (request) => ({ schedules: await data.schedules.list(request.query) }),
  );

  app.get(
    '/data-objects/:id/schedule',
    {
      config: read,
      schema: {
        tags,
        params: IdParams,
        response: { 200: Type.Object({ schedule: Type.Union([ScheduleView, Type.Null()]) }) },
      },
    },
    async (request) => ({ schedule: await data.schedules.get(request.params.id) }),
  );

  app.put(
    '/data-objects/:id/schedule',
    {
      config: write,
      schema: {
        tags,
        summary: 'When the object (with its working copy) goes live and offline; needs objects:publish',
        params: IdParams,
        body: Type.Object(
          {
            publishAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
            unpublishAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
          },
          { additionalProperties: false },
        ),
        response: { 200: Type.Object({ schedule: Type.Union([ScheduleView, Type.Null()]) }) },
      },
    },
    async (request) => ({
      schedule: await data.schedules.set(writeContextOf(request), request.params.id, request.body),
    }),
  );

  app.get(
    '/data-objects/:id/draft/diff',
    { config: read, schema: { tags, params: IdParams, response: { 200: DraftDiffView } } },
    async (request) => data.drafts.diff(request.params.id),
  );

  app.post(
    '/data-objects/:id/publish-draft',
    { config: write, schema: { tags, params: IdParams, response: { 200: ObjectView } } },
    async (request) => data.drafts.publish(writeContextOf(request), request.params.id),
  );

  app.delete(
    '/data-objects/:id/draft',
    { config: write, schema: { tags, params: IdParams, response: Deleted } },
    async (request, reply) => {
      await data.drafts.discard(writeContextOf(request), request.params.id);
      return reply.code(204).send();
    },
  );
}
