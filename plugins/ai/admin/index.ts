import { IconRobot, IconSparkles } from '@tabler/icons-react';
import { defineAdminScreens } from '../../admin-ui/app/src/sdk/index.ts';

/** The AI plugin's screens: provider settings per kind (with a connection test) and text generation. */
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
]);
