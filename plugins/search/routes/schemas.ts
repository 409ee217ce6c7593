import { Type } from '@sinclair/typebox';

export const MAX_LIMIT = 50;
export const MAX_OFFSET = 1000;

const common = {
  q: Type.String({
    minLength: 1,
    maxLength: 1000,
    description: 'what to look for (see the plugin README for the query language)',
  }),
  websiteId: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 200,
      description: 'documents of this website and documents of no website (objects, classes)',
    }),
  ),
  locale: Type.Optional(
    Type.String({
      minLength: 2,
      maxLength: 35,
      pattern: '^[A-Za-z]{2,8}([-_][A-Za-z0-9]{1,8})*$',
      description: 'documents of this locale (de-AT: also of de) and documents of no locale; chooses the stemming',
    }),
  ),
  type: Type.Optional(
    Type.String({
      maxLength: 600,
      pattern: '^[a-z][a-z0-9_-]{0,63}(,[a-z][a-z0-9_-]{0,63}){0,7}$',
      description: 'source types, comma-separated (page, object, class, asset...)',
    }),
  ),
  limit: Type.Integer({ minimum: 1, maximum: MAX_LIMIT, default: 10 }),
  offset: Type.Integer({ minimum: 0, maximum: MAX_OFFSET, default: 0 }),
};

export const PublicSearchQuery = Type.Object(common, { additionalProperties: false });

export const EditorSearchQuery = Type.Object(
  {
    ...common,
    public: Type.Optional(Type.Boolean({ description: 'only public (true) or only non-public (false) documents' })),
  },
  { additionalProperties: false },
);

const Hit = Type.Object({
  sourceType: Type.String(),
  sourceId: Type.String(),
  websiteId: Type.Union([Type.String(), Type.Null()]),
  locale: Type.Union([Type.String(), Type.Null()]),
  title: Type.String(),
  titleHtml: Type.String(),
  snippet: Type.String(),
  url: Type.Union([Type.String(), Type.Null()]),
  public: Type.Boolean(),
  meta: Type.Record(Type.String(), Type.Unknown()),
  updatedAt: Type.String(),
  rank: Type.Number(),
});

export const SearchAnswerSchema = Type.Object({
  results: Type.Array(Hit),
  limit: Type.Integer(),
  offset: Type.Integer(),
  hasMore: Type.Boolean(),
});

export const ReindexQuery = Type.Object(
  {
    type: Type.Optional(
      Type.String({ maxLength: 64, pattern: '^[a-z][a-z0-9_-]{0,63}$', description: 'rebuild only this source type' }),
    ),
  },
  { additionalProperties: false },
);

/** What a reindex did, per source type. */
export const ReindexReportSchema = Type.Object({
  sources: Type.Array(Type.Object({ sourceType: Type.String(), documents: Type.Integer(), removed: Type.Integer() })),
  removedOrphans: Type.Integer({ description: 'Documents of source types no loaded plugin contributes any more' }),
  durationMs: Type.Number(),
});
