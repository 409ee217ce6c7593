import { Readable } from 'node:stream';
import { Type } from '@sinclair/typebox';
import { type Actor, type App, type PluginContributions, SYSTEM, unauthorized } from '../../../kernel/index.ts';
import type { RemoteDataSubjectBody } from '../services/data-subject.ts';
import type { AssetServices } from '../services/index.ts';
import { DataSubjectErasure, DataSubjectFindings, nonJsonAnswer } from './answers.ts';

type Source = PluginContributions['dataSubjectSources'];

const Body = Type.Object(
  {
    identifier: Type.String({ minLength: 1, maxLength: 320 }),
    options: Type.Object(
      {
        // Up to every file of one run: the collector reads the person's own files with their references.
        limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000 })),
        linkedFiles: Type.Optional(Type.Array(Type.String({ maxLength: 2048 }), { maxItems: 200_000 })),
      },
      { additionalProperties: false },
    ),
    dryRun: Type.Optional(Type.Boolean()),
    actor: Type.Optional(
      Type.Object({
        type: Type.Union([Type.Literal('user'), Type.Literal('system')]),
        id: Type.Union([Type.String({ maxLength: 64 }), Type.Null()]),
      }),
    ),
  },
  { additionalProperties: false },
);
/** The files of every object of a person may be named: up to 200,000 references. */
const BODY_LIMIT = 32 * 1024 * 1024;

/**
 * A person's files for core-api in the split deployment (bearer `DAM_SERVICE_TOKEN` only: these
 * routes serve the data-subject plugin of core-api, whose permission lives there): find, the export's
 * records as JSON lines, and erase (bytes first, then rows). core-api calls them when
 * `ASSET_SERVICE_URL` is set (services/data-subject.ts, `remoteDataSubjectSource`).
 */
export async function dataSubjectFileRoutes(app: App, s: AssetServices, source: Source): Promise<void> {
  const tags = ['data subjects'];
  // Declared public for the kernel; the token is checked before the body is read. Blocked under the
  // sandbox profile like the data-subject routes they serve (`/data-subject`).
  const config = { public: true, sandbox: 'block' } as const;
  const onRequest = async (request: Parameters<typeof s.auth.bearer>[0]) => {
    if (!s.auth.bearer(request)) throw unauthorized('The service token is required', 'SERVICE_TOKEN_REQUIRED');
  };
  const route = <R extends object>(response: R) => ({
    config,
    onRequest,
    bodyLimit: BODY_LIMIT,
    schema: { tags, body: Body, response },
  });
  const optionsOf = (body: RemoteDataSubjectBody) => ({
    limit: body.options.limit,
    linkedFiles: body.options.linkedFiles,
  });

  app.post('/api/v1/dam/data-subject/find', route({ 200: DataSubjectFindings }), async (request) =>
    source.find(request.body.identifier, optionsOf(request.body)),
  );
  app.post(
    '/api/v1/dam/data-subject/records',
    route({ 200: nonJsonAnswer('application/x-ndjson', 'one JSON record per line') }),
    async (request, reply) => {
      const records = source.records!(request.body.identifier, optionsOf(request.body));
      async function* lines() {
        for await (const record of records) yield `${JSON.stringify(record)}\n`;
      }
      return reply
        .header('content-type', 'application/x-ndjson; charset=utf-8')
        .header('cache-control', 'no-store')
        .send(Readable.from(lines()));
    },
  );
  app.post('/api/v1/dam/data-subject/erase', route({ 200: DataSubjectErasure }), async (request) => {
    const { actor, dryRun } = request.body;
    return source.erase!(request.body.identifier, optionsOf(request.body), {
      dryRun: dryRun !== false,
      actor: actorOf(actor),
      failedFiles: new Map(),
    });
  });
}

/** The erasing administrator as core-api named them: only the id is read (the record-change actor). */
function actorOf(actor: RemoteDataSubjectBody['actor']): Actor {
  if (actor?.type === 'user' && actor.id)
    return { type: 'user', id: actor.id, email: '', displayName: '', roles: [], permissions: new Set() };
  return { ...SYSTEM, id: actor?.id ?? null, label: 'dam-service' };
}
