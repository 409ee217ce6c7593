import { type TSchema, Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { badRequest } from '../../../kernel/index.ts';
import { Locale, Name, PagePath, Seo, Thumbnail } from '../routes/schemas.ts';
import { unsafeStyles } from './themes.ts';

const Opt = <T extends TSchema>(schema: T) => Type.Optional(Type.Union([Type.Null(), schema]));
// Manifests carry more than the editor's bodies (old ids, timestamps): extra keys are ignored, the
// fields that are written must have the shapes the editor's routes accept.
const open = { additionalProperties: true };

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

const Bool = Type.Optional(Type.Boolean());

const SECTIONS: ReadonlyArray<[string, TSchema]> = [
  [
    'pages',
    Type.Object(
      {
        locale: Locale,
        path: PagePath,
        title: Name,
        dynamic: Bool,
        dataClass: Opt(Type.String({ minLength: 1, maxLength: 200 })),
        // Typed where known; keys a newer or older version wrote pass (a site exported before a field was dropped).
        seo: Opt(Type.Object(Seo.properties, open)),
        inSitemap: Bool,
        indexable: Bool,
        published: Bool,
        kind: Opt(Type.Union([Type.Literal('app'), Type.Literal('page')])),
        thumbnail: Type.Optional(Thumbnail),
      },
      open,
    ),
  ],
  ['snippets', Type.Object({ name: Name, locked: Bool, thumbnail: Type.Optional(Thumbnail) }, open)],
  [
    'websitePaths',
    Type.Object(
      {
        label: Name,
        path: Opt(Type.String({ minLength: 1, maxLength: 2000, pattern: '^(https?://|/|#)' })),
        position: Type.Optional(Type.Integer({ minimum: 0, maximum: 100_000 })),
      },
      open,
    ),
  ],
  ['websiteTemplates', Type.Object({ name: Name, locale: Opt(Locale), isDefault: Bool }, open)],
  [
    'themes',
    Type.Object(
      { name: Name, customStyles: Type.Optional(Type.String({ maxLength: 100_000 })), isDefault: Bool },
      open,
    ),
  ],
];

function refuse(schema: TSchema, value: unknown, at: string): void {
  if (Value.Check(schema, value)) return;
  const first = [...Value.Errors(schema, value)][0];
  const field = [at, ...(first?.path ?? '').split('/').filter(Boolean)].join('.');
  throw badRequest(`${field}: ${first?.message ?? 'not valid'}`, field, 'INVALID_MANIFEST');
}

/**
 * The website and the rows a bundle writes, checked against the shapes the editor's own routes
 * accept, so an import never stores what an editor could not (a text for `locales`, a number for a
 * title); 400 naming the first bad field (`pages.3.title`).
 */
export function checkBundleShapes(manifest: Record<string, unknown>): void {
  if (manifest.website !== undefined) refuse(Website, manifest.website, 'website');
  for (const [section, schema] of SECTIONS) {
    const rows = manifest[section];
    if (Array.isArray(rows)) rows.forEach((row, i) => refuse(schema, row, `${section}.${i}`));
  }
  const themes = Array.isArray(manifest.themes) ? (manifest.themes as Array<{ customStyles?: unknown }>) : [];
  themes.forEach((theme, i) => {
    if (typeof theme.customStyles === 'string' && unsafeStyles(theme.customStyles))
      throw badRequest(
        `themes.${i}.customStyles: custom styles may not contain markup, script URLs, expressions or @import`,
        `themes.${i}.customStyles`,
        'INVALID_MANIFEST',
      );
  });
}
