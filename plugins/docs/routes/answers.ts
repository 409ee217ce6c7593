import { Type } from '@sinclair/typebox';

export const Warning = Type.Object({
  code: Type.String({
    description:
      'BROKEN_LINK, MISSING_IMAGE, LINK_TO_PRIVATE, DUPLICATE_PATH, BAD_FRONT_MATTER, NAV_UNKNOWN_PATH, FILE_TOO_LARGE, TOO_MANY_FILES',
  }),
  path: Type.String(),
  line: Type.Optional(Type.Integer()),
  target: Type.Optional(Type.String()),
  message: Type.String(),
});

export const Heading = Type.Object({ depth: Type.Integer(), text: Type.String(), id: Type.String() });

/** A navigation entry; `children` are entries of the same shape (nested up to 8 levels). */
const NavItem = Type.Object({
  title: Type.String(),
  path: Type.Optional(Type.String()),
  children: Type.Optional(Type.Array(Type.Unknown(), { description: 'entries of the same shape' })),
});
export const Nav = Type.Array(NavItem);

export const Site = Type.Object({
  websiteId: Type.String({ format: 'uuid' }),
  title: Type.String(),
  rootPath: Type.String(),
  index: Type.Object({
    kind: Type.Union([Type.Literal('automatic'), Type.Literal('file')]),
    path: Type.Optional(Type.String()),
  }),
  versions: Type.Array(
    Type.Object({
      name: Type.String({ description: '`vN` (a top-level `vN/` folder) or `latest` (the folder root)' }),
      path: Type.String({ description: "The version's start page" }),
      default: Type.Boolean(),
    }),
    { description: 'Newest first; empty when the folder has no `vN/` folders' },
  ),
});

const Neighbour = Type.Object({ path: Type.String(), title: Type.String() });
export const Page = Type.Object({
  path: Type.String(),
  title: Type.String(),
  description: Type.String(),
  html: Type.String(),
  headings: Type.Array(Heading),
  warnings: Type.Optional(Type.Array(Warning)),
  visibility: Type.Union([Type.Literal('public'), Type.Literal('private')]),
  updatedAt: Type.String({ format: 'date-time' }),
  prev: Type.Optional(Neighbour),
  next: Type.Optional(Neighbour),
  version: Type.Optional(Type.String({ description: "The page's version (a site with versions only)" })),
  inVersions: Type.Optional(
    Type.Array(Type.Object({ version: Type.String(), path: Type.String() }), {
      description: "This page in each version: the same path there, else that version's start page",
    }),
  ),
});

export const Tree = Type.Object({
  documents: Type.Array(
    Type.Object({
      path: Type.String(),
      title: Type.String(),
      visibility: Type.Union([Type.Literal('public'), Type.Literal('private')]),
      assetId: Type.String(),
      updatedAt: Type.String({ format: 'date-time' }),
    }),
  ),
  index: Type.Object({
    kind: Type.Union([Type.Literal('automatic'), Type.Literal('file')]),
    path: Type.Optional(Type.String()),
  }),
  otherFiles: Type.Array(Type.Object({ path: Type.String(), assetId: Type.String() })),
  warnings: Type.Array(Warning),
});

export const Preview = Type.Object({ site: Site, nav: Nav, page: Page });
export const PublicPage = Type.Object({ site: Site, page: Page });
export const PublicNav = Type.Object({ site: Site, nav: Nav });
export const SiteRef = Type.Object({
  websiteId: Type.String({ format: 'uuid' }),
  rootPath: Type.String(),
  title: Type.String(),
});

export const Rendered = Type.Object({
  title: Type.Union([Type.String(), Type.Null()]),
  html: Type.String(),
  headings: Type.Array(Heading),
  warnings: Type.Array(Warning),
});

export const NavCheck = Type.Object({
  ok: Type.Boolean(),
  errors: Type.Array(Type.Object({ line: Type.Integer(), message: Type.String() })),
  warnings: Type.Array(Warning),
  nav: Nav,
});

/**
 * A search index: MiniSearch 7's JSON (`index`) and the options to load it with
 * (`MiniSearch.loadJSON(JSON.stringify(index), options)`).
 */
export const SearchIndex = Type.Object({
  format: Type.Literal('minisearch'),
  version: Type.Integer(),
  options: Type.Object({
    idField: Type.String(),
    fields: Type.Array(Type.String()),
    storeFields: Type.Array(Type.String()),
  }),
  documentCount: Type.Integer(),
  index: Type.Record(Type.String(), Type.Unknown()),
});
