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
  | 'permissions',
  'outboundFetch' | 'securitySettings' | 'websiteUploadRules',
  typeof MailConfig
>;

/** The plugin's one set of services, built in `setup`. */
export function createMailServices(deps: MailDeps) {
  const { db, clock, log, pluginConfig: cfg } = deps;
  const providers = new ProviderCatalog([
    path.join(here, '..', 'providers'),
    ...deps.extensions.folders('mail-providers'),
  ]);
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
  });
  const templates = new MailTemplateService({
    db,
    clock,
    log,
    store: new MailTemplateStore(db),
    renderers: deps.mailRenderers,
  });
  const transports = new Transports({
    mail: deps.mail,
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
    testMail: new TestMail({ db, outbox, settings, templates, siteUrl, defaultFrom: deps.mail.defaultFrom }),
  };
}

export type MailServices = ReturnType<typeof createMailServices>;
