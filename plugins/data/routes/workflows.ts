import { Type } from '@sinclair/typebox';
import type { App } from '../../../kernel/plugin.ts';
import { WorkflowInputSchema, WorkflowSchema } from '../services/workflow-definition.ts';
import type { WorkflowService } from '../services/workflow-service.ts';

const ClassParams = Type.Object({ id: Type.String({ format: 'uuid' }) });
const tags = ['data-classes'];

/**
 * GET/PUT/DELETE /data-classes/:id/workflow. Changing a workflow is class management (`objects:write`);
 * reading it needs `objects:read`. DELETE leaves objects' `workflowState` as it is.
 */
export async function workflowRoutes(app: App, deps: { workflows: WorkflowService }): Promise<void> {
  app.get(
    '/data-classes/:id/workflow',
    { config: { permission: 'objects:read' }, schema: { tags, params: ClassParams, response: { 200: WorkflowSchema } } },
    async (request) => deps.workflows.getWorkflow(request.params.id),
  );

  app.put(
    '/data-classes/:id/workflow',
    {
      config: { permission: 'objects:write' },
      schema: { tags, params: ClassParams, body: WorkflowInputSchema, response: { 200: WorkflowSchema } },
    },
    async (request) => deps.workflows.putWorkflow(request.params.id, request.body),
  );

  app.delete(
    '/data-classes/:id/workflow',
    { config: { permission: 'objects:write' }, schema: { tags, params: ClassParams } },
    async (request, reply) => {
      await deps.workflows.deleteWorkflow(request.params.id);
      return reply.code(204).send();
    },
  );
}
