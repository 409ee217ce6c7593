import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { definePlugin } from '../../kernel/index.ts';
import { MailConfig } from './config.ts';
import { MAIL_PERMISSIONS } from './permissions.ts';
import type {} from './ports.ts';
import { logRoutes } from './routes/log.ts';
import { settingsRoutes } from './routes/settings.ts';
import { templateRoutes } from './routes/templates.ts';
import { mailDataSubjectSource } from './services/data-subject.ts';
import { createMailServices } from './services/index.ts';
import { purgeMailLog } from './services/retention.ts';
import { KEY_NAME } from './services/settings.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const DAY_MS = 24 * 3600_000;

/**
 * Mail on core-api: settings per scope (default, or per website) for SMTP (nodemailer, pooled) or an
 * HTTP provider described by a JSON file in `providers/`; a durable outbox that is also the mail log
 * (rows committed with the change that caused them, sent by a worker with retries); editable
 * templates whose HTML part is rendered by the content plugin's e-mail renderer (registry
 * `mailRenderers`). While loaded it serves the kernel's mail port, so password resets and form
 * notifications go through the outbox and its templates. It contributes the mail log to the
 * registry `dataSubjectSources`.
 */
export default definePlugin({
  id: 'mail',
  processes: ['core-api'],
  // `mailRenderers` (own registry): the e-mail renderer the content plugin contributes.
  // `outboundGuard`: asked before an SMTP connection (HTTP providers go through `outboundFetch`, which asks it).
  // `permissions`: changing what delivers password-reset mail needs every key.
  needs: [
    'db',
    'clock',
    'config',
    'audit',
    'secretBox',
    'mail',
    'extensions',
    'mailRenderers',
    'outboundGuard',
    'permissions',
  ],
  // `outboundFetch` (gateway plugin): HTTP providers are called under the outbound policy;
  // `securitySettings` (identity plugin): `mailLogRetentionDays`; `websiteUploadRules` (assets
  // plugin's registry, filled by the content plugin): which websites exist.
  optional: ['outboundFetch', 'securitySettings', 'websiteUploadRules'],
  collects: ['mailRenderers'],
  permissions: MAIL_PERMISSIONS,
  config: MailConfig,
  // The public sandbox profile sends no mail: the outbox worker does not start, so mail is queued and
  // shown in the mail log (status `queued`) but never handed to a transport. The routes that send now
  // (`/mail-settings/test`, `/mail-log/:id/resend`) declare `sandbox: 'block'`.
  sandbox: { config: { MAIL_WORKER_ENABLED: false } },
  migrations: path.join(here, 'migrations'),
  setup: (deps) => ({ ...createMailServices(deps), release: undefined as (() => void) | undefined }),
  contributes: {
    dataSubjectSources: ({ services }) => mailDataSubjectSource(services.store),
  },
  async onStart({ services, mail, secretBox, config, log, pluginConfig }) {
    if (config.production && !secretBox.hasKey(KEY_NAME))
      log.warn(`${KEY_NAME} is not set: mail secrets (passwords, keys, reset links) cannot be stored`);
    await services.templates.seed();
    services.release = mail.serveWith(services.outbox);
    if (pluginConfig.MAIL_WORKER_ENABLED) {
      services.outbox.onQueued(() => services.worker.wake());
      services.worker.start();
    }
  },
  async onStop({ services }) {
    services.release?.();
    await services.worker.stop();
    await services.transports.close();
  },
  async routes(app, { services }) {
    await settingsRoutes(app, services);
    await logRoutes(app, services);
    await templateRoutes(app, services);
  },
  jobs: [
    {
      name: 'mail-log.retention',
      firstRunAfterMs: 60_000,
      intervalMs: DAY_MS,
      run: async ({ services, clock, audit, log, securitySettings }) =>
        void (await purgeMailLog({ clock, audit, log, store: services.store, securitySettings })),
    },
  ],
});
