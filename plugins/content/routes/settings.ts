import { Type, type TObject } from '@sinclair/typebox';
import { emptyAnswer, requestContext, type App } from '../../../kernel/index.ts';
import { validateAlpinePresets } from '../services/alpine-presets.ts';
import type { ContentServices } from '../services/index.ts';
import type { SettingKey } from '../services/settings.ts';

const Url = Type.String({ minLength: 1, maxLength: 2000, pattern: '^(https?://|/)' });

/** Body schema (also the answer's: a setting is answered as it is stored), read access and write key of each setting. */
const SETTINGS: Array<{ key: SettingKey; body: TObject; publicRead?: true; writeKey?: string }> = [
  {
    key: 'default-placeholder-image',
    body: Type.Object({ url: Type.Union([Type.Null(), Url]) }, { additionalProperties: false }),
  },
  {
    key: 'strip-html-comments',
    body: Type.Object({ enabled: Type.Boolean() }, { additionalProperties: false }),
    publicRead: true,
  },
  {
    key: 'logging',
    body: Type.Object(
      { level: Type.Union(['error', 'warn', 'info', 'debug'].map((l) => Type.Literal(l))) },
      { additionalProperties: false },
    ),
    publicRead: true,
  },
  {
    key: 'autosave',
    body: Type.Object(
      { enabled: Type.Boolean(), intervalSeconds: Type.Integer({ minimum: 5, maximum: 3600 }) },
      { additionalProperties: false },
    ),
  },
  // The catalog's own rules are checked by the service so the 400 can give the reason.
  {
    key: 'alpine-presets',
    body: Type.Object({ presets: Type.Array(Type.Unknown(), { maxItems: 1000 }) }, { additionalProperties: false }),
  },
  {
    key: 'cdn-mirror',
    body: Type.Object(
      {
        enabled: Type.Boolean(),
        baseUrl: Type.Optional(Type.Union([Type.Null(), Type.String({ maxLength: 2000, pattern: '^https://' })])),
      },
      { additionalProperties: false },
    ),
    writeKey: 'settings:manage',
  },
];

export function settingsRoutes(app: App, s: ContentServices): void {
  const tags = ['settings'];
  for (const def of SETTINGS) {
    const url = `/cms-one/settings/${def.key}`;
    app.get(
      url,
      {
        config: def.publicRead ? { public: true } : { permission: 'objects:read' },
        schema: { tags, response: { 200: def.body } },
      },
      async () => s.settings.get(def.key),
    );
    app.put(
      url,
      {
        config: { permission: def.writeKey ?? 'content_settings:edit' },
        schema: { tags, body: def.body, response: { 200: def.body } },
      },
      async (request) => {
        const body = request.body as Record<string, unknown>;
        const value = def.key === 'alpine-presets' ? { presets: validateAlpinePresets(body.presets) } : body;
        return s.settings.put(requestContext(request), def.key, value);
      },
    );
  }
  app.delete(
    '/cms-one/settings/cdn-mirror',
    { config: { permission: 'settings:manage' }, schema: { tags, response: { 204: emptyAnswer('Removed') } } },
    async (request, reply) => {
      await s.settings.remove(requestContext(request), 'cdn-mirror');
      return reply.code(204).send();
    },
  );
}
