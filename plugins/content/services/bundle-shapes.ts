import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { badRequest } from '../../../kernel/index.ts';
import { Locale, Name, PagePath, Seo, Thumbnail } from '../routes/schemas.ts';
import { REGIONS } from './layouts.ts';
import { MENU_MAX_DEPTH } from './menus.ts';
import { validateNodeTree } from './node-tree.ts';
import { unsafeStyles } from './themes.ts';

const Opt = <T extends TSchema>(schema: T) => Type.Optional(Type.Union([Type.Null(), schema]));
// Manifests carry more than the editor's bodies (old ids, timestamps): extra keys are ignored, the
// fields that are written must have the shapes the editor's routes accept.
const open = { additionalProperties: true };
const Bool = Type.Optional(Type.Boolean());

const Website = Type.Object(
  {
    name: Name,
    locales: Type.Optional(Type.Array(Locale, { minItems: 1, maxItems: 50 })),
    settings: Opt(Type.Record(Type.String({ maxLength: 100 }), Type.Unknown(), { maxProperties: 100 })),
    theme: Opt(Type.String({ maxLength: 200 })),
    kind: Opt(Type.String({ minLength: 1, maxLength: 50, pattern: '^[a-z][a-z0-9-]*$' })),
  },
  open,
);

const Page = Type.Object(
  {
    locale: Locale,
    path: PagePath,
    title: Name,
    dynamic: Bool,
    dataClass: Opt(Type.String({ minLength: 1, maxLength: 200 })),
    // Typed where known; keys another version wrote pass (a site exported before a field was dropped).
    seo: Opt(Type.Object(Seo.properties, open)),
    inSitemap: Bool,
    indexable: Bool,
    published: Bool,
    kind: Opt(Type.Union([Type.Literal('app'), Type.Literal('page')])),
    thumbnail: Type.Optional(Thumbnail),
  },
  open,
);

const MenuEntry = Type.Object(
  {
    label: Name,
    path: Opt(Type.String({ minLength: 1, maxLength: 2000, pattern: '^(https?://|/|#)' })),
    position: Type.Optional(Type.Integer({ minimum: 0, maximum: 100_000 })),
  },
  open,
);

/** As the layout routes accept them. */
const Layout = Type.Object(
  {
    name: Name,
    locale: Opt(Locale),
    isDefault: Bool,
    // Any of the layout's regions, none required (a record keyed by a union would require each).
    regions: Opt(
      Type.Record(Type.String({ pattern: `^(${REGIONS.join('|')})$` }), Type.Unknown(), {
        maxProperties: 5,
      }),
    ),
    slots: Opt(
      Type.Record(
        Type.String({ minLength: 1, maxLength: 50, pattern: '^[A-Za-z][A-Za-z0-9_-]*$' }),
        Type.Object(
          {
            className: Type.Optional(Type.String({ maxLength: 500, pattern: '^[A-Za-z0-9 _:/.\\[\\]-]*$' })),
            style: Type.Optional(Type.String({ maxLength: 2000 })),
          },
          { additionalProperties: false },
        ),
        { maxProperties: 20 },
      ),
    ),
    pathPatterns: Opt(
      Type.Array(Type.String({ minLength: 1, maxLength: 500, pattern: '^(\\*|/[A-Za-z0-9/._~:-]*(/\\*)?)$' }), {
        maxItems: 50,
      }),
    ),
  },
  open,
);

/** As the theme routes accept them. */
const ThemeValues = (max: number) =>
  Type.Record(
    Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9_-]+$' }),
    Type.String({ maxLength: 500 }),
    {
      maxProperties: max,
    },
  );
const Theme = Type.Object(
  {
    name: Name,
    colors: Opt(ThemeValues(100)),
    fonts: Opt(ThemeValues(20)),
    customStyles: Type.Optional(Type.String({ maxLength: 100_000 })),
    isDefault: Bool,
  },
  open,
);

const SECTIONS: ReadonlyArray<[string, TSchema]> = [
  ['pages', Page],
  ['snippets', Type.Object({ name: Name, locked: Bool, thumbnail: Type.Optional(Thumbnail) }, open)],
  ['websitePaths', MenuEntry],
  ['websiteTemplates', Layout],
  ['themes', Theme],
];

const invalid = (message: string, field: string) => badRequest(`${field}: ${message}`, field, 'INVALID_MANIFEST');

function refuse(schema: TSchema, value: unknown, at: string): void {
  if (Value.Check(schema, value)) return;
  const first = [...Value.Errors(schema, value)][0];
  throw invalid(first?.message ?? 'not valid', [at, ...(first?.path ?? '').split('/').filter(Boolean)].join('.'));
}

const rows = <T>(manifest: Record<string, unknown>, section: string) =>
  Array.isArray(manifest[section]) ? (manifest[section] as T[]) : [];

/**
 * The website and the rows a bundle writes, checked as the editor's own routes and services check
 * them, so an import never stores what an editor could not (a text for `locales`, a number for a
 * title, a script in a layout region or in theme styles); 400 naming the first bad field
 * (`pages.3.title`). Page and snippet node trees are checked by the caller.
 */
export function checkBundleShapes(manifest: Record<string, unknown>, maxTreeBytes: number): void {
  if (manifest.website !== undefined) refuse(Website, manifest.website, 'website');
  for (const [section, schema] of SECTIONS)
    rows(manifest, section).forEach((row, i) => {
      refuse(schema, row, `${section}.${i}`);
    });
  checkUniqueIds(manifest);
  checkMenuReferences(manifest);
  // A website has one default theme (a unique index) and one default layout (the layout routes
  // clear the others): a second one is refused, in the dry run as in the apply.
  for (const section of ['themes', 'websiteTemplates'])
    rows<{ isDefault?: boolean }>(manifest, section).forEach((row, i, all) => {
      if (row.isDefault === true && all.findIndex((r) => r.isDefault === true) < i)
        throw invalid(
          `a second default ${section === 'themes' ? 'theme' : 'layout'} (a website has one)`,
          `${section}.${i}.isDefault`,
        );
    });
  rows<Static<typeof Layout>>(manifest, 'websiteTemplates').forEach((layout, i) => {
    for (const [name, tree] of Object.entries(layout.regions ?? {}))
      if (!(REGIONS as readonly string[]).includes(name))
        throw invalid(`unknown region (${REGIONS.join(', ')})`, `websiteTemplates.${i}.regions.${name.slice(0, 64)}`);
      else if (tree !== null) validateNodeTree(tree, `websiteTemplates.${i}.regions.${name}`, maxTreeBytes);
    for (const [name, slot] of Object.entries(layout.slots ?? {}))
      if (/expression\(|javascript:|behavior:/i.test(slot.style ?? ''))
        throw invalid('script in styles is not allowed', `websiteTemplates.${i}.slots.${name}.style`);
  });
  rows<Static<typeof Theme>>(manifest, 'themes').forEach((theme, i) => {
    if (theme.customStyles !== undefined && unsafeStyles(theme.customStyles))
      throw invalid(
        'custom styles may not contain markup, script URLs, expressions or @import',
        `themes.${i}.customStyles`,
      );
  });
}

/**
 * Each record's id once in the bundle: references follow the id to the new record, so an id used twice
 * would give two records one new id (the apply then failed on it after a dry run that saw nothing).
 */
function checkUniqueIds(manifest: Record<string, unknown>): void {
  const seen = new Set<string>();
  for (const [section] of SECTIONS)
    rows<{ id?: unknown }>(manifest, section).forEach((row, i) => {
      if (typeof row.id !== 'string') return;
      if (seen.has(row.id))
        throw invalid(`the id ${row.id.slice(0, 100)} appears twice in the bundle`, `${section}.${i}.id`);
      seen.add(row.id);
    });
}

/**
 * A menu entry names a page and a parent entry of the bundle only: the import makes a new website,
 * and the menu editor refuses a page or an entry of another website (an id of the bundle is replaced
 * by the new record's id; any other id would stay and point into another website). No cycles, at
 * most MENU_MAX_DEPTH levels, as the menu editor checks.
 */
function checkMenuReferences(manifest: Record<string, unknown>): void {
  type Entry = { id?: unknown; pageId?: unknown; parentId?: unknown };
  const pages = new Set(rows<{ id?: unknown }>(manifest, 'pages').map((p) => p.id));
  const entries = rows<Entry>(manifest, 'websitePaths');
  const byId = new Map(entries.filter((e) => typeof e.id === 'string').map((e) => [e.id, e]));
  entries.forEach((entry, i) => {
    if (entry.pageId != null && !(typeof entry.pageId === 'string' && pages.has(entry.pageId)))
      throw invalid('names a page that is not in the bundle', `websitePaths.${i}.pageId`);
    if (entry.parentId == null) return;
    const field = `websitePaths.${i}.parentId`;
    if (!(typeof entry.parentId === 'string' && byId.has(entry.parentId)))
      throw invalid('names a menu entry that is not in the bundle', field);
    let parent: unknown = entry.parentId;
    for (let depth = 1; typeof parent === 'string'; depth++) {
      if (parent === entry.id) throw invalid('an entry cannot be nested below itself', field);
      if (depth >= MENU_MAX_DEPTH) throw invalid(`menus nest at most ${MENU_MAX_DEPTH} levels`, field);
      parent = byId.get(parent)?.parentId;
    }
  });
}
