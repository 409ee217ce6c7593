import { Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import type { App } from '../../../kernel/index.ts';
import { canvasDocument, type CanvasTheme } from '../services/canvas.ts';
import type { ContentServices } from '../services/index.ts';
import { validateNodeTree } from '../services/node-tree.ts';
import type { ThemeRow } from '../services/themes.ts';
import { IdParams, Name, Tree } from './schemas.ts';

const ThemeValues = Type.Record(Type.String({ maxLength: 64 }), Type.String({ maxLength: 300 }), {
  maxProperties: 100,
});
export const CanvasThemeBody = Type.Object(
  {
    colors: Type.Optional(ThemeValues),
    fonts: Type.Optional(ThemeValues),
    customStyles: Type.Optional(Type.String({ maxLength: 200_000 })),
  },
  { additionalProperties: false },
);
const PageCanvasBody = Type.Object(
  { content: Type.Optional(Tree), title: Type.Optional(Name), theme: Type.Optional(CanvasThemeBody) },
  { additionalProperties: false },
);
const SnippetCanvasBody = Type.Object(
  { content: Type.Optional(Tree), theme: Type.Optional(CanvasThemeBody) },
  { additionalProperties: false },
);

/**
 * The canvas is a document of its own, shown in a sandboxed frame: it may load images and styles
 * but never run script or be navigated to as a page of this origin.
 */
const CANVAS_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'content-security-policy':
    "sandbox; default-src 'none'; img-src 'self' data: https:; style-src 'unsafe-inline'; font-src 'self' https: data:",
};

export const sendCanvas = (reply: FastifyReply, html: string) => reply.headers(CANVAS_HEADERS).send(html);

/**
 * The editor's canvas (ours; the spec's `render` routes answer e-mail HTML): a page or snippet as
 * the website shows it, rendered by the same renderer as the public site, with the website's layout
 * and theme. The body may carry the editor's unsaved content, title and theme, so every keystroke
 * and theme change is shown without saving; nothing is stored.
 */
export function canvasRoutes(app: App, s: ContentServices): void {
  const read = { permission: 'objects:read' };
  const tags = ['pages'];
  const maxBytes = s.kernel.pluginConfig.CONTENT_MAX_TREE_BYTES;

  app.post(
    '/cms-one/pages/:id/canvas',
    {
      config: read,
      schema: {
        tags,
        summary: 'The page as the website shows it (HTML), with unsaved content or theme if given',
        params: IdParams,
        body: PageCanvasBody,
      },
    },
    async (request, reply) => {
      const page = await s.pages.get(request.params.id);
      const content =
        request.body.content === undefined ? page.content : validateNodeTree(request.body.content, 'content', maxBytes);
      const context = { websiteId: page.website_id, locale: page.locale };
      const [layout, active, stripComments, expanded] = await Promise.all([
        s.layouts.forPage(page),
        request.body.theme ? null : s.themes.active(page.website_id),
        s.settings.stripHtmlComments(),
        s.expand(content!, context),
      ]);
      return sendCanvas(
        reply,
        canvasDocument({
          title: request.body.title ?? page.title,
          locale: page.locale,
          content: expanded,
          layout,
          theme: request.body.theme ?? storedTheme(active),
          stripComments,
        }),
      );
    },
  );

  app.post(
    '/cms-one/snippets/:id/canvas',
    {
      config: read,
      schema: {
        tags: ['snippets'],
        summary: "The snippet as HTML in its website's theme (no layout), with unsaved content or theme if given",
        params: IdParams,
        body: SnippetCanvasBody,
      },
    },
    async (request, reply) => {
      const snippet = await s.snippets.get(request.params.id);
      const content =
        request.body.content === undefined
          ? snippet.content
          : validateNodeTree(request.body.content, 'content', maxBytes);
      const [active, stripComments, expanded] = await Promise.all([
        request.body.theme || !snippet.website_id ? null : s.themes.active(snippet.website_id),
        s.settings.stripHtmlComments(),
        s.expand(content!, { websiteId: snippet.website_id, locale: null }),
      ]);
      return sendCanvas(
        reply,
        canvasDocument({
          title: snippet.name,
          locale: null,
          content: expanded,
          theme: request.body.theme ?? storedTheme(active),
          stripComments,
        }),
      );
    },
  );
}

export const storedTheme = (row: ThemeRow | null): CanvasTheme | null =>
  row && { colors: row.colors, fonts: row.fonts, customStyles: row.custom_styles };
