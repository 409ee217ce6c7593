import type { Tx } from '../../kernel/index.ts';

/**
 * What the content plugin offers other plugins (container name `publishedSites`). The content plugin
 * owns websites and pages, and with them the gateway content bindings: a page node that reads
 * third-party data gets a server-assigned `gatewayBindingId` when the page is saved, stored in the
 * content plugin's table; the gateway's `/api/v1/gateway/resolve` and `/submit` read them here.
 * Built in core-api and gateway (routes only in core-api).
 */

/** Applied by the gateway to an upstream JSON answer before a published site sees it. */
export interface BindingResultFilter {
  /** Dot path into the answer whose value is used (e.g. `data.items`); default: the whole answer. */
  path?: string;
  /** Fields kept from each row (or from the object); default: all. */
  pick?: string[];
  /** Output name by field name, applied after `pick`. */
  rename?: Record<string, string>;
  /** Rows kept when the value is an array (1-1000). */
  limit?: number;
}

export interface GatewayBinding {
  id: string;
  websiteId: string;
  pageId: string | null;
  endpointId: string;
  routeId: string;
  /** Fixed parameters stored with the page: path template values and query values. */
  parameters: { path?: Record<string, string>; query?: Record<string, string> };
  resultFilter: BindingResultFilter | null;
  /** `resolve` reads (GET-like), `submit` sends a form (POST-like). */
  mode: 'resolve' | 'submit';
}

/** A website's upload rules for public forms (`settings.uploads`), numbers already clamped. */
export interface WebsiteUploadSettings {
  enabled: boolean;
  /** Content-checked types only, e.g. `image/png`, `application/pdf`. */
  allowedTypes: string[];
  maxFileBytes: number;
  maxFilesPerSubmit: number;
  dailyBytes: number;
  /** Target folder of attached files. */
  folder: string;
  /** `private` unless the administrator explicitly allowed a public folder. */
  visibility: 'private' | 'public';
}

export interface PublishedSites {
  findBinding(bindingId: string, trx?: Tx): Promise<GatewayBinding | undefined>;
  /**
   * True when the website has no site key, or `presented` matches its salted hash (constant-time).
   * False for an unknown website or a wrong/missing key.
   */
  checkSiteKey(websiteId: string, presented: string | undefined): Promise<boolean>;
  /** The website whose root path is the first segment of `path`, or whose domain is `host`. */
  findWebsite(by: {
    id?: string;
    host?: string;
    path?: string;
  }): Promise<{ id: string; name: string; rootPath: string } | undefined>;
  uploadSettings(websiteId: string): Promise<WebsiteUploadSettings | undefined>;
}

declare module '../../kernel/index.ts' {
  interface PluginServices {
    publishedSites: PublishedSites;
  }
}
