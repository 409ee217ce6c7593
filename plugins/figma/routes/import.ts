import { Type } from '@sinclair/typebox';
import type { App } from '../../../kernel/index.ts';
import type { FigmaImporter } from '../services/importer.ts';
import { ImportAnswer } from './answers.ts';

const ImportBody = Type.Object(
  {
    fileKey: Type.Optional(Type.String({ minLength: 1, maxLength: 128, description: 'the file key of a Figma file' })),
    nodeId: Type.Optional(
      Type.String({ minLength: 3, maxLength: 200, description: 'a frame of the file, e.g. `12:34`' }),
    ),
    url: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 2000,
        description:
          'a Figma link (`https://www.figma.com/design/<key>/<name>?node-id=12-34`): fileKey and nodeId are read from it',
      }),
    ),
    websiteId: Type.String({ format: 'uuid' }),
    locale: Type.String({ minLength: 2, maxLength: 35, pattern: '^[A-Za-z]{2,3}([_-][A-Za-z0-9]{2,8})*$' }),
    path: Type.Optional(Type.String({ minLength: 1, maxLength: 2000 })),
    title: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    create: Type.Optional(Type.Boolean({ description: 'true: also create a draft page from the tree' })),
  },
  { additionalProperties: false },
);

/** `POST /figma/import`: a design file or frame as a page node tree, its images in the asset library. */
export function importRoutes(app: App, importer: FigmaImporter): void {
  app.post(
    '/figma/import',
    {
      // Reading a design from elsewhere: off in the sandbox profile.
      config: { permission: 'pages:edit', sandbox: 'block' },
      schema: {
        tags: ['figma'],
        description:
          'Needs `pages:edit`, and `assets:upload` when the design has images. Figma errors: 403 FIGMA_ACCESS_DENIED, 404 FIGMA_NOT_FOUND or FIGMA_NODE_NOT_FOUND, 429 FIGMA_RATE_LIMITED (Retry-After), 422 FIGMA_FILE_TOO_LARGE, 502 FIGMA_UPSTREAM_FAILED; 409 FIGMA_TOKEN_MISSING without a token.',
        body: ImportBody,
        response: { 200: ImportAnswer, 201: ImportAnswer },
      },
    },
    async (request, reply) => {
      const result = await importer.import(request.actor, request.body);
      return reply.code(result.page ? 201 : 200).send(result as typeof result & { content: Record<string, unknown> });
    },
  );
}
