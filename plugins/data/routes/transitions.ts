import { Type } from '@sinclair/typebox';
import type { App } from '../../../kernel/index.ts';
import { DATA_KEYS } from '../permissions.ts';
import { changeFlagsOf } from '../services/actor.ts';
import { StoredTransitionSchema } from '../services/workflow-definition.ts';
import type { WorkflowService } from '../services/workflow-service.ts';
import { ObjectView } from './views.ts';

const ObjectParams = Type.Object({ id: Type.String({ format: 'uuid' }) });
const TransitionList = Type.Object({
  place: Type.Union([Type.String(), Type.Null()]),
  transitions: Type.Array(StoredTransitionSchema),
});
const tags = ['data-objects'];

/**
 * GET /data-objects/:id/transitions lists what the caller may run from the object's place;
 * POST /data-objects/:id/transition runs one. Reading the object (`data_objects:read`) is the
 * route's key; the keys a transition declares are checked by the service.
 */
export async function transitionRoutes(app: App, { workflows }: { workflows: WorkflowService }): Promise<void> {
  app.get(
    '/data-objects/:id/transitions',
    {
      config: { permission: DATA_KEYS.objectsRead },
      schema: { tags, params: ObjectParams, response: { 200: TransitionList } },
    },
    async (request) => workflows.availableTransitions(request.actor, request.params.id),
  );

  app.post(
    '/data-objects/:id/transition',
    {
      config: { permission: DATA_KEYS.objectsRead },
      schema: {
        tags,
        params: ObjectParams,
        body: Type.Object(
          { transition: Type.String({ minLength: 1, maxLength: 64 }) },
          { additionalProperties: false },
        ),
        response: { 200: ObjectView },
      },
    },
    async (request) =>
      workflows.runTransition(request.actor, request.params.id, request.body.transition, changeFlagsOf(request)),
  );
}
