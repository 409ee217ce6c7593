import type { PluginContributions } from '../../../kernel/index.ts';
import type { ContentServices } from './index.ts';

// The publish plugin's item type, reached through the kernel's registry augmentation (no import of its files).
type SitePublishSource = PluginContributions['sitePublishSources'];

/**
 * Websites and their published pages for static builds (the publish plugin's registry
 * `sitePublishSources`): each page rendered by `pageHtml`, the very function the public page routes
 * answer a browser with, so a build holds the live site's bytes.
 */
export function contentPublishSource(s: ContentServices): SitePublishSource {
  return {
    async website(websiteId) {
      const site = await s.directory.byId(websiteId);
      return site && { id: site.id, name: site.name, rootPath: site.rootPath, locales: [...site.locales] };
    },
    // A build runs after a publish: the read replica is let replay it first (at most 2 s).
    async pages(websiteId, limit) {
      await s.kernel.readReplica.caughtUp();
      return s.publicStore.publishedPages(websiteId, limit);
    },
    async render(websiteId, locale, path) {
      const site = await s.directory.byId(websiteId);
      return site && s.pageHtml(site, locale, path);
    },
  };
}
