import { type ApiAnswer, type ApiBody, ApiError, sessionFetch } from '../../../admin-ui/app/src/sdk/index.ts';
import type { ContentNode } from './tree.ts';

/**
 * What the editor edits: a page, a snippet, a page template or one region of a website's layout
 * template, through the content API. Calls go through the dashboard's `sessionFetch` with the session
 * cookie (same origin): a call refused because the session ended waits for the sign-in dialog and
 * is sent again. The API's error body becomes an `ApiError`, as in the dashboard. Saves carry `If-Match`
 * with the `ETag` last read, so a save over a change made elsewhere (another tab, another editor)
 * is refused with 412 instead of overwriting it.
 */
export type DocumentKind = 'pages' | 'snippets' | 'templates' | 'layouts';

/** The regions of a layout template, each a node tree of its own (or none). */
export const LAYOUT_REGIONS = ['header', 'aside', 'main', 'footer', 'notFound'] as const;
export type LayoutRegion = (typeof LAYOUT_REGIONS)[number];
type Regions = Partial<Record<LayoutRegion, ContentNode | null>>;

/*
 * The server's records, from the routes' answer and body schemas in `/openapi.json` (a changed route
 * breaks the type check). The API declares node trees as any JSON; the editor reads them as trees.
 */
type WithTrees<T> = Omit<T, 'content' | 'regions'> & { content: ContentNode; regions?: Regions };
type PageDto = WithTrees<ApiAnswer<'/cms-one/pages/{id}', 'get'>>;
type SnippetDto = WithTrees<ApiAnswer<'/cms-one/snippets/{id}', 'get'>>;
type TemplateDto = WithTrees<ApiAnswer<'/cms-one/templates/{id}', 'get'>>;
type LayoutDto = WithTrees<ApiAnswer<'/cms-one/websites/{websiteId}/templates/{id}', 'get'>>;
/** A field's type across the kinds that have it. */
type ValueOf<U, K extends PropertyKey> = U extends unknown ? (K extends keyof U ? U[K] : never) : never;
/** Every field any of the kinds answers with (each optional), typed as those kinds answer it. */
type FieldsOf<U> = { [K in U extends unknown ? keyof U : never]?: ValueOf<U, K> };

/** Where a document lives besides its kind and id: a layout belongs to a website and is edited one region at a time. */
export type DocumentRef = Pick<EditedDocument, 'kind' | 'id' | 'websiteId' | 'region'>;

export interface EditedDocument {
  kind: DocumentKind;
  id: string;
  title: string;
  content: ContentNode;
  etag: string;
  updatedAt: string;
  /** Pages. */
  websiteId?: string | null;
  locale?: string | null;
  path?: string;
  published?: boolean;
  translationGroupId?: string;
  /** A live record with a working copy: `content` and `title` are the copy's; the site shows the live record. */
  draft?: { updatedAt: string; updatedBy: string | null } | null;
  /** Snippets. */
  locked?: boolean;
  /** Layouts: the region edited (its tree is `content`) and every region as stored at `etag`. */
  region?: LayoutRegion;
  regions?: Regions;
  /** Layouts: the settings besides the regions (the layout settings panel edits them). */
  layout?: LayoutSettings;
}

/** A layout's settings besides its name and regions, as `PATCH /cms-one/websites/:w/templates/:id` takes them. */
export type LayoutSettings = Required<
  Pick<
    ApiBody<'/cms-one/websites/{websiteId}/templates/{id}', 'patch'>,
    'slots' | 'pathPatterns' | 'locale' | 'isDefault'
  >
>;

/** A stored version (the list leaves out `content`). */
export type Version = Omit<ApiAnswer<'/cms-one/pages/{id}/versions/{versionId}', 'get'>, 'content'> & {
  content?: ContentNode;
};

export type VersionDiff = ApiAnswer<'/cms-one/pages/{id}/versions/{versionId}/diff', 'get'>;

export async function call(method: string, url: string, body?: unknown, headers: Record<string, string> = {}) {
  const response = await sessionFetch(url, {
    method,
    headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  if (!response.ok) {
    let error: { message?: string; code?: string; field?: string } | undefined;
    try {
      error = await response.json();
    } catch {
      error = undefined;
    }
    throw new ApiError(response.status, error);
  }
  return response;
}

export async function json<T>(method: string, url: string, body?: unknown, headers?: Record<string, string>) {
  const response = await call(method, url, body, headers);
  return { data: (await response.json()) as T, etag: response.headers.get('etag') ?? '' };
}

/** A page, snippet, template or layout as the content API answers it. */
type Dto = FieldsOf<PageDto | SnippetDto | TemplateDto | LayoutDto> & Pick<TemplateDto, 'id' | 'updatedAt' | 'content'>;

/** A region without a tree starts as an empty block to drop into (saved only once something is added). */
const emptyRegion = (): ContentNode => ({ type: 'div', children: [] });

function toDocument(kind: DocumentKind, dto: Dto, etag: string, region?: LayoutRegion): EditedDocument {
  return {
    kind,
    id: dto.id,
    title: (kind === 'pages' ? dto.title : dto.name) ?? '',
    content: kind === 'layouts' ? (dto.regions?.[region ?? 'header'] ?? emptyRegion()) : dto.content,
    etag: etag || `"${dto.updatedAt}"`,
    updatedAt: dto.updatedAt,
    websiteId: dto.websiteId,
    locale: dto.locale,
    path: dto.path,
    published: dto.published,
    translationGroupId: dto.translationGroupId,
    draft: dto.draft ?? null,
    locked: dto.locked,
    ...(kind === 'layouts'
      ? {
          region: region ?? 'header',
          regions: dto.regions ?? {},
          layout: {
            slots: dto.slots ?? {},
            pathPatterns: dto.pathPatterns ?? [],
            locale: dto.locale ?? null,
            isDefault: dto.isDefault ?? false,
          },
        }
      : {}),
  };
}

const base = (doc: DocumentRef) =>
  doc.kind === 'layouts'
    ? `/cms-one/websites/${encodeURIComponent(doc.websiteId ?? '')}/templates/${encodeURIComponent(doc.id)}`
    : `/cms-one/${doc.kind}/${encodeURIComponent(doc.id)}`;

/** `at`: a layout's website and the region to edit. */
export async function loadDocument(
  kind: DocumentKind,
  id: string,
  at: { websiteId?: string | null; region?: LayoutRegion } = {},
): Promise<EditedDocument> {
  const { data, etag } = await json<Dto>('GET', base({ kind, id, ...at }));
  return toDocument(kind, data, etag, at.region);
}

/**
 * Saves content (and a page's title). `autosave` marks a snippet save as automatic (a locked snippet
 * refuses it with 423) and sends it to the record's working copy (`?draft=true`); `ifMatch` is the tag the editor's state is based on, `*` to save over.
 */
export async function saveDocument(
  doc: DocumentRef & Pick<EditedDocument, 'regions'>,
  change: { content?: ContentNode; title?: string; published?: boolean },
  opts: { autosave: boolean; ifMatch: string },
): Promise<EditedDocument> {
  const body: Record<string, unknown> = {};
  let ifMatch = opts.ifMatch;
  if (change.content !== undefined && doc.kind === 'layouts') {
    // A layout is stored whole: the other regions as stored at the tag sent (If-Match keeps them
    // current); saving over a change made elsewhere keeps that change's other regions.
    let regions = doc.regions ?? {};
    if (ifMatch === '*') {
      const stored = await loadDocument(doc.kind, doc.id, doc);
      regions = stored.regions ?? {};
      ifMatch = stored.etag;
    }
    body.regions = { ...regions, [doc.region ?? 'header']: change.content };
  } else if (change.content !== undefined) body.content = change.content;
  if (change.title !== undefined) body[doc.kind === 'pages' ? 'title' : 'name'] = change.title;
  if (change.published !== undefined) body.published = change.published;
  if (doc.kind === 'snippets' && opts.autosave) body.autosave = true;
  // An autosave never goes live: the working copy of a live record takes it (a published page; every
  // snippet, template and layout), and the site shows the record as last published. A save by hand of
  // someone who may publish goes live as before. (A never-published page saves as always.)
  const url = opts.autosave ? `${base(doc)}?draft=true` : base(doc);
  const { data, etag } = await json<Dto>('PATCH', url, body, { 'if-match': ifMatch });
  return toDocument(doc.kind, data, etag, doc.region);
}

/** How a record's working copy differs from the live record (field names and node-tree paths). */
export type DraftDiff = ApiAnswer<'/cms-one/pages/{id}/draft/diff', 'get'>;

/** The working copy's diff of a page, snippet, template or layout (`GET …/draft/diff`). */
export async function draftDiff(doc: DocumentRef): Promise<DraftDiff> {
  return (await json<DraftDiff>('GET', `${base(doc)}/draft/diff`)).data;
}

/** Makes a record's working copy live (`objects:publish`); answers the record as stored now. */
export async function publishDraft(doc: DocumentRef): Promise<EditedDocument> {
  const { data, etag } = await json<Dto>('POST', `${base(doc)}/publish-draft`);
  return toDocument(doc.kind, data, etag, doc.region);
}

/**
 * Renames a document and nothing else (`PATCH` with its `title` or `name`); `ifMatch` as for a save
 * (412 when it changed elsewhere since, `*` to rename anyway). Answers the new tag.
 */
export async function renameDocument(doc: DocumentRef, name: string, ifMatch: string): Promise<string> {
  const body = { [doc.kind === 'pages' ? 'title' : 'name']: name };
  return (await json<Dto>('PATCH', base(doc), body, { 'if-match': ifMatch })).etag;
}

/**
 * Stores a layout's name and settings (only the fields given; the regions stay as stored), with
 * `If-Match`. Answers the layout as stored, its `layout` settings and its new tag.
 */
export async function saveLayoutSettings(
  doc: DocumentRef,
  change: Partial<LayoutSettings> & { name?: string },
  ifMatch: string,
): Promise<EditedDocument> {
  const { data, etag } = await json<Dto>('PATCH', base(doc), change, { 'if-match': ifMatch });
  return toDocument(doc.kind, data, etag, doc.region);
}

/**
 * The canvas document: the content as the website shows it (layout, theme), unsaved state included.
 * A template belongs to no website: `websiteId` names the one whose theme draws it. A layout's
 * canvas shows the whole layout with the edited region's unsaved tree.
 */
export async function canvasHtml(
  doc: DocumentRef,
  content: ContentNode | undefined,
  theme?: ThemeValues | null,
  websiteId?: string | null,
): Promise<string> {
  // Without content: the stored one (the first drawing, asked for while the document loads).
  const body =
    doc.kind === 'layouts'
      ? { region: doc.region ?? 'header', ...(content ? { regions: { [doc.region ?? 'header']: content } } : {}) }
      : content
        ? { content }
        : {};
  const response = await call('POST', `${base(doc)}/canvas`, {
    ...body,
    ...(theme ? { theme } : {}),
    ...(doc.kind === 'templates' && websiteId ? { websiteId } : {}),
  });
  return response.text();
}

export async function listVersions(doc: DocumentRef): Promise<Version[]> {
  return (await json<Version[]>('GET', `${base(doc)}/versions`)).data;
}

export async function loadVersion(doc: DocumentRef, versionId: string): Promise<Version> {
  return (await json<Version>('GET', `${base(doc)}/versions/${encodeURIComponent(versionId)}`)).data;
}

/** Paths added, removed and changed between a page's version and its current tree (pages only). */
export async function versionDiff(doc: DocumentRef, versionId: string): Promise<VersionDiff> {
  return (await json<VersionDiff>('GET', `${base(doc)}/versions/${encodeURIComponent(versionId)}/diff`)).data;
}

/** Restores a version: pages through their restore route; a snippet by saving the version's content. */
export async function restoreVersion(doc: DocumentRef, version: Version, ifMatch: string): Promise<EditedDocument> {
  if (doc.kind === 'pages') {
    const { data, etag } = await json<Dto>(
      'POST',
      `${base(doc)}/versions/${encodeURIComponent(version.id)}/restore`,
      undefined,
      { 'if-match': ifMatch },
    );
    return toDocument(doc.kind, data, etag);
  }
  const full = version.content ? version : await loadVersion(doc, version.id);
  return saveDocument(doc, { content: full.content }, { autosave: false, ifMatch });
}

export type AutosaveSettings = ApiAnswer<'/cms-one/settings/autosave', 'get'>;

export async function autosaveSettings(): Promise<AutosaveSettings> {
  return (await json<AutosaveSettings>('GET', '/cms-one/settings/autosave')).data;
}

export type Website = ApiAnswer<'/cms-one/websites/{id}', 'get'>;

export async function loadWebsite(id: string): Promise<Website> {
  return (await json<Website>('GET', `/cms-one/websites/${encodeURIComponent(id)}`)).data;
}

export type Theme = NonNullable<ApiAnswer<'/cms-one/websites/{id}/theme', 'get'>['theme']>;
/** What a theme changes in a drawing (the canvas takes unsaved values). */
export type ThemeValues = Partial<Pick<Theme, 'colors' | 'fonts' | 'customStyles'>>;

/** The website's active theme, or null. */
export async function activeTheme(websiteId: string): Promise<Theme | null> {
  return (
    await json<ApiAnswer<'/cms-one/websites/{id}/theme', 'get'>>(
      'GET',
      `/cms-one/websites/${encodeURIComponent(websiteId)}/theme`,
    )
  ).data.theme;
}

export async function saveTheme(theme: Theme): Promise<Theme> {
  const url = theme.websiteId
    ? `/cms-one/websites/${encodeURIComponent(theme.websiteId)}/themes/${encodeURIComponent(theme.id)}`
    : `/cms-one/themes/${encodeURIComponent(theme.id)}`;
  const { colors, fonts, customStyles } = theme;
  return (await json<Theme>('PUT', url, { colors, fonts, customStyles })).data;
}

export type Translation = ApiAnswer<'/cms-one/pages/{id}/translations', 'get'>[number];

export async function translations(pageId: string): Promise<Translation[]> {
  return (await json<Translation[]>('GET', `/cms-one/pages/${encodeURIComponent(pageId)}/translations`)).data;
}

/** A block of the palette: a snippet, a template, or a kit's templates. */
export interface BlockSource {
  id: string;
  name: string;
  kind: 'snippet' | 'template' | 'kit';
  templateIds?: string[];
}

export async function paletteSources(): Promise<BlockSource[]> {
  const [snippets, templates, kits] = await Promise.all([
    json<ApiAnswer<'/cms-one/snippets', 'get'>>('GET', '/cms-one/snippets?limit=200').catch(() => ({ data: [] })),
    json<ApiAnswer<'/cms-one/templates', 'get'>>('GET', '/cms-one/templates?limit=200').catch(() => ({ data: [] })),
    json<ApiAnswer<'/cms-one/kits', 'get'>>('GET', '/cms-one/kits?limit=200').catch(() => ({ data: [] })),
  ]);
  return [
    ...snippets.data.map((s) => ({ id: s.id, name: s.name, kind: 'snippet' as const })),
    ...templates.data.map((t) => ({ id: t.id, name: t.name, kind: 'template' as const })),
    ...kits.data.map((k) => ({ id: k.id, name: k.name, kind: 'kit' as const, templateIds: k.templateIds })),
  ];
}

/** The node tree a palette block inserts (a kit inserts its templates in a section). */
export async function blockContent(source: BlockSource): Promise<ContentNode> {
  if (source.kind === 'snippet')
    return (await json<Pick<SnippetDto, 'content'>>('GET', `/cms-one/snippets/${source.id}`)).data.content;
  if (source.kind === 'template')
    return (await json<Pick<TemplateDto, 'content'>>('GET', `/cms-one/templates/${source.id}`)).data.content;
  const parts = await Promise.all(
    (source.templateIds ?? []).map(
      async (id) => (await json<Pick<TemplateDto, 'content'>>('GET', `/cms-one/templates/${id}`)).data.content,
    ),
  );
  return { type: 'section', children: parts };
}

/** A library asset as `/api/v1/dam/assets` lists it (the image picker reads name, type and URLs). */
export type Asset = ApiAnswer<'/api/v1/dam/assets/{id}', 'get'>;

export async function listImages(search: string): Promise<Asset[]> {
  const query = new URLSearchParams({ recursive: 'true', limit: '60', ...(search ? { search } : {}) });
  const { data } = await json<{ assets: Asset[] }>('GET', `/api/v1/dam/assets?${query}`);
  return data.assets.filter((a) => a.type.startsWith('image/'));
}

export type PageSummary = ApiAnswer<'/cms-one/pages', 'get'>[number];

export async function listPages(websiteId: string): Promise<PageSummary[]> {
  return (await json<PageSummary[]>('GET', `/cms-one/pages?websiteId=${encodeURIComponent(websiteId)}&limit=1000`))
    .data;
}

/**
 * A new locale variant of a page: a draft copy of its title, path and content in the same
 * translation group, to be translated in the editor.
 */
export async function createVariant(doc: EditedDocument, locale: string, content: ContentNode): Promise<string> {
  const { data } = await json<ApiAnswer<'/cms-one/pages', 'post', 201>>('POST', '/cms-one/pages', {
    websiteId: doc.websiteId,
    locale,
    path: doc.path,
    title: doc.title,
    content,
    translationGroupId: doc.translationGroupId,
  });
  return data.id;
}

/**
 * Locks or unlocks a snippet (`PUT /cms-one/snippets/:id/lock`). The lock is a write of its own, so
 * the snippet's tag changes: refused with 412 when the snippet changed since `ifMatch` (checked
 * first), and answered with the snippet as stored after it.
 */
export async function setSnippetLock(id: string, locked: boolean, ifMatch: string): Promise<EditedDocument> {
  const before = await loadDocument('snippets', id);
  if (before.etag !== ifMatch)
    throw new ApiError(412, { code: 'EDIT_CONFLICT', message: 'The snippet was changed since it was loaded' });
  await call('PUT', `/cms-one/snippets/${encodeURIComponent(id)}/lock`, { locked });
  return loadDocument('snippets', id);
}

/**
 * Stores a thumbnail (`PUT .../thumbnail`) made from the state whose tag is `ifMatch`; answers the
 * new tag, or null when the record changed since (412: the next save reports the conflict).
 */
export async function saveThumbnail(doc: DocumentRef, thumbnail: string, ifMatch: string): Promise<string | null> {
  try {
    return (await json<unknown>('PUT', `${base(doc)}/thumbnail`, { thumbnail }, { 'if-match': ifMatch })).etag;
  } catch (err) {
    if (err instanceof ApiError && err.status === 412) return null;
    throw err;
  }
}

/** Every website (a template is drawn in the theme of one of them). */
export async function listWebsites(): Promise<Website[]> {
  return (await json<Website[]>('GET', '/cms-one/websites')).data;
}
