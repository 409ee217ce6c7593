import { Type } from '@sinclair/typebox';
import { emptyAnswer, nonJsonAnswer } from '../../../kernel/index.ts';

/**
 * Answer schemas of the `/cms-one` routes: they document what each route returns in /openapi.json,
 * so the dashboard's generated client is typed by them. Timestamps leave the services as `Date` and
 * are written as ISO 8601 strings.
 */
export const Timestamp = Type.Unsafe<Date | string>({ type: 'string', format: 'date-time' });
const NullableTimestamp = Type.Unsafe<Date | string | null>({ type: 'string', format: 'date-time', nullable: true });
export const NullableString = Type.Unsafe<string | null>({ type: 'string', nullable: true });
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
  /** Staff reads of a page with a working copy: the fields above are the copy's (and `updatedAt` its time). */
  draft: Type.Optional(Type.Object({ updatedAt: Timestamp, updatedBy: NullableString })),
});

/** How a page's working copy differs from live: field values, and the content as node-tree paths. */
export const PageDraftDiffAnswer = Type.Object({
  changed: Type.Array(Type.String()),
  fields: Type.Array(Type.Object({ field: Type.String(), live: Type.Unknown(), draft: Type.Unknown() })),
  content: Type.Object({
    added: Type.Array(Type.String()),
    removed: Type.Array(Type.String()),
    changed: Type.Array(Type.String()),
  }),
});

/** When a page goes live and offline (scheduled publishing), and who set it. */
export const PageScheduleAnswer = Type.Object({
  pageId: Type.String({ format: 'uuid' }),
  publishAt: NullableTimestamp,
  unpublishAt: NullableTimestamp,
  scheduledBy: Type.String(),
  updatedAt: Timestamp,
});

/** Records with a working copy, newest first. */
export const PendingDraftsAnswer = Type.Object({
  drafts: Type.Array(
    Type.Object({
      ownerType: Type.String(),
      id: Type.String({ format: 'uuid' }),
      /** The live record's title or name. */
      label: NullableString,
      /** Its website (null for shared snippets and templates). */
      websiteId: NullableString,
      updatedAt: Timestamp,
      updatedBy: NullableString,
    }),
  ),
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
  /** Staff reads of a snippet with a working copy (saved with `?draft=true`): name and content are the copy's. */
  draft: Type.Optional(Type.Object({ updatedAt: Timestamp, updatedBy: NullableString })),
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
  draft: Type.Optional(Type.Object({ updatedAt: Timestamp, updatedBy: NullableString })),
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
  draft: Type.Optional(Type.Object({ updatedAt: Timestamp, updatedBy: NullableString })),
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

/** The answer of a delete. */
export const Deleted = { 204: emptyAnswer('Deleted') };

/** The e-mail HTML of a page or snippet (`render`). */
export const RenderedHtml = Type.Object({ html: Type.String() });

/** What a thumbnail upload changed. */
export const ThumbnailAnswer = Type.Object({
  id: Type.String({ format: 'uuid' }),
  thumbnail: NullableString,
  updatedAt: Timestamp,
});

/** A document of its own, shown in the editor's sandboxed frame. */
export const CanvasHtml = nonJsonAnswer('text/html', 'The record as the website shows it, its nodes marked');

/** Node paths added, removed and changed between a version and the current page. */
export const VersionDiffAnswer = Type.Object({
  versionId: Type.String({ format: 'uuid' }),
  added: Type.Array(Type.String()),
  removed: Type.Array(Type.String()),
  changed: Type.Array(Type.String()),
  titleChanged: Type.Boolean(),
});

/** A migrated page awaiting review; `content` only where one is answered. */
export const StagedPageAnswer = Type.Object({
  id: Type.String({ format: 'uuid' }),
  websiteId: Type.String({ format: 'uuid' }),
  locale: Type.String(),
  path: Type.String(),
  title: Type.String(),
  content: Type.Optional(Json),
  seo: JsonRecord,
  source: NullableString,
  state: Type.Union([Type.Literal('staged'), Type.Literal('promoted'), Type.Literal('discarded')]),
  pageId: NullableString,
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

const Promoted = Type.Object({ id: Type.String({ format: 'uuid' }), pageId: Type.String({ format: 'uuid' }) });
export const PromotedAnswer = Promoted;
export const PromotedAllAnswer = Type.Object({ promoted: Type.Array(Promoted) });

/** The layout a page is shown in and its body slot. */
export const PageLayoutAnswer = Type.Object({
  pageId: Type.String({ format: 'uuid' }),
  layoutId: NullableString,
  layoutName: NullableString,
  body: Type.Object({ className: Type.String(), style: Type.String() }),
});

/** A website's public-form upload rules, after clamping to the ceilings. */
export const UploadSettingsAnswer = Type.Object({
  enabled: Type.Boolean(),
  allowedTypes: Type.Array(Type.String()),
  maxFileBytes: Type.Integer(),
  maxFilesPerSubmit: Type.Integer(),
  dailyBytes: Type.Integer(),
  folder: Type.String(),
  visibility: Type.Union([Type.Literal('private'), Type.Literal('public')]),
});

/** The web app manifest and service worker plan generated for a website. */
export const PwaAnswer = Type.Object({
  version: Type.Integer(),
  generatedAt: Type.String({ format: 'date-time' }),
  manifest: Type.Object({
    name: Type.String(),
    short_name: Type.String(),
    start_url: Type.String(),
    scope: Type.String(),
    display: Type.String(),
    lang: Type.String(),
    theme_color: Type.String(),
    background_color: Type.String(),
    icons: Type.Array(Type.Object({ src: Type.String(), sizes: Type.String(), type: Type.String() })),
  }),
  serviceWorker: Type.Object({
    cacheName: Type.String(),
    scope: Type.String(),
    precache: Type.Array(Type.String()),
    runtimeCaching: Type.Array(Type.Object({ urlPattern: Type.String(), strategy: Type.String() })),
  }),
});

/** A freshly made site key: shown once, only its hash is kept. */
export const SiteKeyAnswer = Type.Object({ siteKey: Type.String() });

/** A published page as the public API answers it (built in the database, `services/public-pages.ts`). */
export const PublicPageAnswer = Type.Object({
  id: Type.String({ format: 'uuid' }),
  websiteId: Type.String({ format: 'uuid' }),
  locale: Type.String(),
  translationGroupId: Type.String({ format: 'uuid' }),
  path: Type.String(),
  title: Type.String(),
  content: Json,
  seo: JsonRecord,
  kind: NullableString,
  updatedAt: Type.String({ format: 'date-time' }),
  params: Type.Optional(
    Type.Record(Type.String(), Type.String(), { description: 'A dynamic page: its path parameters' }),
  ),
  object: Type.Optional(Type.Unknown({ description: 'A dynamic page: the data object its path names' })),
});

/** A public page route: the page as JSON, or its HTML document to a client that prefers `text/html`. */
export const PublicPageOrHtml = {
  description: 'The published page: JSON, or its HTML document when the request prefers text/html',
  content: {
    'application/json': { schema: PublicPageAnswer },
    ...nonJsonAnswer('text/html', 'The HTML document').content,
  },
};

/** A browser's 404: the website's 404 document. */
export const NotFoundHtml = nonJsonAnswer('text/html', "The website's 404 document");

export const PublicPageRef = Type.Object({
  id: Type.String({ format: 'uuid' }),
  slug: Type.String(),
  title: Type.String(),
  locale: Type.String(),
});

/** A website's 404 content: its layout's region, or else its published `/404` page. */
export const NotFoundContentAnswer = Type.Union([
  Type.Object({ websiteId: Type.String({ format: 'uuid' }), content: Json }),
  PublicPageAnswer,
]);

export const PublicSnippetAnswer = Type.Object({
  id: Type.String({ format: 'uuid' }),
  name: Type.String(),
  content: Json,
  updatedAt: Timestamp,
});

/** A website's public view: its settings with every secret-looking member left out. */
export const PublicWebsiteAnswer = Type.Object({
  id: Type.String({ format: 'uuid' }),
  name: Type.String(),
  rootPath: Type.String(),
  locales: Type.Array(Type.String()),
  kind: Type.String(),
  domains: Type.Array(Type.String()),
  theme: NullableString,
  settings: JsonRecord,
});
