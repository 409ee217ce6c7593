import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PluginDeps } from '../../../kernel/index.ts';
import type { MailConfig } from '../config.ts';
import { MailSettingsStore } from '../store/settings-store.ts';
import { MailTemplateStore } from '../store/template-store.ts';
import { OutboxStore } from '../store/outbox-store.ts';
import { AccountMailGuard } from './account-mail-guard.ts';
import { MailLogService } from './mail-log.ts';
import { MailOutboxService } from './outbox.ts';
import { OutboxQueue } from './outbox-queue.ts';
import { ProviderCatalog } from './providers.ts';
import { MailSettingsService } from './settings.ts';
import { MailTemplateService } from './templates.ts';
import { TestMail } from './test-mail.ts';
import { serverTransport } from './server-transport.ts';
import { Transports } from './transports.ts';

const here = path.dirname(fileURLToPath(import.meta.url));

export type MailDeps = PluginDeps<
  | 'db'
  | 'clock'
  | 'config'
  | 'audit'
  | 'secretBox'
  | 'mail'
  | 'jobs'
  | 'extensions'
  | 'mailRenderers'
  | 'outboundGuard'
  | 'permissions'
  | 'cacheNotices',
  'outboundFetch' | 'securitySettings' | 'websiteUploadRules',
  typeof MailConfig
>;

/** The kernel cache notice of the mail settings and templates every process keeps. */
const MAIL_CACHE = 'mail.settings';

/** The plugin's one set of services, built in `setup`. */
export function createMailServices(deps: MailDeps) {
  const { db, clock, log, pluginConfig: cfg } = deps;
  const providers = new ProviderCatalog([
    path.join(here, '..', 'providers'),
    ...deps.extensions.folders('mail-providers'),
  ]);
  // Settings and templates are kept 5 s per process; a change in any process drops them everywhere.
  const announce = () =>
    void deps.cacheNotices
      .changed(MAIL_CACHE)
      .catch((err) => log.warn({ err }, 'mail: change notice not sent (others see it within 5 s)'));
  const settingsStore = new MailSettingsStore(db);
  const store = new OutboxStore(db);
  const settings = new MailSettingsService({
    db,
    clock,
    audit: deps.audit,
    secretBox: deps.secretBox,
    store: settingsStore,
    providers,
    websites: deps.websiteUploadRules ?? [],
    outboundFetch: deps.outboundFetch,
    outboundGuard: deps.outboundGuard,
    announce,
  });
  const templates = new MailTemplateService({
    db,
    clock,
    log,
    store: new MailTemplateStore(db),
    renderers: deps.mailRenderers,
    announce,
  });
  deps.cacheNotices.on(MAIL_CACHE, () => {
    settings.drop();
    templates.drop();
  });
  const transports = new Transports({
    // The sandbox profile unsets SMTP_URL (the plugin's sandbox rules): its mail is only logged.
    server: serverTransport({ smtpUrl: cfg.SMTP_URL, production: deps.config.production, logger: log }),
    providers,
    outboundFetch: deps.outboundFetch,
    outboundGuard: deps.outboundGuard,
    timeoutMs: cfg.MAIL_SEND_TIMEOUT_SECONDS * 1000,
    connections: cfg.MAIL_WORKER_CONCURRENCY,
  });
  const siteUrl = deps.config.PUBLIC_BASE_URL.replace(/\/+$/, '');
  const outbox = new MailOutboxService({
    db,
    clock,
    log,
    mail: deps.mail,
    jobs: deps.jobs,
    secretBox: deps.secretBox,
    store,
    templates,
    settings,
    transports,
    defaultFrom: cfg.MAIL_FROM,
    host: new URL(deps.config.PUBLIC_BASE_URL).hostname || 'localhost',
  });
  return {
    providers,
    accountMail: new AccountMailGuard(deps.permissions),
    settings,
    templates,
    store,
    outbox,
    transports,
    outboxQueue: new OutboxQueue({ clock, store, outbox }),
    log: new MailLogService({ db, store, outbox }),
    testMail: new TestMail({ db, outbox, settings, templates, siteUrl, defaultFrom: cfg.MAIL_FROM }),
  };
}

export type MailServices = ReturnType<typeof createMailServices>;
