import { Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { badRequest, type PluginContributions } from '../../../kernel/index.ts';
import type { ContentServices } from './index.ts';
import type { ResolvedWebsite } from './site-directory.ts';

type Source = PluginContributions['docsWebsites'];
type DocsSettings = NonNullable<Awaited<ReturnType<Source['byId']>>>['docs'];
export type DocsHtmlHandler = Parameters<Source['serveHtml']>[0];

/** A library folder: segments without `.`/`..`, backslashes or control characters; '' or '/' the root. */
const FOLDER = '^/?(?:(?!\\.\\.?(?:/|$))[^/\\\\\\u0000-\\u001f]+(?:/(?!\\.\\.?(?:/|$))[^/\\\\\\u0000-\\u001f]+)*)?/?$';
/** A file of the folder, relative to it, without `..` segments. */
const FILE = (ext: string) =>
  `^(?!/)(?:(?!\\.\\.?/)[^/\\\\\\u0000-\\u001f]+/)*(?!\\.\\.?$)[^/\\\\\\u0000-\\u001f]+\\.(?:${ext})$`;

/** `settings.docs` of a documentation website (validated like `settings.uploads`). */
export const DocsSettingsBody = Type.Object(
  {
    sourceFolder: Type.String({ maxLength: 1024, pattern: FOLDER }),
    indexFile: Type.Optional(Type.String({ minLength: 4, maxLength: 1024, pattern: FILE('md') })),
    navFile: Type.Optional(Type.String({ minLength: 5, maxLength: 1024, pattern: FILE('ya?ml') })),
    defaultVisibility: Type.Optional(Type.Union([Type.Literal('public'), Type.Literal('private')])),
  },
  { additionalProperties: false },
);

/** 400 naming the field (`settings.docs.sourceFolder`) unless `value` is valid docs settings; the folder without slashes at its ends. */
export function checkDocsSettings(value: unknown, field: string): NonNullable<DocsSettings> {
  const error = Value.Errors(DocsSettingsBody, value).First();
  if (error) {
    const at = error.path.split('/').filter(Boolean).join('.');
    throw badRequest(`Documentation settings: ${error.message}`, at ? `${field}.${at}` : field);
  }
  const docs = value as NonNullable<DocsSettings>;
  return { ...docs, sourceFolder: docs.sourceFolder.replace(/^\/|\/$/g, '') };
}

/** Stored settings read back: undefined unless they pass the same check (an import, SQL by hand). */
function readDocs(value: unknown): DocsSettings {
  if (value === undefined || !Value.Check(DocsSettingsBody, value)) return undefined;
  return { ...value, sourceFolder: value.sourceFolder.replace(/^\/|\/$/g, '') };
}

/**
 * This plugin's documentation websites (registry `docsWebsites`, docs plugin): websites of kind
 * `documentation` with their `settings.docs`, their theme, and the hand-over of a browser's request
 * at `/<rootPath>/...` to the docs plugin's site (`serveHtml`).
 */
export function docsWebsiteSource(s: ContentServices): Source {
  // One answer per loaded website: a public read checks no settings and makes no object (the
  // directory loads new websites after a write or its time to live, and so new answers).
  const made = new WeakMap<ResolvedWebsite, NonNullable<Awaited<ReturnType<Source['byId']>>>>();
  const of = (site: ResolvedWebsite | undefined) => {
    if (site?.row.kind !== 'documentation') return undefined;
    let docs = made.get(site);
    if (docs === undefined) {
      docs = {
        id: site.id,
        name: site.name,
        rootPath: site.rootPath,
        docs: readDocs(site.row.settings.docs),
        themeCss: () => s.themeCss(site.id),
      };
      made.set(site, docs);
    }
    return docs;
  };
  return {
    byId: (id) => {
      const found = s.directory.byIdNow(id);
      return found instanceof Promise ? found.then(of) : of(found);
    },
    bySegment: async (segment) => of(await s.directory.bySegment(segment)),
    serveHtml(handler) {
      s.docsHtml.handler = handler;
    },
  };
}
