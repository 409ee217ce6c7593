import { Type } from '@sinclair/typebox';

/** The structure's shape: the body of `/cms-one/websites/from-ai` and the check of a provider's answer. */
const Title = Type.String({ minLength: 1, maxLength: 200 });
const Locale = Type.String({ minLength: 2, maxLength: 35, pattern: '^[A-Za-z]{2,3}([_-][A-Za-z0-9]{2,8})*$' });
const PagePath = Type.String({ minLength: 1, maxLength: 2000, pattern: '^/' });
const MenuPath = Type.String({ minLength: 1, maxLength: 2000, pattern: '^(https?://|/|#)' });

export const MAX_STRUCTURE_PAGES = 50;

// Menu entries nest at most three levels (a typebox schema cannot recurse without a $ref the
// answer-schema serialiser would have to resolve; three levels are what a website skeleton needs).
const Leaf = Type.Object({ title: Title, path: MenuPath }, { additionalProperties: false });
const Middle = Type.Object(
  { title: Title, path: MenuPath, children: Type.Optional(Type.Array(Leaf, { maxItems: 50 })) },
  { additionalProperties: false },
);
const Top = Type.Object(
  { title: Title, path: MenuPath, children: Type.Optional(Type.Array(Middle, { maxItems: 50 })) },
  { additionalProperties: false },
);

export const StructurePage = Type.Object(
  {
    path: PagePath,
    title: Title,
    locale: Locale,
    content: Type.Record(Type.String(), Type.Unknown(), { description: 'A node tree, as the editor saves it' }),
  },
  { additionalProperties: false },
);

export const WebsiteStructure = Type.Object(
  {
    name: Title,
    rootPath: Type.String({ minLength: 2, maxLength: 100, pattern: '^/[a-z0-9][a-z0-9_-]*$' }),
    locales: Type.Array(Locale, { minItems: 1, maxItems: 20 }),
    theme: Type.Optional(Type.Union([Type.Null(), Type.String({ maxLength: 200 })])),
    pages: Type.Array(StructurePage, { minItems: 1, maxItems: MAX_STRUCTURE_PAGES }),
    menu: Type.Array(Top, { maxItems: 50 }),
  },
  { additionalProperties: false },
);

/** The JSON Schema the provider is asked to answer by (structured outputs, or the tool's parameters). */
export function structureJsonSchema(): Record<string, unknown> {
  const node = {
    type: 'object',
    description:
      'A content node: { type: "section"|"h1"|"h2"|"h3"|"p"|"ul"|"li"|"a"|"img"|"div", text?: string, props?: object, children?: node[] }',
  };
  const entry = (children?: Record<string, unknown>) => ({
    type: 'object',
    required: ['title', 'path'],
    additionalProperties: false,
    properties: {
      title: { type: 'string' },
      path: { type: 'string', description: 'a page path of the structure, e.g. /about' },
      ...(children ? { children: { type: 'array', items: children } } : {}),
    },
  });
  return {
    type: 'object',
    required: ['name', 'rootPath', 'locales', 'pages', 'menu'],
    additionalProperties: false,
    properties: {
      name: { type: 'string', description: 'the website name' },
      rootPath: { type: 'string', description: 'one lower-case segment, e.g. /bakery' },
      locales: { type: 'array', items: { type: 'string' } },
      theme: { type: ['string', 'null'] },
      pages: {
        type: 'array',
        items: {
          type: 'object',
          required: ['path', 'title', 'locale', 'content'],
          additionalProperties: false,
          properties: {
            path: { type: 'string', description: '/ for the home page, else /segment' },
            title: { type: 'string' },
            locale: { type: 'string' },
            content: node,
          },
        },
      },
      menu: { type: 'array', items: entry(entry(entry())) },
    },
  };
}
