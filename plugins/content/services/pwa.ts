import { inTransaction, notFound, type AuditContext } from '../../../kernel/index.ts';
import type { WebsiteStore } from '../store/websites.ts';
import type { ContentDeps } from './deps.ts';
import type { SiteDirectory } from './site-directory.ts';

export interface PwaInput {
  shortName?: string;
  display?: 'standalone' | 'minimal-ui' | 'fullscreen' | 'browser';
  themeColor?: string;
  backgroundColor?: string;
  icons?: Array<{ src: string; sizes: string; type: string }>;
}

/** Pages put in the service worker's precache list (the most recently changed published ones). */
export const PWA_PRECACHE_PAGES = 50;

/**
 * `POST /cms-one/websites/:id/generate-pwa`: a web app manifest and a service worker configuration
 * from the website (name, root path, first locale), its active theme's colours (unless given) and its
 * published pages; stored in `settings.pwa` with a version that grows on every generation (the cache
 * name), audited as `website.pwa_generate`.
 */
export async function generatePwa(
  deps: { kernel: ContentDeps; directory: SiteDirectory; websites: WebsiteStore },
  ctx: AuditContext,
  websiteId: string,
  input: PwaInput,
) {
  return inTransaction(deps.kernel.db, undefined, async (trx) => {
    const site = await deps.websites.findForUpdate(websiteId, trx);
    if (!site) throw notFound('Website not found');
    const { colors, paths } = await deps.websites.pwaInputs(websiteId, site.locales[0], PWA_PRECACHE_PAGES, trx);
    const scope = `${site.root_path}/`;
    const previous = (site.settings.pwa as { version?: number } | undefined)?.version ?? 0;
    const version = previous + 1;
    const manifest = {
      name: site.name,
      short_name: input.shortName ?? site.name.slice(0, 12),
      start_url: scope,
      scope,
      display: input.display ?? 'standalone',
      lang: site.locales[0],
      theme_color: input.themeColor ?? colors.primary ?? '#ffffff',
      background_color: input.backgroundColor ?? colors.background ?? '#ffffff',
      icons: input.icons ?? [],
    };
    const serviceWorker = {
      cacheName: `site-${websiteId}-v${version}`,
      scope,
      precache: paths.map((p) => `${site.root_path}${p === '/' ? '/' : p}`),
      runtimeCaching: [{ urlPattern: `${scope}*`, strategy: 'NetworkFirst' }],
    };
    const pwa = { version, generatedAt: deps.kernel.clock.now().toISOString(), manifest, serviceWorker };
    await deps.websites.update(websiteId, { settings: { ...site.settings, pwa } }, trx);
    await deps.kernel.audit.record(
      ctx,
      {
        action: 'website.pwa_generate',
        targetType: 'website',
        targetId: websiteId,
        targetLabel: site.name,
        before: previous ? { version: previous } : null,
        after: { version },
      },
      trx,
    );
    deps.directory.invalidate();
    return pwa;
  });
}
