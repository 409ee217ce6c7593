import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { definePlugin, type PluginDeps } from '../../kernel/index.ts';
import { AiConfig } from './config.ts';
import { AI_PERMISSIONS } from './permissions.ts';
import './ports.ts';
import { generationRoutes } from './routes/generate.ts';
import { settingsRoutes } from './routes/settings.ts';
import { AiCallSlots } from './services/calls.ts';
import { aiDataSubjectSource } from './services/data-subject.ts';
import { GenerationService } from './services/generation.ts';
import { ProviderClient } from './services/provider.ts';
import { AiSettingsService, KEY_NAME } from './services/settings.ts';
import { GeneratedStore } from './store/generated.ts';
import { AiSettingsStore } from './store/settings.ts';

const here = path.dirname(fileURLToPath(import.meta.url));

type AiDeps = PluginDeps<
  'db' | 'clock' | 'secretBox' | 'audit' | 'outboundGuard' | 'permissions' | 'aiContentTargets' | 'users',
  'outboundFetch' | 'assetLibrary',
  typeof AiConfig
>;

function createAiServices(deps: AiDeps) {
  const cfg = deps.pluginConfig;
  const settings = new AiSettingsService({
    db: deps.db,
    store: new AiSettingsStore(deps.db, deps.clock),
    secretBox: deps.secretBox,
    audit: deps.audit,
    log: deps.log,
    encrypt: Boolean(cfg[KEY_NAME]),
    openaiBaseUrl: cfg.AI_OPENAI_BASE_URL,
  });
  const generated = new GeneratedStore(deps.db, deps.clock);
  const provider = new ProviderClient({
    outboundGuard: deps.outboundGuard,
    outboundFetch: deps.outboundFetch,
    retries: cfg.AI_RETRIES,
  });
  const slots = new AiCallSlots({ overall: cfg.AI_MAX_IN_FLIGHT, perUser: cfg.AI_MAX_IN_FLIGHT_PER_USER });
  const generation = new GenerationService({
    settings,
    provider,
    slots,
    generated,
    contentTargets: deps.aiContentTargets,
    assetLibrary: deps.assetLibrary,
    permissions: deps.permissions,
    clock: deps.clock,
  });
  return { settings, generated, generation, provider, slots };
}

/**
 * AI assistance through any provider that speaks the OpenAI wire format (OpenAI, Azure OpenAI,
 * Ollama, vLLM, LM Studio): settings per kind with the key sealed and never answered, text
 * generation (streamed or not), website structures from a brief, page translations and websites
 * made from a structure. Pages and websites are written through the registry `aiContentTargets`
 * (the content plugin contributes it), so generated content passes the editor's rules. Every
 * provider call asks the outbound guard first; the sandbox profile blocks every AI route.
 */
export default definePlugin({
  id: 'ai',
  processes: ['core-api'],
  // `outboundGuard`: asked before every provider connection; `permissions`: translate needs `ai:use` too.
  needs: ['db', 'clock', 'secretBox', 'audit', 'outboundGuard', 'permissions', 'aiContentTargets', 'users'],
  // `outboundFetch` (gateway plugin): provider connections use its pinned dispatcher (address policy after DNS).
  // `assetLibrary` (assets plugin): generated images are stored in the library through it.
  optional: ['outboundFetch', 'assetLibrary'],
  collects: ['aiContentTargets'],
  permissions: AI_PERMISSIONS,
  config: AiConfig,
  migrations: path.join(here, 'migrations'),
  setup: (deps: AiDeps) => createAiServices(deps),
  contributes: {
    // A person's prompts and results (written by their account, or naming them), for the data-subject plugin.
    dataSubjectSources: ({ services, users }) => aiDataSubjectSource(services.generated, users),
  },
  routes(app, { services, log, permissions }) {
    settingsRoutes(app, services.settings, services.provider);
    generationRoutes(app, { generation: services.generation, log, permissions });
  },
  schedules: [
    // Past results older than AI_GENERATED_RETENTION_DAYS, daily at 03:17 UTC.
    {
      name: 'purge-generated',
      cron: '17 3 * * *',
      run: async ({ services, pluginConfig }) =>
        void (await services.generated.purgeOlderThan(pluginConfig.AI_GENERATED_RETENTION_DAYS)),
    },
  ],
});
