import { Type } from '@sinclair/typebox';
import { requestContext, type App } from '../../../kernel/index.ts';
import type { ContentServices } from '../services/index.ts';
import { generatePwa } from '../services/pwa.ts';
import { UploadSettingsBody as UploadSettings } from '../services/upload-settings.ts';
import { toWebsiteDto } from '../services/websites.ts';
import { Deleted, PwaAnswer, SiteKeyAnswer, UploadSettingsAnswer } from './answers.ts';
import { IdParams, Locale, Name } from './schemas.ts';

const Settings = Type.Record(Type.String({ maxLength: 100 }), Type.Unknown(), { maxProperties: 100 });
const Domain = Type.String({
  minLength: 1,
  maxLength: 253,
  pattern: '^[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?(:[0-9]{1,5})?$',
});
const WebsiteBody = {
  name: Name,
  // The shape (one lower-case segment) is checked by the service, so the 400 names rootPath whatever else is wrong.
  rootPath: Type.String({
    minLength: 2,
    maxLength: 64,
    description: 'one path segment of lower-case letters, digits, _ and -, e.g. /shop',
  }),
  locales: Type.Array(Locale, { minItems: 1, maxItems: 50 }),
  settings: Settings,
  theme: Type.Union([Type.Null(), Type.String({ maxLength: 200 })]),
  domains: Type.Array(Domain, { maxItems: 20 }),
  kind: Type.String({ minLength: 1, maxLength: 50, pattern: '^[a-z][a-z0-9-]*$' }),
};
/** A website as the API answers it (`toWebsiteDto`): its site key only as `{ set }`. */
const WebsiteView = Type.Object({
  id: Type.String({ format: 'uuid' }),
  name: Type.String(),
  rootPath: Type.String(),
  locales: Type.Array(Type.String()),
  settings: Type.Record(Type.String(), Type.Unknown()),
  theme: Type.Union([Type.String(), Type.Null()]),
  domains: Type.Array(Type.String()),
  kind: Type.String(),
  siteKey: Type.Object({ set: Type.Boolean() }),
  createdAt: Type.Unsafe<Date>(Type.String({ format: 'date-time' })),
  updatedAt: Type.Unsafe<Date>(Type.String({ format: 'date-time' })),
  problems: Type.Optional(
    Type.Array(Type.Object({ field: Type.String(), message: Type.String() }), {
      description: 'stored values that break a rule (written by an import or by hand): the safe value applies',
    }),
  ),
});

export function websiteRoutes(app: App, s: ContentServices): void {
  const read = { permission: 'objects:read' };
  const edit = { permission: 'websites:edit' };
  const tags = ['websites'];

  app.get(
    '/cms-one/websites',
    { config: read, schema: { tags, response: { 200: Type.Array(WebsiteView) } } },
    async () => s.websites.list(),
  );
  app.post(
    '/cms-one/websites',
    {
      config: edit,
      schema: {
        tags,
        body: Type.Object(
          {
            ...WebsiteBody,
            locales: Type.Optional(WebsiteBody.locales),
            settings: Type.Optional(Settings),
            theme: Type.Optional(WebsiteBody.theme),
            domains: Type.Optional(WebsiteBody.domains),
            kind: Type.Optional(WebsiteBody.kind),
          },
          { additionalProperties: false },
        ),
        response: { 201: WebsiteView },
      },
    },
    async (request, reply) => reply.code(201).send(await s.websites.create(requestContext(request), request.body)),
  );
  app.get(
    '/cms-one/websites/:id',
    { config: read, schema: { tags, params: IdParams, response: { 200: WebsiteView } } },
    async (request) => toWebsiteDto(await s.websites.get(request.params.id)),
  );
  app.patch(
    '/cms-one/websites/:id',
    {
      config: edit,
      schema: {
        tags,
        params: IdParams,
        body: Type.Partial(Type.Object(WebsiteBody), { additionalProperties: false }),
        response: { 200: WebsiteView },
      },
    },
    async (request) => s.websites.update(requestContext(request), request.params.id, request.body),
  );
  app.delete(
    '/cms-one/websites/:id',
    { config: { permission: 'websites:delete' }, schema: { tags, params: IdParams, response: Deleted } },
    async (request, reply) => {
      await s.websites.remove(requestContext(request), request.params.id);
      return reply.code(204).send();
    },
  );
  app.post(
    '/cms-one/websites/:id/gateway-api-key/regenerate',
    { config: edit, schema: { tags, params: IdParams, response: { 200: SiteKeyAnswer } } },
    async (request) => s.websites.regenerateSiteKey(requestContext(request), request.params.id),
  );
  app.delete(
    '/cms-one/websites/:id/gateway-api-key',
    { config: edit, schema: { tags, params: IdParams, response: Deleted } },
    async (request, reply) => {
      await s.websites.clearSiteKey(requestContext(request), request.params.id);
      return reply.code(204).send();
    },
  );
  const Color = Type.String({ minLength: 4, maxLength: 30, pattern: '^(#[0-9A-Fa-f]{3,8}|[a-z]+)$' });
  const PwaBody = Type.Object(
    {
      shortName: Type.Optional(Type.String({ minLength: 1, maxLength: 30 })),
      display: Type.Optional(
        Type.Union(['standalone', 'minimal-ui', 'fullscreen', 'browser'].map((d) => Type.Literal(d))),
      ),
      themeColor: Type.Optional(Color),
      backgroundColor: Type.Optional(Color),
      icons: Type.Optional(
        Type.Array(
          Type.Object(
            {
              src: Type.String({ minLength: 1, maxLength: 2000, pattern: '^(https://|/)' }),
              sizes: Type.String({ maxLength: 50 }),
              type: Type.String({ maxLength: 50 }),
            },
            { additionalProperties: false },
          ),
          { maxItems: 20 },
        ),
      ),
    },
    { additionalProperties: false },
  );
  app.post(
    '/cms-one/websites/:id/generate-pwa',
    { config: edit, schema: { tags, params: IdParams, body: PwaBody, response: { 200: PwaAnswer } } },
    async (request) =>
      generatePwa(
        { kernel: s.kernel, directory: s.directory, websites: s.websiteStore },
        requestContext(request),
        request.params.id,
        request.body as Parameters<typeof generatePwa>[3],
      ),
  );
  app.get(
    '/cms-one/websites/:id/upload-settings',
    { config: read, schema: { tags, params: IdParams, response: { 200: UploadSettingsAnswer } } },
    async (request) => s.websites.uploadSettings(request.params.id),
  );
  app.put(
    '/cms-one/websites/:id/upload-settings',
    { config: edit, schema: { tags, params: IdParams, body: UploadSettings, response: { 200: UploadSettingsAnswer } } },
    async (request) => s.websites.putUploadSettings(requestContext(request), request.params.id, request.body),
  );
}
