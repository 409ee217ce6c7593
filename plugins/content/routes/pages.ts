import { Type } from '@sinclair/typebox';
import type { App } from '../../../kernel/index.ts';
import type { ContentServices } from '../services/index.ts';
import { toPageDto } from '../services/pages.ts';
import { entityTag } from '../services/preconditions.ts';
import { renderEmailHtml } from '../services/render.ts';
import { Deleted, PageAnswer, RenderedHtml, ThumbnailAnswer, VersionAnswer, VersionDiffAnswer } from './answers.ts';
import {
  Id,
  IdParams,
  ListQuery,
  Locale,
  Name,
  PagePath,
  Seo,
  Thumbnail,
  Tree,
  IfMatchHeaders,
  withEntityTag,
} from './schemas.ts';
import { DraftQuery, VERSION_NOTE, VersionQuery, draftNote } from './working-copy-routes.ts';

const PageFields = {
  websiteId: Id,
  locale: Locale,
  translationGroupId: Id,
  path: PagePath,
  dataClass: Type.Union([Type.Null(), Type.String({ minLength: 1, maxLength: 200 })]),
  title: Name,
  content: Tree,
  seo: Seo,
  inSitemap: Type.Boolean(),
  indexable: Type.Boolean(),
  published: Type.Boolean(),
  kind: Type.Union([Type.Null(), Type.Literal('app'), Type.Literal('page')]),
};
const { websiteId, locale, path, title, ...optional } = PageFields;
const CreateBody = Type.Object(
  { websiteId, locale, path, title, ...Type.Partial(Type.Object(optional)).properties },
  { additionalProperties: false },
);
const { translationGroupId: _group, ...patchable } = PageFields;
const PatchBody = Type.Partial(Type.Object(patchable), { additionalProperties: false });
const VersionParams = Type.Object({ id: Id, versionId: Id });

/** How a write avoids overwriting a change it has not seen (`services/preconditions.ts`). */
export const IF_MATCH_NOTE =
  'Optional `If-Match` header: the `ETag` (the quoted `updatedAt`) the caller last read; when the record changed since, the answer is 412 `EDIT_CONFLICT` and nothing is written.';

export function pageRoutes(app: App, s: ContentServices): void {
  const read = { permission: 'objects:read' };
  const edit = { permission: 'pages:edit' };
  const tags = ['pages'];

  app.get(
    '/cms-one/pages',
    {
      config: read,
      schema: {
        tags,
        querystring: Type.Object({ websiteId: Type.Optional(Id), ...ListQuery }),
        response: { 200: Type.Array(PageAnswer) },
      },
    },
    async (request) => (await s.pages.list(request.query)).map(toPageDto),
  );
  app.post(
    '/cms-one/pages',
    { config: edit, schema: { tags, body: CreateBody, response: { 201: PageAnswer } } },
    async (request, reply) => reply.code(201).send(toPageDto(await s.pages.create(request.actor, request.body))),
  );
  app.get(
    '/cms-one/pages/:id',
    {
      config: read,
      schema: {
        tags,
        params: IdParams,
        querystring: VersionQuery,
        description: VERSION_NOTE,
        response: { 200: withEntityTag(PageAnswer) },
      },
    },
    async (request, reply) => {
      const row = await s.pages.staffView(request.params.id, request.query.version);
      reply.header('etag', entityTag(row.updated_at));
      return toPageDto(row);
    },
  );
  app.patch(
    '/cms-one/pages/:id',
    {
      config: edit,
      schema: {
        tags,
        params: IdParams,
        body: PatchBody,
        querystring: DraftQuery,
        description: `${IF_MATCH_NOTE} ${draftNote('published page')}`,
        headers: IfMatchHeaders,
        response: { 200: withEntityTag(PageAnswer) },
      },
    },
    async (request, reply) => {
      const ifMatch = request.headers['if-match'];
      const draft = request.query.draft === 'true';
      const row = await s.pages.update(request.actor, request.params.id, request.body, { ifMatch, draft });
      reply.header('etag', entityTag(row.updated_at));
      return toPageDto(row);
    },
  );
  app.delete(
    '/cms-one/pages/:id',
    { config: { permission: 'pages:delete' }, schema: { tags, params: IdParams, response: Deleted } },
    async (request, reply) => {
      await s.pages.remove(request.actor, request.params.id);
      return reply.code(204).send();
    },
  );
  app.put(
    '/cms-one/pages/:id/thumbnail',
    {
      config: edit,
      schema: {
        tags,
        params: IdParams,
        body: Type.Object({ thumbnail: Thumbnail }, { additionalProperties: false }),
        description: IF_MATCH_NOTE,
        headers: IfMatchHeaders,
        response: { 200: withEntityTag(ThumbnailAnswer) },
      },
    },
    async (request, reply) => {
      const row = await s.pages.update(
        request.actor,
        request.params.id,
        { thumbnail: request.body.thumbnail },
        { ifMatch: request.headers['if-match'] },
      );
      reply.header('etag', entityTag(row.updated_at));
      return { id: row.id, thumbnail: row.thumbnail, updatedAt: row.updated_at };
    },
  );
  app.get(
    '/cms-one/pages/:id/versions',
    { config: read, schema: { tags, params: IdParams, response: { 200: Type.Array(VersionAnswer) } } },
    async (request) => {
      await s.pages.get(request.params.id);
      return (await s.pages.versions(request.params.id)).map(versionDto);
    },
  );
  app.get(
    '/cms-one/pages/:id/versions/:versionId',
    { config: read, schema: { tags, params: VersionParams, response: { 200: VersionAnswer } } },
    async (request) => versionDto(await s.pages.version(request.params.id, request.params.versionId)),
  );
  app.get(
    '/cms-one/pages/:id/versions/:versionId/diff',
    { config: read, schema: { tags, params: VersionParams, response: { 200: VersionDiffAnswer } } },
    async (request) => s.pages.diff(request.params.id, request.params.versionId),
  );
  app.post(
    '/cms-one/pages/:id/versions/:versionId/restore',
    {
      config: edit,
      schema: {
        tags,
        params: VersionParams,
        description: IF_MATCH_NOTE,
        headers: IfMatchHeaders,
        response: { 200: withEntityTag(PageAnswer) },
      },
    },
    async (request, reply) => {
      const { id, versionId } = request.params;
      const row = await s.pages.restore(request.actor, id, versionId, { ifMatch: request.headers['if-match'] });
      reply.header('etag', entityTag(row.updated_at));
      return toPageDto(row);
    },
  );
  app.post(
    '/cms-one/pages/:id/render',
    { config: read, schema: { tags, params: IdParams, response: { 200: RenderedHtml } } },
    async (request) => {
      const row = await s.pages.staffView(request.params.id);
      const content = await s.expand(row.content, { websiteId: row.website_id, locale: row.locale, staff: true });
      return { html: renderEmailHtml(row.title, content, { stripComments: await s.settings.stripHtmlComments() }) };
    },
  );
  app.get(
    '/cms-one/pages/:id/translations',
    { config: read, schema: { tags, params: IdParams, response: { 200: Type.Array(PageAnswer) } } },
    async (request) => (await s.pages.translations(request.params.id)).map(toPageDto),
  );
}

export function versionDto(v: {
  id: string;
  title: string | null;
  created_by: string | null;
  created_at: Date;
  content?: unknown;
}) {
  return {
    id: v.id,
    title: v.title,
    createdBy: v.created_by,
    createdAt: v.created_at,
    ...(v.content !== undefined ? { content: v.content } : {}),
  };
}
