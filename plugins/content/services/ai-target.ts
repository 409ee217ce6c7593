import { badRequest, conflict, inTransaction, isHttpError, type PluginContributions } from '../../../kernel/index.ts';
import type { ContentServices } from './index.ts';
import { validateNodeTree } from './node-tree.ts';
import { toPageDto } from './pages.ts';
import { isReservedRoot } from './reserved-paths.ts';

type Target = PluginContributions['aiContentTargets'];
type MenuEntry = Parameters<Target['createWebsite']>[1]['menu'][number];

/** Longest title of a page or a menu entry, as the page and menu routes take it. */
const TITLE_MAX = 200;
const MENU_ENTRIES_MAX = 500;

function checkTitle(title: unknown, field: string): string {
  if (typeof title !== 'string' || title.trim() === '' || title.length > TITLE_MAX)
    throw badRequest(`${field} must be a text of 1 to ${TITLE_MAX} characters`, field);
  return title;
}

/**
 * What the AI plugin writes through (registry `aiContentTargets`): node trees checked by the
 * editor's rules, translations made by the page service's create (same checks as
 * `POST /cms-one/pages`), and a website with its pages and menu in one transaction.
 */
export function contentAiTarget(s: ContentServices, maxTreeBytes: number): Target {
  return {
    contentProblem(tree, field) {
      try {
        validateNodeTree(tree, field, maxTreeBytes);
        return undefined;
      } catch (err) {
        if (isHttpError(err) && err.statusCode === 400) return err.message;
        throw err;
      }
    },

    async pageForTranslation(id) {
      const page = await s.pageStore.find(id);
      if (!page) return undefined;
      // What the editor shows: the working copy when the page has one.
      const staff = await s.pages.staffView(id);
      const site = await s.websites.get(page.website_id);
      const group = await s.pageStore.translations(page.translation_group_id);
      return {
        id,
        websiteId: page.website_id,
        locale: page.locale,
        translationGroupId: page.translation_group_id,
        path: staff.path,
        title: staff.title,
        content: staff.content ?? page.content,
        seo: (staff.seo ?? {}) as Record<string, unknown>,
        websiteLocales: site.locales,
        groupLocales: group.map((p) => p.locale),
      };
    },

    async createTranslation(actor, source, page) {
      const row = await s.pages.create(actor, {
        websiteId: source.websiteId,
        locale: page.locale,
        translationGroupId: source.translationGroupId,
        path: source.path,
        title: checkTitle(page.title, 'title'),
        content: page.content,
        seo: page.seo,
        published: false,
      });
      return toPageDto(row) as unknown as Record<string, unknown>;
    },

    async createWebsite(ctx, structure) {
      const rootPath = structure.rootPath;
      if (/^\/[a-z0-9][a-z0-9_-]*$/.test(rootPath) && isReservedRoot(rootPath.slice(1), s.kernel.mountedRoutes))
        throw conflict(`Root path ${rootPath} is reserved by the host`, 'ROOT_PATH_RESERVED', 'structure.rootPath');
      structure.pages.forEach((p, i) => {
        checkTitle(p.title, `structure.pages.${i}.title`);
        if (!structure.locales.includes(p.locale))
          throw badRequest(`Locale ${p.locale} is not one of the structure's locales`, `structure.pages.${i}.locale`);
        validateNodeTree(p.content, `structure.pages.${i}.content`, maxTreeBytes);
      });
      try {
        return await inTransaction(s.kernel.db, undefined, async (trx) => {
          const website = await s.websites.create(
            ctx,
            {
              name: checkTitle(structure.name, 'structure.name'),
              rootPath,
              locales: structure.locales,
              ...(structure.theme ? { theme: structure.theme } : {}),
            },
            { trx, auditAction: 'website.create_from_ai' },
          );
          const pageIds: string[] = [];
          const pageByPath = new Map<string, string>();
          for (const [i, p] of structure.pages.entries()) {
            const row = await s.pages
              .create(
                ctx.actor,
                { websiteId: website.id, locale: p.locale, path: p.path, title: p.title, content: p.content },
                { trx },
              )
              .catch((err) => {
                if (isHttpError(err) && err.field && !err.field.startsWith('structure.'))
                  throw Object.assign(err, {
                    field: `structure.pages.${i}.${err.field}`,
                    message: `structure.pages.${i}: ${err.message}`,
                  });
                throw err;
              });
            pageIds.push(row.id);
            if (!pageByPath.has(p.path)) pageByPath.set(p.path, row.id);
          }
          const menuEntryIds: string[] = [];
          // Iterative walk (depth capped by the menu service's own rule): parents before children.
          const queue: { entry: MenuEntry; parentId: string | null; position: number; field: string }[] =
            structure.menu.map((entry, i) => ({ entry, parentId: null, position: i, field: `structure.menu.${i}` }));
          while (queue.length) {
            const { entry, parentId, position, field } = queue.shift()!;
            if (menuEntryIds.length >= MENU_ENTRIES_MAX)
              throw badRequest(`A menu has at most ${MENU_ENTRIES_MAX} entries`, 'structure.menu');
            checkTitle(entry.title, `${field}.title`);
            const row = await s.menus.create(
              ctx,
              {
                websiteId: website.id,
                parentId,
                label: entry.title,
                path: entry.path,
                pageId: pageByPath.get(entry.path) ?? null,
                position,
              },
              { trx, audit: false },
            );
            menuEntryIds.push(row.id);
            for (const [i, child] of (entry.children ?? []).entries())
              queue.push({ entry: child, parentId: row.id, position: i, field: `${field}.children.${i}` });
          }
          return { website: { id: website.id, name: website.name, rootPath: website.rootPath }, pageIds, menuEntryIds };
        });
      } catch (err) {
        if (isHttpError(err) && err.statusCode === 409 && err.field === 'rootPath')
          throw conflict(`Root path ${rootPath} is taken by another website`, 'UNIQUE_VIOLATION', 'structure.rootPath');
        throw err;
      }
    },
  };
}
