import { Type } from '@sinclair/typebox';
import type { App } from '../../../kernel/index.ts';
import { DEFAULT_PREVIEW_DAYS, type PreviewService } from '../services/preview-service.ts';
import { Deleted, ObjectView } from './views.ts';

const ObjectParams = Type.Object({ id: Type.String({ format: 'uuid' }) });
const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);
const PreviewLink = Type.Object({
  token: Type.String(),
  url: Type.String(),
  objectId: Type.String(),
  state: Type.Union([Type.Literal('active'), Type.Literal('revoked'), Type.Literal('expired')]),
  revoked: Type.Boolean(),
  revokedAt: Nullable(Type.String()),
  expiresAt: Nullable(Type.String()),
  viewCount: Type.Integer(),
  lastViewedAt: Nullable(Type.String()),
  createdBy: Nullable(Type.String()),
  createdAt: Type.String(),
});
const tags = ['data-objects'];

/**
 * Preview links. Creating, listing and deleting need `objects:publish`: a link shows an unpublished
 * object to anyone holding it, and the list shows the tokens themselves. The view route is public.
 */
export async function previewLinkRoutes(app: App, { previews }: { previews: PreviewService }): Promise<void> {
  app.post(
    '/data-objects/:id/preview-link',
    {
      config: { permission: 'objects:publish' },
      schema: {
        tags,
        params: ObjectParams,
        body: Type.Object(
          { expiresInDays: Type.Optional(Type.Integer({ minimum: 1, maximum: 365 })) },
          { additionalProperties: false },
        ),
        response: { 201: Type.Object({ token: Type.String(), url: Type.String(), expiresAt: Type.String() }) },
      },
      // The body is optional: a POST without one means "the default expiry".
      preValidation: async (request) => {
        request.body ??= {};
      },
    },
    async (request, reply) => {
      const link = await previews.create(
        request.actor,
        request.params.id,
        request.body.expiresInDays ?? DEFAULT_PREVIEW_DAYS,
      );
      return reply.code(201).send(link);
    },
  );

  app.get(
    '/data-objects/:id/preview-links',
    {
      config: { permission: 'objects:publish' },
      schema: { tags, params: ObjectParams, response: { 200: Type.Array(PreviewLink) } },
    },
    async (request) => previews.list(request.params.id),
  );

  app.delete(
    '/data-objects/preview-links/:token',
    {
      config: { permission: 'objects:publish' },
      schema: {
        tags,
        params: Type.Object({ token: Type.String({ minLength: 1, maxLength: 128 }) }),
        querystring: Type.Object({ permanent: Type.Optional(Type.Boolean()) }),
        response: Deleted,
      },
    },
    async (request, reply) => {
      await previews.delete(request.params.token, request.query.permanent === true);
      return reply.code(204).send();
    },
  );

  app.get(
    '/preview/objects/:token',
    {
      config: { public: true },
      schema: { tags: ['public'], params: Type.Object({ token: Type.String() }), response: { 200: ObjectView } },
    },
    async (request, reply) => {
      const object = await previews.view(request.params.token);
      // A share link of possibly unpublished content: never cached by intermediaries, never indexed.
      return reply.header('cache-control', 'no-store').header('x-robots-tag', 'noindex').send(object);
    },
  );
}
