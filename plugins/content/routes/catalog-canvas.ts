import { Type } from '@sinclair/typebox';
import { badRequest } from '../../../kernel/index.ts';
import type { App } from '../../../kernel/index.ts';
import type { ContentServices } from '../services/index.ts';
import { REGIONS } from '../services/layouts.ts';
import { validateNodeTree } from '../services/node-tree.ts';
import type { CanvasRegion } from '../services/site-pages.ts';
import { CanvasHtml } from './answers.ts';
import { CANVAS_ROUTE, CanvasThemeBody, sendCanvas } from './canvas.ts';
import { Id, IdParams, Tree } from './schemas.ts';

const TemplateCanvasBody = Type.Object(
  {
    content: Type.Optional(Tree),
    theme: Type.Optional(CanvasThemeBody),
    /** Templates belong to no website: the one whose active theme draws it (when `theme` is not sent). */
    websiteId: Type.Optional(Id),
  },
  { additionalProperties: false },
);
const Region = Type.Union(REGIONS.map((name) => Type.Literal(name)));
const LayoutCanvasBody = Type.Object(
  {
    /** Unsaved regions, each over the stored one of that name (null: an empty region). */
    regions: Type.Optional(
      Type.Object(Object.fromEntries(REGIONS.map((name) => [name, Type.Optional(Type.Union([Type.Null(), Tree]))])), {
        additionalProperties: false,
      }),
    ),
    /** The region being edited: its nodes carry `data-cms-node` paths (`r`, `r.0`, …). */
    region: Type.Optional(Region),
    theme: Type.Optional(CanvasThemeBody),
  },
  { additionalProperties: false },
);

/**
 * The editor's canvas for page templates and website layout templates (ours, like the page and
 * snippet canvases in `canvas.ts`): the public page's document function, renderer and theme CSS
 * (services/site-pages.ts); the body may carry the editor's unsaved tree and theme; nothing is stored.
 */
export function catalogCanvasRoutes(app: App, s: ContentServices): void {
  const maxBytes = s.kernel.pluginConfig.CONTENT_MAX_TREE_BYTES;

  /** An unknown website is the body's mistake (400 naming `websiteId`). */
  const checkWebsite = async (websiteId: string | undefined): Promise<void> => {
    if (websiteId && !(await s.directory.byId(websiteId))) throw badRequest('Website not found', 'websiteId');
  };

  app.post(
    '/cms-one/templates/:id/canvas',
    {
      config: CANVAS_ROUTE,
      schema: {
        tags: ['templates'],
        summary: "A page template as HTML in a website's theme (no layout), with unsaved content or theme if given",
        params: IdParams,
        body: TemplateCanvasBody,
        response: { 200: CanvasHtml },
      },
    },
    async (request, reply) => {
      const template = await s.templates.get(request.params.id);
      const { content, theme, websiteId } = request.body;
      const tree = content === undefined ? template.content : validateNodeTree(content, 'content', maxBytes);
      if (!theme) await checkWebsite(websiteId);
      const html = await s.sitePages.snippet(
        { websiteId: websiteId ?? null, name: template.name, content: tree },
        { theme, annotate: true },
      );
      return sendCanvas(reply, html);
    },
  );

  app.post(
    '/cms-one/websites/:websiteId/templates/:id/canvas',
    {
      config: CANVAS_ROUTE,
      schema: {
        tags: ['layouts'],
        summary:
          "A layout template as HTML in its website's theme, a placeholder where a page's content goes; unsaved regions or theme if given",
        params: Type.Object({ websiteId: Id, id: Id }),
        body: LayoutCanvasBody,
        response: { 200: CanvasHtml },
      },
    },
    async (request, reply) => {
      const { websiteId, id } = request.params;
      const layout = await s.layouts.get(websiteId, id);
      const regions = { ...layout.regions };
      for (const [name, tree] of Object.entries(request.body.regions ?? {}) as Array<[CanvasRegion, unknown]>)
        regions[name] = tree === null ? null : validateNodeTree(tree, `regions.${name}`, maxBytes);
      const html = await s.sitePages.layout(
        { website_id: websiteId, name: layout.name, locale: layout.locale, regions, slots: layout.slots },
        { theme: request.body.theme, edited: request.body.region },
      );
      return sendCanvas(reply, html);
    },
  );
}
