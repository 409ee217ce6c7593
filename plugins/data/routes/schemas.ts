import { Type } from '@sinclair/typebox';
import { MAX_CURSOR_LENGTH } from '../services/page-cursor.ts';

/** Shared typebox pieces of the data routes. */
export const IdParams = Type.Object({ id: Type.String({ format: 'uuid' }) });
export const Attributes = Type.Record(Type.String(), Type.Unknown());
export const Paging = {
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
  offset: Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0 }),
};
export const Ids = Type.String({
  minLength: 1,
  maxLength: 4000,
  description: 'comma-separated object ids (at most 100)',
});

const queryProperties = {
  className: Type.String({ minLength: 1 }),
  filters: Type.Optional(
    Type.Array(
      Type.Object(
        { field: Type.String(), op: Type.String(), value: Type.Optional(Type.Unknown()) },
        { additionalProperties: false },
      ),
      { maxItems: 20 },
    ),
  ),
  orderBy: Type.Optional(
    Type.Array(
      Type.Object(
        { field: Type.String(), direction: Type.Optional(Type.Union([Type.Literal('asc'), Type.Literal('desc')])) },
        { additionalProperties: false },
      ),
      { maxItems: 3 },
    ),
  ),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0 })),
  locale: Type.Optional(Type.String()),
  includeTotal: Type.Optional(
    Type.Boolean({
      description:
        'public route: also count every match; admin route: counted unless false (a count reads every match)',
    }),
  ),
};

/** Keyset cursor of the lists and queries: `nextCursor` of the previous page. */
export const After = Type.String({
  minLength: 1,
  maxLength: MAX_CURSOR_LENGTH,
  description: 'nextCursor of the previous page: the objects after it in the same order',
});

/** Body of POST /data-objects/query and POST /public/data-objects/query (with the keyset cursor `after`). */
export const QueryBody = Type.Object(
  { ...queryProperties, after: Type.Optional(After) },
  { additionalProperties: false },
);
