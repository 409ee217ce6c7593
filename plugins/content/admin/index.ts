import { IconBrush, IconGitPullRequest, IconPuzzle, IconSettings, IconTemplate, IconWorld } from '@tabler/icons-react';
import { type AdminMenuEntry, type AdminScreen, defineAdminScreens } from '../../admin-ui/app/src/sdk/index.ts';

/**
 * A content screen (`content.<id>`) every reader of objects may open; with `menu`, listed under
 * Content by its label.
 */
function screen(
  id: string,
  path: string,
  label: string,
  load: AdminScreen['load'],
  menu?: Pick<AdminMenuEntry, 'order' | 'icon'>,
): AdminScreen {
  const entry = { id: `content.${id}`, path, label, permission: 'objects:read', load };
  return menu ? { ...entry, menu: { label, group: 'Content', ...menu } } : entry;
}

/**
 * The content plugin's screens: websites (settings, pages, menu, layouts, themes), pages (details,
 * publication, versions), snippets, page templates and kits, the global themes and the editor's
 * settings. The visual editor itself is served outside the dashboard (`/cms-one/editor/...`).
 */
export default defineAdminScreens('content', [
  screen('websites', 'websites', 'Websites', () => import('./WebsiteList.tsx'), { order: 10, icon: IconWorld }),
  screen('website', 'websites/:id', 'Website', () => import('./WebsiteSettings.tsx')),
  screen('website-pages', 'websites/:id/pages', 'Pages', () => import('./PageList.tsx')),
  screen('website-menu', 'websites/:id/menu', 'Menu', () => import('./MenuEditor.tsx')),
  screen('website-layouts', 'websites/:id/layouts', 'Layouts', () => import('./LayoutList.tsx')),
  screen('website-layout', 'websites/:id/layouts/:layout', 'Layout', () => import('./LayoutEdit.tsx')),
  screen('website-themes', 'websites/:id/themes', 'Website themes', () => import('./ThemeList.tsx')),
  screen('website-theme', 'websites/:id/themes/:theme', 'Website theme', () => import('./ThemeEdit.tsx')),
  screen('page', 'pages/:id', 'Page', () => import('./PageEdit.tsx')),
  screen('snippets', 'snippets', 'Snippets', () => import('./SnippetList.tsx'), { order: 20, icon: IconPuzzle }),
  screen('snippet', 'snippets/:id', 'Snippet', () => import('./SnippetEdit.tsx')),
  screen('templates', 'templates', 'Templates', () => import('./TemplateList.tsx'), { order: 30, icon: IconTemplate }),
  screen('template', 'templates/:id', 'Template', () => import('./TemplateEdit.tsx')),
  screen('kit', 'kits/:id', 'Kit', () => import('./KitEdit.tsx')),
  screen('themes', 'themes', 'Themes', () => import('./ThemeList.tsx'), { order: 40, icon: IconBrush }),
  screen('theme', 'themes/:theme', 'Theme', () => import('./ThemeEdit.tsx')),
  screen('pending-changes', 'pending-changes', 'Pending changes', () => import('./PendingChanges.tsx'), {
    order: 45,
    icon: IconGitPullRequest,
  }),
  screen('settings', 'content-settings', 'Editor settings', () => import('./EditorSettings.tsx'), {
    order: 50,
    icon: IconSettings,
  }),
]);
