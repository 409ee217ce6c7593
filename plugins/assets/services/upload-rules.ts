import type { WebsiteUploadRules, WebsiteUploadSettings } from '../ports.ts';

/**
 * The websites' upload rules, asked of each item of the registry `websiteUploadRules` in turn (the
 * content plugin contributes one). The registry fills as contributors are set up, so it is read on use.
 */
export class UploadRules {
  constructor(private readonly sources: readonly WebsiteUploadRules[]) {}

  /** False when no loaded plugin holds websites (no content plugin): no website can be found. */
  get available(): boolean {
    return this.sources.length > 0;
  }

  async findWebsite(by: Parameters<WebsiteUploadRules['findWebsite']>[0]) {
    for (const source of this.sources) {
      const found = await source.findWebsite(by);
      if (found) return found;
    }
    return undefined;
  }

  async uploadSettings(websiteId: string): Promise<WebsiteUploadSettings | undefined> {
    for (const source of this.sources) {
      const settings = await source.uploadSettings(websiteId);
      if (settings) return settings;
    }
    return undefined;
  }
}
