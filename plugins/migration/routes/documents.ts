import { type App, requestContext } from '../../../kernel/index.ts';
import { MIGRATION_MANAGE } from '../permissions.ts';
import type { MigrationServices } from '../services/index.ts';
import {
  IdParams,
  ImportDocumentsAnswer,
  ImportDocumentsBody,
  PromoteDocumentsAnswer,
  PromoteDocumentsBody,
} from './schemas.ts';

const tags = ['migration'];
// The sandbox profile imports nothing from elsewhere.
const imports = { permission: MIGRATION_MANAGE, sandbox: 'block' as const };

/** import-documents (pages, staged pages, snippets) and promote-documents (the staged ones). */
export async function documentRoutes(app: App, s: MigrationServices): Promise<void> {
  app.post(
    '/migration-sources/:id/import-documents',
    {
      config: imports,
      schema: { tags, params: IdParams, body: ImportDocumentsBody, response: { 200: ImportDocumentsAnswer } },
    },
    async (request) => s.documents.import(requestContext(request), request.params.id, request.body),
  );

  app.post(
    '/migration-sources/:id/promote-documents',
    {
      config: imports,
      schema: { tags, params: IdParams, body: PromoteDocumentsBody, response: { 200: PromoteDocumentsAnswer } },
    },
    async (request) => s.documents.promote(requestContext(request), request.params.id, request.body),
  );
}
