import { Type } from '@sinclair/typebox';

/** `GET|PUT /figma/settings`: the token only as whether one is kept and its last four characters. */
export const SettingsAnswer = Type.Object({
  tokenSet: Type.Boolean(),
  tokenHint: Type.Union([Type.String(), Type.Null()], { description: 'the last four characters of the token' }),
  apiUrl: Type.String({ description: 'the Figma API base this installation calls (`FIGMA_API_URL`, read only)' }),
});

const ContentNode = Type.Record(Type.String(), Type.Unknown(), {
  description: 'the page node tree `{ type, props?, children?, text? }`, as the content plugin stores it',
});

/** What `POST /figma/import` answers (with `create: true` also the created draft page). */
export const ImportAnswer = Type.Object({
  content: ContentNode,
  assets: Type.Array(
    Type.Object({
      id: Type.String({ format: 'uuid' }),
      path: Type.String(),
      url: Type.String(),
      figmaNodeId: Type.String(),
    }),
  ),
  fonts: Type.Array(
    Type.Object({
      family: Type.String(),
      weights: Type.Array(Type.Integer()),
      styles: Type.Array(Type.String(), { description: 'text style names that use the family' }),
    }),
  ),
  colors: Type.Array(
    Type.Object({
      hex: Type.String({ description: '`#rrggbb` or `#rrggbbaa`' }),
      uses: Type.Integer({ description: 'nodes painted with it' }),
      usage: Type.Array(Type.Union([Type.Literal('text'), Type.Literal('fill'), Type.Literal('stroke')])),
    }),
  ),
  warnings: Type.Array(
    Type.Object({
      code: Type.String(),
      figmaNodeId: Type.Union([Type.String(), Type.Null()]),
      nodeName: Type.Union([Type.String(), Type.Null()]),
      message: Type.String(),
    }),
  ),
  source: Type.Object({
    fileKey: Type.String(),
    nodeId: Type.Union([Type.String(), Type.Null()]),
    name: Type.String({ description: 'the file or frame name' }),
  }),
  frames: Type.Array(Type.Object({ id: Type.String(), name: Type.String() }), {
    description: 'the frames directly on the imported page (a whole-file import), to import one of; empty for a frame',
  }),
  page: Type.Optional(
    Type.Object(
      {
        id: Type.String({ format: 'uuid' }),
        websiteId: Type.String({ format: 'uuid' }),
        locale: Type.String(),
        path: Type.String(),
        title: Type.String(),
        published: Type.Boolean(),
      },
      { description: 'the draft page made with `create: true`' },
    ),
  ),
});
