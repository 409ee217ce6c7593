import { IconMail, IconMailCog, IconTemplate } from '@tabler/icons-react';
import { defineAdminScreens } from '../../admin-ui/app/src/sdk/index.ts';

/** The mail plugin's screens: settings per scope with a test mail, the mail log (the outbox) and templates. */
export default defineAdminScreens('mail', [
  {
    id: 'mail.settings',
    path: 'mail/settings',
    label: 'Mail settings',
    permission: 'mail:manage',
    menu: { label: 'Mail settings', group: 'Integrations', order: 40, icon: IconMailCog },
    load: () => import('./MailSettings.tsx'),
  },
  {
    id: 'mail.log',
    path: 'mail/log',
    label: 'Mail log',
    permission: 'mail:manage',
    menu: { label: 'Mail log', group: 'Integrations', order: 41, icon: IconMail },
    load: () => import('./MailLog.tsx'),
  },
  {
    id: 'mail.log-entry',
    path: 'mail/log/:id',
    label: 'Mail',
    permission: 'mail:manage',
    load: () => import('./MailEntry.tsx'),
  },
  {
    id: 'mail.templates',
    path: 'mail/templates',
    label: 'Mail templates',
    permission: 'mail:manage',
    menu: { label: 'Mail templates', group: 'Integrations', order: 42, icon: IconTemplate },
    load: () => import('./TemplateList.tsx'),
  },
  {
    id: 'mail.template',
    path: 'mail/templates/:id',
    label: 'Mail template',
    permission: 'mail:manage',
    load: () => import('./TemplateEdit.tsx'),
  },
]);
