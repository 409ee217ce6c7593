import { Type } from '@sinclair/typebox';
import { type App, requestContext } from '../../../kernel/index.ts';
import type { ProviderClient } from '../services/provider.ts';
import type { AiSettingsService } from '../services/settings.ts';
import type { SettingsKind } from '../store/settings.ts';
import { ConnectionTestAnswer, SettingsAnswer } from './answers.ts';

const Provider = Type.Union([Type.Literal('openai'), Type.Literal('openai-compatible')]);
const Fields = {
  provider: Provider,
  baseUrl: Type.Optional(Type.Union([Type.Null(), Type.String({ maxLength: 2000 })])),
  model: Type.String({ minLength: 1, maxLength: 200 }),
  apiKey: Type.Optional(
    // The string first: the validator's coercion would turn a blank string into the null branch.
    Type.Union([Type.String({ maxLength: 1000 }), Type.Null()], {
      description: 'Blank or absent keeps the stored key; null removes it',
    }),
  ),
  organization: Type.Optional(Type.Union([Type.Null(), Type.String({ maxLength: 200 })])),
  temperature: Type.Optional(Type.Union([Type.Null(), Type.Number({ minimum: 0, maximum: 2 })])),
  maxOutputTokens: Type.Optional(Type.Union([Type.Null(), Type.Integer({ minimum: 1, maximum: 200_000 })])),
  timeoutSeconds: Type.Optional(Type.Union([Type.Null(), Type.Integer({ minimum: 1, maximum: 600 })])),
};
const SettingsBody = Type.Object(Fields, { additionalProperties: false });
const TranslateBody = Type.Object(
  {
    useTextSettings: Type.Optional(Type.Boolean({ description: 'true: translations use the text settings' })),
    provider: Type.Optional(Provider),
    model: Type.Optional(Fields.model),
    baseUrl: Fields.baseUrl,
    apiKey: Fields.apiKey,
    organization: Fields.organization,
    temperature: Fields.temperature,
    maxOutputTokens: Fields.maxOutputTokens,
    timeoutSeconds: Fields.timeoutSeconds,
  },
  { additionalProperties: false },
);

const PATHS: [string, SettingsKind][] = [
  ['/ai/settings', 'text'],
  ['/ai/image-settings', 'image'],
  ['/ai/translate-settings', 'translate'],
];

/** The three settings kinds and their connection test: `settings:manage`, off under the sandbox profile. */
export function settingsRoutes(app: App, settings: AiSettingsService, provider: ProviderClient): void {
  const config = { permission: 'settings:manage', sandbox: 'block' } as const;
  const tags = ['ai'];
  for (const [url, kind] of PATHS) {
    app.get(url, { config, schema: { tags, response: { 200: SettingsAnswer } } }, () => settings.view(kind));
    app.put(
      url,
      {
        config,
        schema: { tags, body: kind === 'translate' ? TranslateBody : SettingsBody, response: { 200: SettingsAnswer } },
      },
      (request) => settings.put(requestContext(request), kind, request.body),
    );
  }

  app.post(
    '/ai/test-connection',
    {
      config,
      schema: {
        tags,
        summary: "Tests a kind's saved settings: the provider's model list (GET /models), nothing generated",
        body: Type.Object(
          { kind: Type.Union([Type.Literal('text'), Type.Literal('image'), Type.Literal('translate')]) },
          { additionalProperties: false },
        ),
        response: { 200: ConnectionTestAnswer },
      },
    },
    async (request) => {
      const s = await settings.resolve(request.body.kind);
      const models = await provider.listModels(s);
      return {
        ok: true as const,
        host: new URL(s.baseUrl).host,
        model: s.model,
        modelListed: models.includes(s.model),
        models: models.length,
      };
    },
  );
}
