import { type App, requestContext } from '../../../kernel/index.ts';
import { MIGRATION_MANAGE } from '../permissions.ts';
import type { MigrationServices } from '../services/index.ts';
import {
  IdParams,
  ImportJobView,
  ImportObjectsAnswer,
  ImportObjectsBody,
  ImportQueued,
  JobIdParams,
} from './schemas.ts';

const tags = ['migration'];
const manage = { permission: MIGRATION_MANAGE };
// The sandbox profile imports nothing from elsewhere.
const imports = { permission: MIGRATION_MANAGE, sandbox: 'block' as const };

/** import-objects and the import jobs (`/migration-sources/import-jobs/:jobId`, cancel, resume). */
export async function importRoutes(app: App, s: MigrationServices): Promise<void> {
  app.post(
    '/migration-sources/:id/import-objects',
    {
      config: imports,
      schema: {
        tags,
        params: IdParams,
        body: ImportObjectsBody,
        response: { 200: ImportObjectsAnswer, 202: ImportQueued },
      },
      // The body is optional: a POST without one (or with JSON null) imports every class inline.
      preValidation: async (request) => {
        request.body ??= {};
      },
    },
    async (request, reply) => {
      const result = await s.imports.start(requestContext(request), request.params.id, request.body);
      if (result.background) return reply.code(202).send({ jobId: result.jobId });
      return result;
    },
  );

  app.get(
    '/migration-sources/import-jobs/:jobId',
    { config: manage, schema: { tags, params: JobIdParams, response: { 200: ImportJobView } } },
    async (request) => s.imports.get(request.params.jobId),
  );

  app.post(
    '/migration-sources/import-jobs/:jobId/cancel',
    { config: manage, schema: { tags, params: JobIdParams, response: { 200: ImportJobView } } },
    async (request) => s.imports.cancel(requestContext(request), request.params.jobId),
  );

  app.post(
    '/migration-sources/import-jobs/:jobId/resume',
    { config: imports, schema: { tags, params: JobIdParams, response: { 200: ImportJobView } } },
    async (request) => s.imports.resume(requestContext(request), request.params.jobId),
  );
}
