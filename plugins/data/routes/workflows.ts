import { Type } from '@sinclair/typebox';
import type { App } from '../../../kernel/index.ts';
import { DATA_KEYS } from '../permissions.ts';
import { WorkflowInputSchema, WorkflowSchema } from '../services/workflow-definition.ts';
import type { WorkflowService } from '../services/workflow-service.ts';
import { Deleted } from './views.ts';

const ClassParams = Type.Object({ id: Type.String({ format: 'uuid' }) });
const tags = ['data-classes'];

/**
 * GET/PUT/DELETE /data-classes/:id/workflow. Changing a workflow is class management
 * (`data_classes:manage`, granted by objects:write); reading it is `data_classes:read` (granted by
 * objects:read). DELETE leaves objects' `workflowState` as it is.
 */
export async function workflowRoutes(app: App, { workflows }: { workflows: WorkflowService }): Promise<void> {
  app.get(
    '/data-classes/:id/workflow',
    {
      config: { permission: DATA_KEYS.classesRead },
      schema: { tags, params: ClassParams, response: { 200: WorkflowSchema } },
    },
    async (request) => workflows.getWorkflow(request.params.id),
  );

  app.put(
    '/data-classes/:id/workflow',
    {
      config: { permission: DATA_KEYS.classesManage },
      schema: { tags, params: ClassParams, body: WorkflowInputSchema, response: { 200: WorkflowSchema } },
    },
    async (request) => workflows.putWorkflow(request.params.id, request.body),
  );

  app.delete(
    '/data-classes/:id/workflow',
    { config: { permission: DATA_KEYS.classesManage }, schema: { tags, params: ClassParams, response: Deleted } },
    async (request, reply) => {
      await workflows.deleteWorkflow(request.params.id);
      return reply.code(204).send();
    },
  );
}
