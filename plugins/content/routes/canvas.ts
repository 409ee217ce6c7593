import { Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import type { App, DocumentPolicy } from '../../../kernel/index.ts';
import type { ContentServices } from '../services/index.ts';
import { validateNodeTree } from '../services/node-tree.ts';
import { CanvasHtml } from './answers.ts';
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
 * The canvas is a document of its own, shown in the editor's sandboxed frame (`srcdoc`, which runs
 * under the editor's own policy): it may load images and styles but never run script, and its answer
 * opened as a page of this origin is sandboxed too. Framed by this origin only (kernel/document-policy.ts
 * adds `object-src`, `base-uri` and `form-action`).
 */
export const CANVAS_POLICY: DocumentPolicy = {
  sandbox: '',
  'default-src': "'none'",
  'img-src': "'self' data: https:",
  'style-src': "'unsafe-inline'",
  'font-src': "'self' https: data:",
  'frame-ancestors': "'self'",
};

/** What a canvas route declares: read access, and the canvas's document policy on its answer. */
export const CANVAS_ROUTE = { permission: 'objects:read', documentPolicy: CANVAS_POLICY } as const;

const CANVAS_HEADERS = { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' };

export const sendCanvas = (reply: FastifyReply, html: string) => reply.headers(CANVAS_HEADERS).send(html);

/**
 * The editor's canvas (ours; the spec's `render` routes answer e-mail HTML): a page or snippet as
 * the website shows it, drawn by the public page's own document function (services/site-pages.ts)
 * in the website's layout and theme, its nodes marked for selection. The body may carry the
 * editor's unsaved content, title and theme, so every keystroke and theme change is shown without
 * saving; nothing is stored.
 */
export function canvasRoutes(app: App, s: ContentServices): void {
  const tags = ['pages'];
  const maxBytes = s.kernel.pluginConfig.CONTENT_MAX_TREE_BYTES;

  app.post(
    '/cms-one/pages/:id/canvas',
    {
      config: CANVAS_ROUTE,
      schema: {
        tags,
        summary: 'The page as the website shows it (HTML), with unsaved content or theme if given',
        params: IdParams,
        body: PageCanvasBody,
        response: { 200: CanvasHtml },
      },
    },
    async (request, reply) => {
      // The stored content the editor draws is the working copy when there is one.
      const page = await s.pages.staffView(request.params.id);
      const content =
        request.body.content === undefined ? page.content : validateNodeTree(request.body.content, 'content', maxBytes);
      const html = await s.sitePages.page(
        {
          id: page.id,
          websiteId: page.website_id,
          locale: page.locale,
          path: page.path,
          title: request.body.title ?? page.title,
          seo: page.seo,
          content: content!,
        },
        // The page in its layouts as staff see them: a layout's working copy shows here, not on the site.
        { theme: request.body.theme, annotate: true, layouts: await s.layouts.staffLayouts(page.website_id) },
      );
      return sendCanvas(reply, html);
    },
  );

  app.post(
    '/cms-one/snippets/:id/canvas',
    {
      config: CANVAS_ROUTE,
      schema: {
        tags: ['snippets'],
        summary: "The snippet as HTML in its website's theme (no layout), with unsaved content or theme if given",
        params: IdParams,
        body: SnippetCanvasBody,
        response: { 200: CanvasHtml },
      },
    },
    async (request, reply) => {
      const snippet = await s.snippets.staffView(request.params.id);
      const content =
        request.body.content === undefined
          ? snippet.content
          : validateNodeTree(request.body.content, 'content', maxBytes);
      const html = await s.sitePages.snippet(
        { websiteId: snippet.website_id, name: snippet.name, content: content! },
        { theme: request.body.theme, annotate: true },
      );
      return sendCanvas(reply, html);
    },
  );
}
