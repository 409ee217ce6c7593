import { Type } from '@sinclair/typebox';
import { badRequest, isHttpError } from '../../../kernel/index.ts';
import type { App } from '../../../kernel/index.ts';
import { canvasDocument, type CanvasRegion } from '../services/canvas.ts';
import type { ContentServices } from '../services/index.ts';
import { REGIONS } from '../services/layouts.ts';
import { validateNodeTree } from '../services/node-tree.ts';
import type { ThemeRow } from '../services/themes.ts';
import { CanvasThemeBody, sendCanvas, storedTheme } from './canvas.ts';
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
 * snippet canvases in `canvas.ts`): the same renderer and theme CSS as the public site; the body may
 * carry the editor's unsaved tree and theme; nothing is stored.
 */
export function catalogCanvasRoutes(app: App, s: ContentServices): void {
  const read = { permission: 'objects:read' };
  const maxBytes = s.kernel.pluginConfig.CONTENT_MAX_TREE_BYTES;

  /** A website's active theme; an unknown website is the body's mistake (400 naming `websiteId`). */
  const themeOf = async (websiteId: string | undefined): Promise<ThemeRow | null> => {
    if (!websiteId) return null;
    try {
      return await s.themes.active(websiteId);
    } catch (err) {
      if (isHttpError(err) && err.statusCode === 404) throw badRequest('Website not found', 'websiteId');
      throw err;
    }
  };

  app.post(
    '/cms-one/templates/:id/canvas',
    {
      config: read,
      schema: {
        tags: ['templates'],
        summary: "A page template as HTML in a website's theme (no layout), with unsaved content or theme if given",
        params: IdParams,
        body: TemplateCanvasBody,
      },
    },
    async (request, reply) => {
      const template = await s.templates.get(request.params.id);
      const { content, theme, websiteId } = request.body;
      const tree = content === undefined ? template.content : validateNodeTree(content, 'content', maxBytes);
      const [active, stripComments, expanded] = await Promise.all([
        theme ? null : themeOf(websiteId),
        s.settings.stripHtmlComments(),
        s.expand(tree, { websiteId: websiteId ?? null, locale: null }),
      ]);
      return sendCanvas(
        reply,
        canvasDocument({
          title: template.name,
          locale: null,
          content: expanded,
          theme: theme ?? storedTheme(active),
          stripComments,
        }),
      );
    },
  );

  app.post(
    '/cms-one/websites/:websiteId/templates/:id/canvas',
    {
      config: read,
      schema: {
        tags: ['layouts'],
        summary:
          "A layout template as HTML in its website's theme, a placeholder where a page's content goes; unsaved regions or theme if given",
        params: Type.Object({ websiteId: Id, id: Id }),
        body: LayoutCanvasBody,
      },
    },
    async (request, reply) => {
      const { websiteId, id } = request.params;
      const layout = await s.layouts.get(websiteId, id);
      const regions = { ...layout.regions };
      for (const [name, tree] of Object.entries(request.body.regions ?? {}) as Array<[CanvasRegion, unknown]>)
        regions[name] = tree === null ? null : validateNodeTree(tree, `regions.${name}`, maxBytes);
      const edited = request.body.region;
      const [active, stripComments, expanded] = await Promise.all([
        request.body.theme ? null : s.themes.active(websiteId),
        s.settings.stripHtmlComments(),
        // The edited region is expanded as a page's content is (menus, bindings), the others as a page's canvas shows them.
        edited && regions[edited] ? s.expand(regions[edited], { websiteId, locale: layout.locale }) : null,
      ]);
      if (edited && expanded) regions[edited] = expanded;
      return sendCanvas(
        reply,
        canvasDocument({
          title: layout.name,
          locale: layout.locale,
          layout: { regions, slots: layout.slots },
          theme: request.body.theme ?? storedTheme(active),
          stripComments,
          editedRegion: edited,
        }),
      );
    },
  );
}
