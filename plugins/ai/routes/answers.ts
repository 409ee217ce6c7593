import { Type } from '@sinclair/typebox';

/** What `GET /ai/settings` and its siblings answer: never the key, only `apiKeySet`. */
/** `POST /ai/test-connection`: the provider answered its model list with the saved address and key. */
export const ConnectionTestAnswer = Type.Object({
  ok: Type.Literal(true),
  host: Type.String({ description: 'The host the settings call' }),
  model: Type.String({ description: 'The model the settings name' }),
  modelListed: Type.Boolean({ description: "Whether the provider's list names that model (some servers list none)" }),
  models: Type.Integer({ minimum: 0, description: 'How many models the provider lists' }),
});

export const SettingsAnswer = Type.Object({
  configured: Type.Boolean({ description: 'False until settings of this kind are saved' }),
  useTextSettings: Type.Optional(Type.Boolean({ description: 'Translate settings: the text settings are used' })),
  provider: Type.Optional(Type.Union([Type.Literal('openai'), Type.Literal('openai-compatible')])),
  baseUrl: Type.Optional(Type.Union([Type.Null(), Type.String()])),
  model: Type.Optional(Type.String()),
  organization: Type.Optional(Type.Union([Type.Null(), Type.String()])),
  temperature: Type.Optional(Type.Union([Type.Null(), Type.Number()])),
  maxOutputTokens: Type.Optional(Type.Union([Type.Null(), Type.Integer()])),
  timeoutSeconds: Type.Optional(Type.Integer()),
  apiKeySet: Type.Boolean({ description: 'Whether a key is kept (it is never answered)' }),
});

export const Usage = Type.Object({ inputTokens: Type.Integer(), outputTokens: Type.Integer() });

export const GeneratedAnswer = Type.Object({
  id: Type.String({ format: 'uuid' }),
  text: Type.String(),
  model: Type.String(),
  usage: Usage,
});

export const GeneratedList = Type.Object({
  items: Type.Array(
    Type.Object({
      id: Type.String({ format: 'uuid' }),
      kind: Type.Union([
        Type.Literal('text'),
        Type.Literal('structure'),
        Type.Literal('image'),
        Type.Literal('translation'),
      ]),
      prompt: Type.String(),
      result: Type.Unknown({ description: 'Text, a structure, an asset id or the translated page id' }),
      model: Type.String(),
      createdBy: Type.Union([Type.Null(), Type.String({ format: 'uuid' })]),
      createdAt: Type.String({ format: 'date-time' }),
    }),
  ),
  total: Type.Integer(),
});

/** A page as the page routes answer it (the fields the editor needs). */
export const PageAnswer = Type.Object({
  id: Type.String({ format: 'uuid' }),
  websiteId: Type.String({ format: 'uuid' }),
  locale: Type.String(),
  translationGroupId: Type.String({ format: 'uuid' }),
  path: Type.String(),
  title: Type.String(),
  content: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  seo: Type.Record(Type.String(), Type.Unknown()),
  published: Type.Boolean(),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
});

export const FromAiAnswer = Type.Object({
  website: Type.Object({ id: Type.String({ format: 'uuid' }), name: Type.String(), rootPath: Type.String() }),
  pageIds: Type.Array(Type.String({ format: 'uuid' })),
  menuEntryIds: Type.Array(Type.String({ format: 'uuid' })),
});

/** A library file, as the asset port describes it. */
export const AssetAnswer = Type.Object({
  id: Type.String({ format: 'uuid' }),
  uuid: Type.String(),
  path: Type.String(),
  folder: Type.String(),
  filename: Type.String(),
  mimeType: Type.String(),
  size: Type.Integer(),
  visibility: Type.Union([Type.Literal('public'), Type.Literal('private')]),
  url: Type.String(),
  thumbnailUrl: Type.Union([Type.Null(), Type.String()]),
});
