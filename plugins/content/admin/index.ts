import { IconBrush, IconPuzzle, IconSettings, IconTemplate, IconWorld } from '@tabler/icons-react';
import { defineAdminScreens } from '../../admin-ui/app/src/sdk/index.ts';

const read = 'objects:read';

/**
 * The content plugin's screens: websites (settings, pages, menu, layouts, themes), pages (details,
 * publication, versions), snippets, page templates and kits, the global themes and the editor's
 * settings. The visual editor itself is served outside the dashboard (`/cms-one/editor/...`).
 */
export default defineAdminScreens('content', [
  {
    id: 'content.websites',
    path: 'websites',
    label: 'Websites',
    permission: read,
    menu: { label: 'Websites', group: 'Content', order: 10, icon: IconWorld },
    load: () => import('./WebsiteList.tsx'),
  },
  {
    id: 'content.website',
    path: 'websites/:id',
    label: 'Website',
    permission: read,
    load: () => import('./WebsiteSettings.tsx'),
  },
  {
    id: 'content.website-pages',
    path: 'websites/:id/pages',
    label: 'Pages',
    permission: read,
    load: () => import('./PageList.tsx'),
  },
  {
    id: 'content.website-menu',
    path: 'websites/:id/menu',
    label: 'Menu',
    permission: read,
    load: () => import('./MenuEditor.tsx'),
  },
  {
    id: 'content.website-layouts',
    path: 'websites/:id/layouts',
    label: 'Layouts',
    permission: read,
    load: () => import('./LayoutList.tsx'),
  },
  {
    id: 'content.website-layout',
    path: 'websites/:id/layouts/:layout',
    label: 'Layout',
    permission: read,
    load: () => import('./LayoutEdit.tsx'),
  },
  {
    id: 'content.website-themes',
    path: 'websites/:id/themes',
    label: 'Website themes',
    permission: read,
    load: () => import('./ThemeList.tsx'),
  },
  {
    id: 'content.website-theme',
    path: 'websites/:id/themes/:theme',
    label: 'Website theme',
    permission: read,
    load: () => import('./ThemeEdit.tsx'),
  },
  { id: 'content.page', path: 'pages/:id', label: 'Page', permission: read, load: () => import('./PageEdit.tsx') },
  {
    id: 'content.snippets',
    path: 'snippets',
    label: 'Snippets',
    permission: read,
    menu: { label: 'Snippets', group: 'Content', order: 20, icon: IconPuzzle },
    load: () => import('./SnippetList.tsx'),
  },
  {
    id: 'content.snippet',
    path: 'snippets/:id',
    label: 'Snippet',
    permission: read,
    load: () => import('./SnippetEdit.tsx'),
  },
  {
    id: 'content.templates',
    path: 'templates',
    label: 'Templates',
    permission: read,
    menu: { label: 'Templates', group: 'Content', order: 30, icon: IconTemplate },
    load: () => import('./TemplateList.tsx'),
  },
  {
    id: 'content.template',
    path: 'templates/:id',
    label: 'Template',
    permission: read,
    load: () => import('./TemplateEdit.tsx'),
  },
  { id: 'content.kit', path: 'kits/:id', label: 'Kit', permission: read, load: () => import('./KitEdit.tsx') },
  {
    id: 'content.themes',
    path: 'themes',
    label: 'Themes',
    permission: read,
    menu: { label: 'Themes', group: 'Content', order: 40, icon: IconBrush },
    load: () => import('./ThemeList.tsx'),
  },
  {
    id: 'content.theme',
    path: 'themes/:theme',
    label: 'Theme',
    permission: read,
    load: () => import('./ThemeEdit.tsx'),
  },
  {
    id: 'content.settings',
    path: 'content-settings',
    label: 'Editor settings',
    permission: read,
    menu: { label: 'Editor settings', group: 'Content', order: 50, icon: IconSettings },
    load: () => import('./EditorSettings.tsx'),
  },
]);
