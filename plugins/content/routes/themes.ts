import { Type } from '@sinclair/typebox';
import { requestContext, type App } from '../../../kernel/index.ts';
import type { ContentServices } from '../services/index.ts';
import { toThemeDto } from '../services/themes.ts';
import { Deleted, ThemeAnswer } from './answers.ts';
import { Id, IdParams, Name } from './schemas.ts';

const Values = (max: number) =>
  Type.Record(
    Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9_-]+$' }),
    Type.String({ maxLength: 500 }),
    { maxProperties: max },
  );
const Fields = {
  name: Name,
  colors: Values(100),
  fonts: Values(20),
  customStyles: Type.String({ maxLength: 100_000 }),
};
const { name, ...rest } = Fields;
const CreateBody = Type.Object(
  { name, ...Type.Partial(Type.Object(rest)).properties },
  { additionalProperties: false },
);
const UpdateBody = Type.Partial(Type.Object(Fields), { additionalProperties: false });
const WebsiteThemeParams = Type.Object({ id: Id, themeId: Id });

/** Global catalog `/cms-one/themes`, per-website catalogs and the active default theme. */
/** A website's active theme, `null` when none is set. */
const ActiveThemeAnswer = Type.Object({ theme: Type.Union([Type.Null(), ThemeAnswer]) });

export function themeRoutes(app: App, s: ContentServices): void {
  const read = { permission: 'objects:read' };
  const tags = ['themes'];
  const themes = s.themes;

  app.get(
    '/cms-one/themes',
    { config: read, schema: { tags, summary: 'The global theme catalog', response: { 200: Type.Array(ThemeAnswer) } } },
    async () => (await themes.list(null)).map(toThemeDto),
  );
  app.get(
    '/cms-one/themes/all',
    { config: read, schema: { tags, summary: "Every website's themes", response: { 200: Type.Array(ThemeAnswer) } } },
    async () => (await themes.list('all')).map(toThemeDto),
  );
  app.post(
    '/cms-one/themes',
    {
      config: { permission: 'themes:edit' },
      schema: { tags, summary: 'Create a global theme', body: CreateBody, response: { 201: ThemeAnswer } },
    },
    async (request, reply) =>
      reply.code(201).send(toThemeDto(await themes.create(requestContext(request), null, request.body))),
  );
  app.get(
    '/cms-one/themes/:id',
    { config: read, schema: { tags, summary: 'One global theme', params: IdParams, response: { 200: ThemeAnswer } } },
    async (request) => toThemeDto(await themes.get(request.params.id, null)),
  );
  app.put(
    '/cms-one/themes/:id',
    {
      config: { permission: 'themes:edit' },
      schema: {
        tags,
        summary: 'Change a global theme',
        params: IdParams,
        body: UpdateBody,
        response: { 200: ThemeAnswer },
      },
    },
    async (request) => toThemeDto(await themes.update(requestContext(request), null, request.params.id, request.body)),
  );
  app.delete(
    '/cms-one/themes/:id',
    { config: { permission: 'themes:edit' }, schema: { tags, params: IdParams, response: Deleted } },
    async (request, reply) => {
      await themes.remove(requestContext(request), null, request.params.id);
      return reply.code(204).send();
    },
  );

  const edit = { permission: 'websites:edit' };
  app.get(
    '/cms-one/websites/:id/themes',
    {
      config: read,
      schema: { tags, summary: "A website's own themes", params: IdParams, response: { 200: Type.Array(ThemeAnswer) } },
    },
    async (request) => {
      await s.websites.get(request.params.id);
      return (await themes.list(request.params.id)).map(toThemeDto);
    },
  );
  app.post(
    '/cms-one/websites/:id/themes',
    {
      config: edit,
      schema: {
        tags,
        summary: 'Create a website theme',
        params: IdParams,
        body: CreateBody,
        response: { 201: ThemeAnswer },
      },
    },
    async (request, reply) =>
      reply.code(201).send(toThemeDto(await themes.create(requestContext(request), request.params.id, request.body))),
  );
  app.put(
    '/cms-one/websites/:id/themes/:themeId',
    {
      config: edit,
      schema: {
        tags,
        summary: 'Change a website theme',
        params: WebsiteThemeParams,
        body: UpdateBody,
        response: { 200: ThemeAnswer },
      },
    },
    async (request) =>
      toThemeDto(await themes.update(requestContext(request), request.params.id, request.params.themeId, request.body)),
  );
  app.delete(
    '/cms-one/websites/:id/themes/:themeId',
    { config: edit, schema: { tags, params: WebsiteThemeParams, response: Deleted } },
    async (request, reply) => {
      await themes.remove(requestContext(request), request.params.id, request.params.themeId);
      return reply.code(204).send();
    },
  );
  app.get(
    '/cms-one/websites/:id/theme',
    { config: read, schema: { tags, params: IdParams, response: { 200: ActiveThemeAnswer } } },
    async (request) => {
      const theme = await themes.active(request.params.id);
      return { theme: theme && toThemeDto(theme) };
    },
  );
  app.put(
    '/cms-one/websites/:id/theme',
    {
      config: edit,
      schema: {
        tags,
        params: IdParams,
        body: Type.Object({ themeId: Id }, { additionalProperties: false }),
        response: { 200: Type.Object({ theme: ThemeAnswer }) },
      },
    },
    async (request) => ({
      theme: toThemeDto(await themes.setActive(requestContext(request), request.params.id, request.body.themeId)),
    }),
  );
}
