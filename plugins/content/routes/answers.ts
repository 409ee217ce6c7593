import { Type } from '@sinclair/typebox';

/**
 * Answer schemas of the `/cms-one` routes: they document what each route returns in /openapi.json,
 * so the dashboard's generated client is typed by them. Timestamps leave the services as `Date` and
 * are written as ISO 8601 strings.
 */
const Timestamp = Type.Unsafe<Date | string>({ type: 'string', format: 'date-time' });
const NullableTimestamp = Type.Unsafe<Date | string | null>({ type: 'string', format: 'date-time', nullable: true });
const NullableString = Type.Unsafe<string | null>({ type: 'string', nullable: true });
/** A node tree or any JSON value, written as it is. */
const Json = Type.Unknown();
const JsonRecord = Type.Record(Type.String(), Json);

/** A page; `content` and `thumbnail` only where one page is answered. */
export const PageAnswer = Type.Object({
  id: Type.String({ format: 'uuid' }),
  websiteId: Type.String({ format: 'uuid' }),
  locale: Type.String(),
  translationGroupId: Type.String({ format: 'uuid' }),
  path: Type.String(),
  dynamic: Type.Boolean(),
  dataClass: NullableString,
  title: Type.String(),
  content: Type.Optional(Json),
  seo: JsonRecord,
  inSitemap: Type.Boolean(),
  indexable: Type.Boolean(),
  published: Type.Boolean(),
  publishedAt: NullableTimestamp,
  kind: NullableString,
  thumbnail: Type.Optional(NullableString),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

/** One prior state of a page or snippet; `content` only where one version is answered. */
export const VersionAnswer = Type.Object({
  id: Type.String({ format: 'uuid' }),
  title: NullableString,
  createdBy: NullableString,
  createdAt: Timestamp,
  content: Type.Optional(Json),
});

export const SnippetAnswer = Type.Object({
  id: Type.String({ format: 'uuid' }),
  name: Type.String(),
  websiteId: NullableString,
  content: Type.Optional(Json),
  locked: Type.Boolean(),
  thumbnail: Type.Optional(NullableString),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const ThemeAnswer = Type.Object({
  id: Type.String({ format: 'uuid' }),
  websiteId: NullableString,
  name: Type.String(),
  colors: Type.Record(Type.String(), Type.String()),
  fonts: Type.Record(Type.String(), Type.String()),
  customStyles: Type.String(),
  isDefault: Type.Boolean(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

/** A whole-page template; `content` only where one template is answered. */
export const TemplateAnswer = Type.Object({
  id: Type.String({ format: 'uuid' }),
  path: Type.String(),
  name: Type.String(),
  content: Type.Optional(Json),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const KitAnswer = Type.Object({
  id: Type.String({ format: 'uuid' }),
  name: Type.String(),
  templateIds: Type.Array(Type.String({ format: 'uuid' })),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const LayoutAnswer = Type.Object({
  id: Type.String({ format: 'uuid' }),
  websiteId: Type.String({ format: 'uuid' }),
  name: Type.String(),
  regions: JsonRecord,
  slots: Type.Record(
    Type.String(),
    Type.Object({ className: Type.Optional(Type.String()), style: Type.Optional(Type.String()) }),
  ),
  pathPatterns: Type.Array(Type.String()),
  locale: NullableString,
  isDefault: Type.Boolean(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const WebsitePathAnswer = Type.Object({
  id: Type.String({ format: 'uuid' }),
  websiteId: Type.String({ format: 'uuid' }),
  parentId: NullableString,
  label: Type.String(),
  path: NullableString,
  pageId: NullableString,
  position: Type.Integer(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
