import { Type } from '@sinclair/typebox';
import type { App } from '../../../kernel/index.ts';
import { ASSET_KEYS } from '../permissions.ts';
import { changeActorOf } from '../services/actor.ts';
import type { AssetServices } from '../services/index.ts';
import { CreatedFolder, DeletedFolder, FolderList } from './answers.ts';
import { FolderText, PathText } from './schemas.ts';

/** Folders: path-based, listed one level at a time; deleting one removes everything under it. */
export async function folderRoutes(app: App, { library }: AssetServices): Promise<void> {
  const tags = ['assets'];
  app.get(
    '/api/v1/dam/folders',
    {
      config: { permission: ASSET_KEYS.read },
      schema: {
        tags,
        querystring: Type.Object({ parent: Type.Optional(FolderText) }, { additionalProperties: false }),
        response: { 200: FolderList },
      },
    },
    async (request) => ({
      folders: (await library.listFolders(request.query.parent ?? '')).map((f) => ({
        path: f.path,
        name: f.name,
        createdAt: f.createdAt.toISOString(),
      })),
    }),
  );
  app.post(
    '/api/v1/dam/folders',
    {
      config: { permission: ASSET_KEYS.upload },
      schema: {
        tags,
        body: Type.Object({ path: PathText }, { additionalProperties: false }),
        response: { 200: CreatedFolder, 201: CreatedFolder },
      },
    },
    async (request, reply) => {
      const out = await library.createFolder(request.body.path);
      return reply.code(out.created ? 201 : 200).send(out);
    },
  );
  app.delete(
    '/api/v1/dam/folders',
    {
      config: { permission: ASSET_KEYS.manage },
      schema: {
        tags,
        querystring: Type.Object({ path: PathText }, { additionalProperties: false }),
        response: { 200: DeletedFolder },
      },
    },
    async (request) => library.deleteFolder(request.query.path, changeActorOf(request.actor)),
  );
}
