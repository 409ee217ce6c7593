/**
 * What the documentation-site plugin collects: the registry `docsWebsites`, contributed by the
 * plugin that holds websites (content). It offers no service. Item types belong here; contributors
 * name the registry in `contributes` and need no import.
 */

/** `settings.docs` of a website of kind `documentation`, as the content plugin validated it. */
export interface DocsSettings {
  /** A library folder (no leading slash; '' the root). */
  sourceFolder: string;
  /** A document of the folder (`index.md`) that is the site's home; absent: an automatic index. */
  indexFile?: string;
  /** A YAML file of the folder that orders the navigation; absent: the folder tree and front matter. */
  navFile?: string;
  /** Visibility of a document whose front matter says none (default `public`). */
  defaultVisibility?: 'public' | 'private';
}

export interface DocsWebsite {
  id: string;
  name: string;
  rootPath: string;
  /** Undefined when the website's settings hold no (or no valid) `docs`. */
  docs: DocsSettings | undefined;
  /** The website's active theme as CSS, or '' for none. */
  themeCss(): Promise<string>;
}

/** What the live site answers a browser at `/<rootPath>/<path>` of a documentation website. */
export type DocsHtmlHandler = (websiteId: string, path: string) => Promise<{ status: 200 | 404; html: string }>;

/** An item of `docsWebsites`: a plugin's websites of kind `documentation`. */
export interface DocsWebsiteSource {
  /**
   * A documentation website by id; undefined for an unknown one or one of another kind. Answered at
   * once (no promise) when the contributor has it in memory: every public read asks.
   */
  byId(id: string): DocsWebsite | undefined | Promise<DocsWebsite | undefined>;
  /** A documentation website by the first segment of its root path (`handbook` for `/handbook`). */
  bySegment(segment: string): Promise<DocsWebsite | undefined>;
  /**
   * The live site's HTML: the contributor's public page route hands a browser's request for a
   * documentation website's path to `handler` (the docs plugin calls this once, in `onStart`).
   * Without a handler such a request answers 404.
   */
  serveHtml(handler: DocsHtmlHandler): void;
}

declare module '../../kernel/index.ts' {
  interface PluginContributions {
    docsWebsites: DocsWebsiteSource;
  }
}
