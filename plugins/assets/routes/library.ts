import multipart from '@fastify/multipart';
import { Type } from '@sinclair/typebox';
import { badRequest, type App } from '../../../kernel/index.ts';
import { ASSET_KEYS } from '../permissions.ts';
import { changeActorOf } from '../services/actor.ts';
import type { AssetServices } from '../services/index.ts';
import { lookupAssetPath, normaliseAssetPath } from '../services/paths.ts';
import { multipartFile } from './multipart-body.ts';
import {
  asBool,
  BoolText,
  ByIdOrPath,
  FolderText,
  Id,
  ListQuery,
  Metadata,
  PathText,
  Paths,
  Visibility,
} from './schemas.ts';
import {
  Asset,
  AssetList,
  AssetUrl,
  AssetUrls,
  DeletedAsset,
  Existence,
  Existences,
  RegeneratedThumbnails,
} from './answers.ts';

const UploadQuery = Type.Object(
  {
    folder: Type.Optional(FolderText),
    path: Type.Optional(PathText),
    visibility: Type.Optional(Visibility),
    overwrite: Type.Optional(BoolText),
  },
  { additionalProperties: false },
);

/** The library: upload, list, read, change metadata, move, delete, URLs and existence by path. */
export async function libraryRoutes(app: App, s: AssetServices): Promise<void> {
  const { library, urls } = s;
  const tags = ['assets'];
  await app.register(multipart, {
    limits: {
      fileSize: s.config.ASSET_MAX_FILE_BYTES + 1,
      files: 1,
      fields: 10,
      fieldSize: 80 * 1024,
      parts: 12,
      headerPairs: 50,
    },
  });

  app.post(
    '/api/v1/dam/upload',
    {
      config: { permission: ASSET_KEYS.upload },
      schema: { tags, querystring: UploadQuery, response: { 200: Asset, 201: Asset } },
    },
    async (request, reply) => {
      if (!request.isMultipart())
        throw badRequest('Send the file as multipart/form-data (field "file")', 'file', 'MULTIPART_REQUIRED');
      const file = await multipartFile(request);
      // Fields sent before the file part arrive with it; the query string works as well.
      const field = (name: string) => {
        const f = file.fields[name];
        const one = Array.isArray(f) ? f[0] : f;
        return one && one.type === 'field' ? String(one.value) : undefined;
      };
      const q = request.query;
      const visibility = field('visibility') ?? q.visibility ?? 'public';
      if (visibility !== 'public' && visibility !== 'private')
        throw badRequest('visibility must be public or private', 'visibility');
      let metadata: Record<string, unknown> | undefined;
      const rawMetadata = field('metadata');
      if (rawMetadata !== undefined) {
        try {
          metadata = JSON.parse(rawMetadata);
        } catch {
          throw badRequest('metadata must be a JSON object', 'metadata');
        }
        if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata))
          throw badRequest('metadata must be a JSON object', 'metadata');
      }
      const explicitPath = field('path') ?? q.path;
      const target =
        explicitPath !== undefined
          ? normaliseAssetPath(explicitPath)
          : { folder: field('folder') ?? q.folder ?? '', filename: file.filename };
      if (!target.filename) throw badRequest('The file part needs a file name', 'filename');
      const row = await library.upload({
        body: file.file,
        folder: target.folder,
        filename: target.filename,
        visibility,
        metadata,
        overwrite: asBool((field('overwrite') as '1' | '0' | undefined) ?? q.overwrite),
        actor: changeActorOf(request.actor),
        createdBy: request.actor.type === 'user' ? request.actor.id : null,
      });
      return reply.code(row.version > 1 ? 200 : 201).send(urls.dto(row));
    },
  );

  const list = async (query: {
    folder?: string;
    limit?: number;
    offset?: number;
    search?: string;
    recursive?: boolean;
  }) => {
    const { rows, total } = await library.list(query.folder ?? '', {
      limit: query.limit ?? 100,
      offset: query.offset ?? 0,
      search: query.search,
      recursive: query.recursive,
    });
    return { assets: rows.map((r) => urls.dto(r)), total };
  };
  app.get(
    '/api/v1/dam/assets',
    { config: { permission: ASSET_KEYS.read }, schema: { tags, querystring: ListQuery, response: { 200: AssetList } } },
    async (request) => list(request.query),
  );
  app.post(
    '/api/v1/dam/assets',
    { config: { permission: ASSET_KEYS.read }, schema: { tags, body: ListQuery, response: { 200: AssetList } } },
    async (request) => list(request.body),
  );

  app.get(
    '/api/v1/dam/assets/:id',
    {
      config: { permission: ASSET_KEYS.read },
      schema: { tags, params: Type.Object({ id: Id }), response: { 200: Asset } },
    },
    async (request) => urls.dto(await library.get(request.params.id)),
  );

  app.patch(
    '/api/v1/dam/assets/metadata',
    {
      config: { permission: ASSET_KEYS.manage },
      schema: {
        tags,
        body: Type.Object(
          {
            ...ByIdOrPath,
            metadata: Metadata,
            merge: Type.Optional(Type.Boolean()),
            visibility: Type.Optional(Visibility),
          },
          { additionalProperties: false },
        ),
        response: { 200: Asset },
      },
    },
    async (request) => {
      const { id, path, ...patch } = request.body;
      return urls.dto(await library.updateMetadata({ id, path }, patch, changeActorOf(request.actor)));
    },
  );

  app.post(
    '/api/v1/dam/assets/move',
    {
      config: { permission: ASSET_KEYS.manage },
      schema: {
        tags,
        body: Type.Object(
          {
            ...ByIdOrPath,
            to: Type.Optional(PathText),
            folder: Type.Optional(FolderText),
            filename: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
          },
          { additionalProperties: false },
        ),
        response: { 200: Asset },
      },
    },
    async (request) => {
      const b = request.body;
      if (b.to === undefined && b.folder === undefined && b.filename === undefined)
        throw badRequest('Give to, folder or filename', 'to');
      return urls.dto(
        await library.move(
          { id: b.id, path: b.path },
          { path: b.to, folder: b.folder, filename: b.filename },
          changeActorOf(request.actor),
        ),
      );
    },
  );

  app.delete(
    '/api/v1/dam/asset',
    {
      config: { permission: ASSET_KEYS.manage },
      schema: {
        tags,
        querystring: Type.Object(ByIdOrPath, { additionalProperties: false }),
        response: { 200: DeletedAsset },
      },
    },
    async (request) => {
      const row = await library.delete(request.query, changeActorOf(request.actor));
      return { deleted: true, id: row.id, path: row.path };
    },
  );

  const resolveUrls = async (paths: string[]) => {
    const found = await library.byPaths(paths);
    return paths.map((p) => {
      const row = found.get(lookupAssetPath(p).path);
      return {
        path: p,
        exists: Boolean(row),
        url: row ? urls.delivery(row) : null,
        thumbnailUrl: row ? urls.ref(row).thumbnailUrl : null,
        visibility: row?.visibility ?? null,
      };
    });
  };
  app.get(
    '/api/v1/dam/asset-urls',
    {
      config: { permission: ASSET_KEYS.read },
      schema: {
        tags,
        querystring: Type.Object({ path: PathText }, { additionalProperties: false }),
        response: { 200: AssetUrl },
      },
    },
    async (request) => (await resolveUrls([request.query.path]))[0],
  );
  app.post(
    '/api/v1/dam/asset-urls',
    {
      config: { permission: ASSET_KEYS.read },
      schema: {
        tags,
        body: Type.Object({ paths: Paths }, { additionalProperties: false }),
        response: { 200: AssetUrls },
      },
    },
    async (request) => ({
      results: await resolveUrls(request.body.paths),
    }),
  );

  const exists = async (paths: string[]) => {
    const found = await library.byPaths(paths);
    return paths.map((p) => ({ path: p, exists: found.has(lookupAssetPath(p).path) }));
  };
  app.get(
    '/api/v1/dam/exists',
    {
      config: { permission: ASSET_KEYS.read },
      schema: {
        tags,
        querystring: Type.Object({ path: PathText }, { additionalProperties: false }),
        response: { 200: Existence },
      },
    },
    async (request) => (await exists([request.query.path]))[0],
  );
  app.post(
    '/api/v1/dam/exists',
    {
      config: { permission: ASSET_KEYS.read },
      schema: {
        tags,
        body: Type.Object({ paths: Paths }, { additionalProperties: false }),
        response: { 200: Existences },
      },
    },
    async (request) => ({
      results: await exists(request.body.paths),
    }),
  );

  app.post(
    '/api/v1/dam/regenerate-thumbnails',
    {
      config: { permission: ASSET_KEYS.upload },
      schema: {
        tags,
        body: Type.Object({ ids: Type.Array(Id, { minItems: 1, maxItems: 100 }) }, { additionalProperties: false }),
        response: { 200: RegeneratedThumbnails },
      },
    },
    async (request) => ({
      results: await library.regenerateThumbnails(request.body.ids, changeActorOf(request.actor)),
    }),
  );
}
