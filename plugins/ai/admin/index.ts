import { IconPhotoAi, IconRobot, IconSitemap, IconSparkles } from '@tabler/icons-react';
import { defineAdminScreens } from '../../admin-ui/app/src/sdk/index.ts';

/**
 * The AI plugin's screens: provider settings per kind (with a connection test), text generation, a
 * website from a brief and an image into the asset library.
 */
export default defineAdminScreens('ai', [
  {
    id: 'ai.settings',
    path: 'ai/settings',
    label: 'AI settings',
    permission: 'settings:manage',
    menu: { label: 'AI settings', group: 'Integrations', order: 50, icon: IconRobot },
    load: () => import('./AiSettings.tsx'),
  },
  {
    id: 'ai.generate',
    path: 'ai/generate',
    label: 'Generate text',
    permission: 'ai:use',
    menu: { label: 'Generate text', group: 'Content', order: 60, icon: IconSparkles },
    load: () => import('./AiGenerate.tsx'),
  },
  {
    id: 'ai.website',
    path: 'ai/website',
    label: 'New website from a brief',
    permission: 'ai:use',
    menu: { label: 'New website from a brief', group: 'Content', order: 61, icon: IconSitemap },
    load: () => import('./AiWebsite.tsx'),
  },
  {
    id: 'ai.image',
    path: 'ai/image',
    label: 'Generate image',
    permission: 'ai:use',
    menu: { label: 'Generate image', group: 'Assets', order: 20, icon: IconPhotoAi },
    load: () => import('./AiImage.tsx'),
  },
]);
