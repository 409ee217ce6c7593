import type { Readable } from 'node:stream';

/**
 * What the publish plugin collects. It imports no plugin: the plugin that holds websites and pages
 * (content) contributes a `sitePublishSources` item that lists a website's published pages and renders
 * each exactly as the live site serves it to a browser; the plugin that holds files (assets)
 * contributes a `sitePublishFiles` item that finds the library files a page references and opens
 * their bytes. Without contributors every website is unknown (404).
 */

/** A website as a static build needs it. */
export interface PublishWebsite {
  id: string;
  name: string;
  /** `/shop`: the first URL segment the live site answers to. */
  rootPath: string;
  /** The first is the default locale (the one `/public/page/*` serves). */
  locales: string[];
}

/** One published page of a website. */
export interface PublishPageRef {
  locale: string;
  /** Path inside the website (`/`, `/about`). */
  path: string;
  /** A page whose path has parameters (`/blog/:slug`), rendered per object on the live site only. */
  dynamic: boolean;
}

export interface SitePublishSource {
  /** The website, or undefined when there is none with this id. */
  website(websiteId: string): Promise<PublishWebsite | undefined>;
  /** Every published page of the website, every locale, in path order (at most `limit`). */
  pages(websiteId: string, limit: number): Promise<PublishPageRef[]>;
  /**
   * The HTML document of a published page: byte for byte what the live site answers a browser
   * (`Accept: text/html`) at that page's address. Undefined when the page is not published (any more).
   */
  render(websiteId: string, locale: string, path: string): Promise<string | undefined>;
}

/** A library file a page references. */
export interface PublishFile {
  id: string;
  /** Library path: the live site serves it at `/dam-asset/<path>`. */
  path: string;
  mimeType: string;
  size: number;
  visibility: 'public' | 'private';
}

export interface SitePublishFiles {
  /** Library files among these references (`/dam-asset/...` URLs, with or without host, ids, paths). */
  describe(references: readonly string[]): Promise<PublishFile[]>;
  /** The stored bytes of a file. */
  open(id: string): Promise<Readable>;
}

declare module '../../kernel/index.ts' {
  interface PluginContributions {
    sitePublishSources: SitePublishSource;
    sitePublishFiles: SitePublishFiles;
  }
}
