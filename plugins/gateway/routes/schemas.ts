import { Type } from '@sinclair/typebox';

export const IdParams = Type.Object({ id: Type.String({ format: 'uuid' }) });

const Value = Type.String({ maxLength: 2000 });

/** Parameters of a live call from the administration (test, execute, refresh-schema). */
export const CallBody = Type.Object(
  {
    params: Type.Optional(Type.Record(Type.String({ maxLength: 64 }), Value, { maxProperties: 64 })),
    query: Type.Optional(
      Type.Record(Type.String({ maxLength: 200 }), Type.Union([Value, Type.Array(Value, { maxItems: 50 })]), {
        maxProperties: 100,
      }),
    ),
    headers: Type.Optional(
      Type.Record(Type.String({ maxLength: 100 }), Type.String({ maxLength: 8000 }), { maxProperties: 50 }),
    ),
    body: Type.Optional(Type.Unknown()),
  },
  { additionalProperties: false },
);

export const AnswerView = Type.Object({
  status: Type.Integer(),
  headers: Type.Record(Type.String(), Type.String()),
  body: Type.Unknown(),
  truncated: Type.Boolean(),
});

/** A 204: the handler sends nothing (the kernel's `emptyAnswer`: a `null` schema). */
export const NoContent = Type.Unsafe<undefined>({ type: 'null', description: 'done; no body' });

/** What a passthrough answers: the upstream's status, headers and bytes as received, never serialised. */
const upstream = (description: string) => ({
  description,
  content: { '*/*': { schema: Type.Unsafe<unknown>({ type: 'string', format: 'binary', description }) } },
});
export const UpstreamAnswers = {
  '2xx': upstream('the upstream answer as received'),
  '3xx': upstream('the upstream redirect as received'),
};
