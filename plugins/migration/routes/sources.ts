import { Type } from '@sinclair/typebox';
import { type App, emptyAnswer, requestContext } from '../../../kernel/index.ts';
import { MIGRATION_MANAGE } from '../permissions.ts';
import type { MigrationServices } from '../services/index.ts';
import type { ConnectionInput } from '../services/sources.ts';
import {
  ClassNames,
  ComponentNames,
  ExtractComponentsAnswer,
  CreateSource,
  IdParams,
  ImportClassesAnswer,
  PatchSource,
  PreviewAnswer,
  SourceView,
  TestReport,
} from './schemas.ts';

const tags = ['migration'];

const manage = { permission: MIGRATION_MANAGE };
// The body is optional: a POST without one (or with JSON null) means every class.
const optionalBody = async (request: { body: unknown }) => {
  request.body ??= {};
};
// The sandbox profile imports nothing from elsewhere: every route that reads a source is blocked.
const imports = { permission: MIGRATION_MANAGE, sandbox: 'block' as const };

/** /migration-sources: the sources themselves, their connection test and the class steps. */
export async function sourceRoutes(app: App, s: MigrationServices): Promise<void> {
  app.get(
    '/migration-sources',
    { config: manage, schema: { tags, response: { 200: Type.Object({ sources: Type.Array(SourceView) }) } } },
    async () => ({ sources: await s.sources.list() }),
  );

  app.post(
    '/migration-sources',
    { config: manage, schema: { tags, body: CreateSource, response: { 201: SourceView } } },
    async (request, reply) => {
      const body = request.body;
      const created = await s.sources.create(requestContext(request), {
        ...body,
        connection: body.connection as ConnectionInput,
      });
      return reply.code(201).send(created);
    },
  );

  app.get(
    '/migration-sources/:id',
    { config: manage, schema: { tags, params: IdParams, response: { 200: SourceView } } },
    async (request) => s.sources.get(request.params.id),
  );

  app.patch(
    '/migration-sources/:id',
    { config: manage, schema: { tags, params: IdParams, body: PatchSource, response: { 200: SourceView } } },
    async (request) => s.sources.update(requestContext(request), request.params.id, request.body),
  );

  app.delete(
    '/migration-sources/:id',
    {
      config: manage,
      schema: { tags, params: IdParams, response: { 204: emptyAnswer('Deleted: nothing imported is removed') } },
    },
    async (request, reply) => {
      await s.sources.remove(requestContext(request), request.params.id);
      return reply.code(204).send();
    },
  );

  app.post(
    '/migration-sources/:id/test',
    { config: imports, schema: { tags, params: IdParams, response: { 200: TestReport } } },
    async (request) => s.test(request.params.id),
  );

  app.post(
    '/migration-sources/:id/preview-classes',
    {
      config: imports,
      schema: { tags, params: IdParams, body: ClassNames, response: { 200: PreviewAnswer } },
      preValidation: optionalBody,
    },
    async (request) => s.classImports.preview(request.params.id, request.body.classes),
  );

  app.post(
    '/migration-sources/:id/import-classes',
    {
      config: imports,
      schema: { tags, params: IdParams, body: ClassNames, response: { 200: ImportClassesAnswer } },
      preValidation: optionalBody,
    },
    async (request) => s.classImports.importClasses(requestContext(request), request.params.id, request.body.classes),
  );

  app.post(
    '/migration-sources/:id/extract-components',
    {
      config: imports,
      schema: { tags, params: IdParams, body: ComponentNames, response: { 200: ExtractComponentsAnswer } },
      preValidation: optionalBody,
    },
    async (request) => s.components.extract(requestContext(request), request.params.id, request.body.components),
  );
}
