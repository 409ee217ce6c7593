import { type TSchema, Type } from '@sinclair/typebox';

export const Id = Type.String({ format: 'uuid' });
export const IdParams = Type.Object({ id: Id });
export const Locale = Type.String({ minLength: 2, maxLength: 35, pattern: '^[A-Za-z]{2,3}([_-][A-Za-z0-9]{2,8})*$' });
export const Name = Type.String({ minLength: 1, maxLength: 200 });
/** A node tree; its shape is checked by the service so errors can name the bad node's path. */
export const Tree = Type.Unknown();
// Null first: with type coercion on, a string branch tried first would turn null into "".
export const Thumbnail = Type.Union([Type.Null(), Type.String({ maxLength: 400_000 })]);
export const ListQuery = {
  limit: Type.Integer({ minimum: 1, maximum: 1000, default: 100 }),
  offset: Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0 }),
};
export const Seo = Type.Object(
  {
    title: Type.Optional(Type.String({ maxLength: 300 })),
    description: Type.Optional(Type.String({ maxLength: 1000 })),
    canonical: Type.Optional(Type.String({ maxLength: 2000, pattern: '^(https?://|/)' })),
    openGraph: Type.Optional(
      Type.Record(Type.String({ maxLength: 100 }), Type.String({ maxLength: 2000 }), { maxProperties: 30 }),
    ),
  },
  { additionalProperties: false },
);
export const PagePath = Type.String({ minLength: 1, maxLength: 2000 });

/**
 * The request headers of a conditional write: `If-Match` with the `ETag` last read (checked by
 * `services/preconditions.ts`, which answers 400 for a malformed header and 412 `EDIT_CONFLICT` for a stale one).
 */
export const IfMatchHeaders = Type.Object({
  'if-match': Type.Optional(
    Type.String({
      description:
        'The `ETag` (the quoted `updatedAt`) the caller last read; when the record changed since, the answer is 412 `EDIT_CONFLICT` and nothing is written',
    }),
  ),
});

/** An answer schema documented with the record's `ETag` header (the quoted `updatedAt`, for a later `If-Match`). */
export function withEntityTag<T extends TSchema>(answer: T): T {
  return {
    ...answer,
    headers: { etag: { type: 'string', description: 'The quoted `updatedAt`: send it back as `If-Match`' } },
  };
}
