import { Type } from '@sinclair/typebox';
import type { App } from '../../../kernel/index.ts';
import type { ContentServices } from '../services/index.ts';
import { entityTag } from '../services/preconditions.ts';
import { renderEmailHtml } from '../services/render.ts';
import { toSnippetDto } from '../services/snippets.ts';
import { IF_MATCH_NOTE, versionDto } from './pages.ts';
import { DraftQuery, VERSION_NOTE, VersionQuery, draftNote } from './working-copy-routes.ts';
import { Deleted, RenderedHtml, SnippetAnswer, ThumbnailAnswer, VersionAnswer } from './answers.ts';
import { Id, IdParams, ListQuery, Name, Thumbnail, Tree, IfMatchHeaders, withEntityTag } from './schemas.ts';

const NullableId = Type.Union([Type.Null(), Id]);
const CreateBody = Type.Object(
  { name: Name, websiteId: Type.Optional(NullableId), content: Type.Optional(Tree) },
  { additionalProperties: false },
);
const PatchBody = Type.Object(
  {
    name: Type.Optional(Name),
    websiteId: Type.Optional(NullableId),
    content: Type.Optional(Tree),
    autosave: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
const ListQ = Type.Object({ websiteId: Type.Optional(Id), ...ListQuery });

/** `/cms-one/snippets` and the legacy `/snippets` (list, create, delete) over the same store. */
export function snippetRoutes(app: App, s: ContentServices): void {
  const read = { permission: 'objects:read' };
  const edit = { permission: 'snippets:edit' };
  const del = { permission: 'snippets:delete' };
  const tags = ['snippets'];

  for (const base of ['/cms-one/snippets', '/snippets']) {
    app.get(
      base,
      { config: read, schema: { tags, querystring: ListQ, response: { 200: Type.Array(SnippetAnswer) } } },
      async (request) => (await s.snippets.list(request.query)).map(toSnippetDto),
    );
    app.post(
      base,
      { config: edit, schema: { tags, body: CreateBody, response: { 201: SnippetAnswer } } },
      async (request, reply) => reply.code(201).send(toSnippetDto(await s.snippets.create(request.body))),
    );
    app.delete(
      `${base}/:id`,
      { config: del, schema: { tags, params: IdParams, response: Deleted } },
      async (request, reply) => {
        await s.snippets.remove(request.params.id);
        return reply.code(204).send();
      },
    );
  }
  app.get(
    '/cms-one/snippets/:id',
    {
      config: read,
      schema: {
        tags,
        params: IdParams,
        querystring: VersionQuery,
        description: VERSION_NOTE,
        response: { 200: withEntityTag(SnippetAnswer) },
      },
    },
    async (request, reply) => {
      const row = await s.snippets.staffView(request.params.id, request.query.version);
      reply.header('etag', entityTag(row.updated_at));
      return toSnippetDto(row);
    },
  );
  app.patch(
    '/cms-one/snippets/:id',
    {
      config: edit,
      schema: {
        tags,
        params: IdParams,
        body: PatchBody,
        querystring: DraftQuery,
        description: `${IF_MATCH_NOTE} ${draftNote('snippet')} The name and content are in the working copy; thumbnail, lock and website are live.`,
        headers: IfMatchHeaders,
        response: { 200: withEntityTag(SnippetAnswer) },
      },
    },
    async (request, reply) => {
      const ifMatch = request.headers['if-match'];
      const draft = request.query.draft === 'true';
      const row = await s.snippets.update(request.actor, request.params.id, request.body, { ifMatch, draft });
      reply.header('etag', entityTag(row.updated_at));
      return toSnippetDto(row);
    },
  );
  app.get(
    '/cms-one/snippets/:id/versions',
    { config: read, schema: { tags, params: IdParams, response: { 200: Type.Array(VersionAnswer) } } },
    async (request) => {
      await s.snippets.get(request.params.id);
      return (await s.snippets.versions(request.params.id)).map(versionDto);
    },
  );
  app.get(
    '/cms-one/snippets/:id/versions/:versionId',
    {
      config: read,
      schema: { tags, params: Type.Object({ id: Id, versionId: Id }), response: { 200: VersionAnswer } },
    },
    async (request) => versionDto(await s.snippets.version(request.params.id, request.params.versionId)),
  );
  app.post(
    '/cms-one/snippets/:id/render',
    { config: read, schema: { tags, params: IdParams, response: { 200: RenderedHtml } } },
    async (request) => {
      const row = await s.snippets.get(request.params.id);
      const content = await s.expand(row.content, { websiteId: row.website_id, locale: null, staff: true });
      return { html: renderEmailHtml(row.name, content, { stripComments: await s.settings.stripHtmlComments() }) };
    },
  );
  app.put(
    '/cms-one/snippets/:id/thumbnail',
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
      const row = await s.snippets.update(
        request.actor,
        request.params.id,
        { thumbnail: request.body.thumbnail },
        { ifMatch: request.headers['if-match'] },
      );
      reply.header('etag', entityTag(row.updated_at));
      return { id: row.id, thumbnail: row.thumbnail, updatedAt: row.updated_at };
    },
  );
  app.put(
    '/cms-one/snippets/:id/lock',
    {
      config: edit,
      schema: {
        tags,
        params: IdParams,
        body: Type.Object({ locked: Type.Boolean() }, { additionalProperties: false }),
        response: { 200: Type.Object({ id: Id, locked: Type.Boolean() }) },
      },
    },
    async (request) => {
      const row = await s.snippets.update(request.actor, request.params.id, { locked: request.body.locked });
      return { id: row.id, locked: row.locked };
    },
  );
}
