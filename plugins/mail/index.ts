import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { definePlugin, type JobRun } from '../../kernel/index.ts';
import { MailConfig } from './config.ts';
import { MAIL_PERMISSIONS } from './permissions.ts';
import type {} from './ports.ts';
import { logRoutes } from './routes/log.ts';
import { settingsRoutes } from './routes/settings.ts';
import { templateRoutes } from './routes/templates.ts';
import { mailDataSubjectSource } from './services/data-subject.ts';
import { createMailServices } from './services/index.ts';
import { OUTBOX_QUEUE, type OutboxJob, RETRY_WAITS_MS } from './services/outbox.ts';
import { purgeMailLog } from './services/retention.ts';
import { KEY_NAME } from './services/settings.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
/** Tries of `mail.outbox` one process runs per pooled SMTP connection. */
const TRIES_PER_CONNECTION = 4;

/**
 * Mail on core-api: settings per scope (default, or per website) for SMTP (nodemailer, pooled) or an
 * HTTP provider described by a JSON file in `providers/`; a durable outbox that is also the mail log
 * (rows committed with the change that caused them, each with its job in the kernel's `mail.outbox`
 * queue, which sends it with retries); editable
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
    'jobs',
    'extensions',
    'mailRenderers',
    'outboundGuard',
    'permissions',
    'cacheNotices',
  ],
  // `outboundFetch` (gateway plugin): HTTP providers are called under the outbound policy;
  // `securitySettings` (identity plugin): `mailLogRetentionDays`; `websiteUploadRules` (assets
  // plugin's registry, filled by the content plugin): which websites exist.
  optional: ['outboundFetch', 'securitySettings', 'websiteUploadRules'],
  collects: ['mailRenderers'],
  permissions: MAIL_PERMISSIONS,
  config: MailConfig,
  // The public sandbox profile sends no mail: no process works the outbox queue, so mail is queued and
  // shown in the mail log (status `queued`) but never handed to a transport. The routes that send now
  // (`/mail-settings/test`, `/mail-log/:id/resend`) declare `sandbox: 'block'`.
  // SMTP_URL is unset too, so a send asked for by a route the profile lets through is only logged.
  sandbox: { config: { MAIL_WORKER_ENABLED: false, SMTP_URL: null } },
  migrations: path.join(here, 'migrations'),
  setup: (deps) => ({ ...createMailServices(deps), release: undefined as (() => void) | undefined }),
  contributes: {
    dataSubjectSources: ({ services }) => mailDataSubjectSource(services.store),
  },
  async onStart({ services, mail, secretBox, config, log }) {
    if (config.production && !secretBox.hasKey(KEY_NAME))
      log.warn(`${KEY_NAME} is not set: mail secrets (passwords, keys, reset links) cannot be stored`);
    await services.templates.seed();
    services.release = mail.serveWith(services.outbox);
    const adopted = await services.outbox.enqueueUnqueued();
    if (adopted) log.info({ mails: adopted }, 'mail: queued mails from before the job queue were enqueued');
  },
  async onStop({ services }) {
    services.release?.();
    await services.transports.close();
  },
  async routes(app, { services }) {
    await settingsRoutes(app, services);
    await logRoutes(app, services);
    await templateRoutes(app, services);
  },
  queues: [
    {
      // One job per mail log row; the row says what became of it.
      name: OUTBOX_QUEUE,
      // Several tries per SMTP connection: while one sends, the others read or record their rows, so
      // the connections do not wait for the database (the pool hands each send the next free one).
      concurrency: ({ pluginConfig }) => TRIES_PER_CONNECTION * pluginConfig.MAIL_WORKER_CONCURRENCY,
      // A send is bounded by its own timeout; as much again is left to wait for a connection and to
      // read and record the row (a try past it is retried later).
      timeoutMs: ({ pluginConfig }) => 2 * pluginConfig.MAIL_SEND_TIMEOUT_SECONDS * 1000,
      worksHere: ({ pluginConfig }) => pluginConfig.MAIL_WORKER_ENABLED,
      retryWaitsMs: RETRY_WAITS_MS,
      run: (job, { services }) => services.outboxQueue.run(job as JobRun<OutboxJob>),
      onFailure: (job, failure, trx, { services }) =>
        services.outboxQueue.onFailure(job as JobRun<OutboxJob>, failure, trx),
    },
  ],
  schedules: [
    {
      name: 'mail-log.retention',
      cron: '41 3 * * *',
      run: async ({ services, clock, audit, log, securitySettings }) =>
        void (await purgeMailLog({ clock, audit, log, store: services.store, securitySettings })),
    },
  ],
});
