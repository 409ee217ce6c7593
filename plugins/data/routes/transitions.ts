import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { App } from '../../../kernel/plugin.ts';
import type { WorkflowService } from '../services/workflow-service.ts';

const ObjectParams = Type.Object({ id: Type.String({ format: 'uuid' }) });
const TransitionList = Type.Object({
  place: Type.Union([Type.String(), Type.Null()]),
  transitions: Type.Array(
    Type.Object({ name: Type.String(), label: Type.String(), from: Type.Array(Type.String()), to: Type.String(), permissions: Type.Array(Type.String()) }),
  ),
});
const tags = ['data-objects'];

/** `X-Cms-Flow: stop` marks the write as the end of a flow (no subscription starts from it). */
function flowFlags(request: FastifyRequest): Record<string, string> | undefined {
  return request.headers['x-cms-flow'] === 'stop' ? { flow: 'stop' } : undefined;
}

/**
 * GET /data-objects/:id/transitions lists what the caller may run from the object's place;
 * POST /data-objects/:id/transition runs one. Reading the object is the route's key; the keys a
 * transition declares are checked by the service.
 */
export async function transitionRoutes(app: App, deps: { workflows: WorkflowService }): Promise<void> {
  app.get(
    '/data-objects/:id/transitions',
    { config: { permission: 'objects:read' }, schema: { tags, params: ObjectParams, response: { 200: TransitionList } } },
    async (request) => deps.workflows.availableTransitions(request.actor, request.params.id),
  );

  app.post(
    '/data-objects/:id/transition',
    {
      config: { permission: 'objects:read' },
      schema: {
        tags,
        params: ObjectParams,
        body: Type.Object({ transition: Type.String({ minLength: 1, maxLength: 64 }) }, { additionalProperties: false }),
      },
    },
    async (request) => deps.workflows.runTransition(request.actor, request.params.id, request.body.transition, flowFlags(request)),
  );
}
