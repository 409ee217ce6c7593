import { Value } from '@sinclair/typebox/value';
import { type App, badRequest, requestContext } from '../../../kernel/index.ts';
import { MIGRATION_MANAGE } from '../permissions.ts';
import type { MigrationServices } from '../services/index.ts';
import type { ImportObjectsInput } from '../services/import-jobs.ts';
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

/** `{ classes?, background?, publish? }`, or no body at all: checked here, since the body may be absent. */
function importInputOf(body: unknown): ImportObjectsInput {
  if (body === undefined || body === null) return {};
  if (!Value.Check(ImportObjectsBody, body)) {
    const first = [...Value.Errors(ImportObjectsBody, body)][0];
    const field = (first?.path ?? '').split('/').filter(Boolean).join('.') || 'body';
    throw badRequest(`${field}: ${first?.message ?? 'not valid'}`, field);
  }
  return body;
}

/** import-objects and the import jobs (`/migration-sources/import-jobs/:jobId`, cancel, resume). */
export async function importRoutes(app: App, s: MigrationServices): Promise<void> {
  app.post(
    '/migration-sources/:id/import-objects',
    {
      config: imports,
      schema: {
        tags,
        params: IdParams,
        response: { 200: ImportObjectsAnswer, 202: ImportQueued },
      },
    },
    async (request, reply) => {
      const result = await s.imports.start(requestContext(request), request.params.id, importInputOf(request.body));
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
