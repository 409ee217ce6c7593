import { Type } from '@sinclair/typebox';
import { type App, isUuid, notFound } from '../../../kernel/index.ts';
import { ASSET_KEYS } from '../permissions.ts';
import { assetBundleFiles } from '../services/bundle-files.ts';
import { localFolderFiles, MAX_FOLDER_FILES } from '../services/folder-files.ts';
import type { AssetServices } from '../services/index.ts';
import { BundleFiles, FolderFiles, nonJsonAnswer, StoredBundleFile } from './answers.ts';

/**
 * Website bundle files for core-api in the split deployment (bearer `DAM_SERVICE_TOKEN`, or a signed-in
 * user holding `assets:read`, `assets:upload` to store, like the form-upload attach route): which
 * library files a website references, their bytes, and storing an imported file. core-api calls them
 * when `ASSET_SERVICE_URL` is set (services/bundle-files.ts, `remoteBundleFiles`).
 */
export async function bundleFileRoutes(app: App, s: AssetServices): Promise<void> {
  const files = assetBundleFiles(s);
  const tags = ['website bundles'];
  // Declared public for the kernel; the token or session is checked before the body is read.
  const config = { public: true } as const;
  type Req = Parameters<typeof s.auth.bearer>[0];
  const onRequest = async (request: Req) => s.auth.requireTokenOrPermission(request, ASSET_KEYS.read);
  const onUpload = async (request: Req) => s.auth.requireTokenOrPermission(request, ASSET_KEYS.upload);
  app.post(
    '/api/v1/dam/bundle-files/describe',
    {
      config,
      onRequest,
      schema: {
        tags,
        body: Type.Object({ references: Type.Array(Type.String({ maxLength: 6144 }), { maxItems: 200_000 }) }),
        response: { 200: BundleFiles },
      },
    },
    async (request) => ({ assets: await files.describe(request.body.references) }),
  );
  // Every file of a folder and below (documentation sites read their folder through it).
  const folders = localFolderFiles(s);
  app.get(
    '/api/v1/dam/folder-files',
    {
      config,
      onRequest,
      schema: {
        tags,
        querystring: Type.Object(
          {
            folder: Type.String({ maxLength: 1024 }),
            limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_FOLDER_FILES })),
          },
          { additionalProperties: false },
        ),
        response: { 200: FolderFiles },
      },
    },
    async (request) => folders.folderFiles(request.query.folder, request.query.limit),
  );
  app.get(
    '/api/v1/dam/bundle-files/:id',
    {
      config,
      onRequest,
      schema: {
        tags,
        params: Type.Object({ id: Type.String({ maxLength: 64 }) }),
        response: { 200: nonJsonAnswer('application/octet-stream', 'the stored bytes of the asset') },
      },
    },
    async (request, reply) => {
      if (!isUuid(request.params.id)) throw notFound('Asset not found', 'ASSET_NOT_FOUND');
      return reply.header('content-type', 'application/octet-stream').send(await files.open(request.params.id));
    },
  );
  // The bytes arrive unparsed and stream into the library (413 past ASSET_MAX_FILE_BYTES).
  await app.register(async (scope) => {
    const raw = scope as App;
    raw.removeAllContentTypeParsers();
    raw.addContentTypeParser('*', (_request, _payload, done) => done(null));
    raw.put(
      '/api/v1/dam/bundle-files',
      {
        config,
        onRequest: onUpload,
        schema: {
          tags,
          querystring: Type.Object({
            path: Type.String({ minLength: 1, maxLength: 1024 }),
            visibility: Type.Union([Type.Literal('public'), Type.Literal('private')]),
          }),
          response: { 201: StoredBundleFile },
        },
      },
      async (request, reply) =>
        reply.code(201).send(
          await files.store({
            body: request.raw,
            path: request.query.path,
            visibility: request.query.visibility,
            actor:
              request.actor.type === 'user' ? { type: 'user', id: request.actor.id } : { type: 'system', id: null },
          }),
        ),
    );
  });
}
