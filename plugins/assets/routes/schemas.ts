import { Type } from '@sinclair/typebox';

export const PathText = Type.String({ minLength: 1, maxLength: 1024 });
export const FolderText = Type.String({ maxLength: 1024 });
export const Id = Type.String({ minLength: 1, maxLength: 64 });
export const Visibility = Type.Union([Type.Literal('public'), Type.Literal('private')]);
export const Metadata = Type.Record(Type.String({ maxLength: 200 }), Type.Unknown(), { maxProperties: 200 });
export const BoolText = Type.Union([Type.Boolean(), Type.Literal('1'), Type.Literal('0')]);
export const Paths = Type.Array(PathText, { minItems: 1, maxItems: 500 });
export const ListQuery = Type.Object(
  {
    folder: Type.Optional(FolderText),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 100 })),
    offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0 })),
    search: Type.Optional(Type.String({ maxLength: 200 })),
    recursive: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export const ByIdOrPath = { id: Type.Optional(Id), path: Type.Optional(PathText) };

export const asBool = (v: boolean | '1' | '0' | undefined) => v === true || v === '1';
