import type { FastifyReply, FastifyRequest } from 'fastify';
import { Readable } from 'node:stream';
import { HttpError, notFound, type Db } from '../../../kernel/index.ts';
import { keys, type AssetRow } from '../model.ts';
import type { ObjectStorage, StoredObjectInfo } from '../storage/object-storage.ts';
import { findAsset } from '../store/asset-store.ts';
import type { ImageProcessor } from './images.ts';
import { MIME_OF, type OutputFormat } from './images.ts';
import { bufferStream, isImageType, type LibraryService } from './library.ts';
import { encodePath, lookupAssetPath } from './paths.ts';
import { derivedName, negotiateFormat, type PresetCatalog } from './presets.ts';

const ROW_TTL_MS = 5_000;
const ROW_CACHE_MAX = 10_000;
/** Seconds a URL without a version (and a preset rendition) may be reused before revalidating. */
export const REVALIDATE_SECONDS = 60;
/**
 * Cache policies (README "Delivery headers"). Only a URL naming the current version is immutable, and
 * shared caches revalidate even that within an hour, so a file made private leaves them. The URL
 * without a version, and presets (an administrator may redefine one), revalidate after a minute.
 */
export const CACHE_POLICY = {
  currentVersion: 'public, max-age=31536000, s-maxage=3600, immutable',
  revalidate: `public, max-age=${REVALIDATE_SECONDS}`,
  private: 'private, no-store',
  /** Refusals, redirects and misses: the same URL answers otherwise later, or with other credentials. */
  none: 'no-store',
} as const;
// Delivered files never run as a page of this origin: no scripts, no plugins, own origin.
const CSP = "default-src 'none'; img-src 'self' data:; media-src 'self'; style-src 'unsafe-inline'; sandbox";
/** Types a browser may show inline; everything else (HTML, SVG, XML, PDF, archives...) is an attachment. */
const INLINE = /^(image\/(jpeg|png|gif|webp|avif)|video\/(mp4|webm|quicktime)|audio\/(mpeg|ogg|wav|mp4))$/;

export interface DeliveryQuery {
  preset?: string;
  thumb?: number;
  /** The asset version the URL names (`?v=`); absent: whatever version is current. */
  v?: string;
}

interface Variant {
  key: string;
  mimeType: string;
  etag: string;
  lastModified: Date;
  vary?: string;
  /** Size when already known (skips a HEAD on the store). */
  info?: StoredObjectInfo;
}

/**
 * `GET /dam-asset/*`: streams stored bytes through the service with validators, ranges and the cache
 * policy of the asset's visibility. Preset renditions are made once, stored and reused.
 */
export class Delivery {
  private readonly rows = new Map<string, { row: AssetRow | null; at: number }>();
  private readonly derivedKnown = new Map<string, StoredObjectInfo>();
  private readonly rendering = new Map<string, Promise<StoredObjectInfo>>();

  constructor(
    private readonly deps: {
      db: Db;
      storage: ObjectStorage;
      images: ImageProcessor;
      presets: PresetCatalog;
      library: LibraryService;
      enforceVisibility: boolean;
      /** Whether the caller may read private files: what reading the library needs (assets:read), or the service token. */
      mayReadPrivate(request: FastifyRequest): Promise<boolean>;
    },
  ) {}

  invalidate(paths: readonly string[]): void {
    for (const p of paths) this.rows.delete(p);
  }

  async serve(
    request: FastifyRequest,
    reply: FastifyReply,
    rawPath: string,
    query: DeliveryQuery,
  ): Promise<FastifyReply> {
    // Until the answer is decided, nothing may be kept by a cache: a refusal, a miss or a redirect
    // answers otherwise later or to other credentials.
    reply.header('cache-control', CACHE_POLICY.none);
    let path: string;
    try {
      path = lookupAssetPath(rawPath).path;
    } catch {
      throw notFound();
    }
    let row = await this.readable(request, await this.row(path));
    let version = versionAsked(query.v, row.version);
    // Another process may have stored a newer version than the row cached here: read it again once.
    if (version === 'other') {
      row = await this.readable(request, await this.row(path, true));
      version = versionAsked(query.v, row.version);
    }
    if (version === 'older') return reply.redirect(this.currentUrl(row, query), 302);
    if (version === 'other') throw notFound(`Version ${query.v} of this asset does not exist`, 'VERSION_NOT_FOUND');

    const variant = await this.variant(request, row, query);
    const info = variant.info ?? (await this.deps.storage.head(variant.key));
    if (!info) throw notFound('The stored file is missing', 'FILE_MISSING');

    reply.header('etag', variant.etag);
    reply.header('last-modified', variant.lastModified.toUTCString());
    reply.header(
      'cache-control',
      row.visibility === 'private'
        ? CACHE_POLICY.private
        : version === 'current' && query.preset === undefined
          ? CACHE_POLICY.currentVersion
          : CACHE_POLICY.revalidate,
    );
    reply.header('x-content-type-options', 'nosniff');
    reply.header('content-security-policy', CSP);
    reply.header('accept-ranges', 'bytes');
    if (variant.vary) reply.header('vary', variant.vary);
    if (!INLINE.test(variant.mimeType)) reply.header('content-disposition', attachment(row.filename));
    reply.type(variant.mimeType);

    if (notModified(request, variant)) return reply.code(304).send();

    const ifRange = request.headers['if-range'];
    const range = parseRange(
      request.headers.range,
      info.size,
      typeof ifRange === 'string' ? ifRange : undefined,
      variant.etag,
    );
    if (range === 'unsatisfiable') {
      reply.header('content-range', `bytes */${info.size}`);
      throw new HttpError(
        416,
        'RANGE_NOT_SATISFIABLE',
        `The range lies outside the file's ${info.size} bytes`,
        undefined,
        { 'content-range': `bytes */${info.size}` },
      );
    }
    const length = range ? range.end - range.start + 1 : info.size;
    reply.header('content-length', length);
    if (range) reply.code(206).header('content-range', `bytes ${range.start}-${range.end}/${info.size}`);
    // An empty stream keeps the Content-Length set above (an empty body would reset it to 0).
    if (request.method === 'HEAD') return reply.send(Readable.from([]));
    const got = await this.deps.storage.get(variant.key, range ?? undefined);
    if (!got) throw notFound('The stored file is missing', 'FILE_MISSING');
    return reply.send(got.body);
  }

  /** The row when it exists and the caller may read it; 404 otherwise (a private file is not revealed). */
  private async readable(request: FastifyRequest, row: AssetRow | null): Promise<AssetRow> {
    if (!row) throw notFound();
    if (row.visibility === 'private' && this.deps.enforceVisibility && !(await this.deps.mayReadPrivate(request)))
      throw notFound();
    return row;
  }

  /** The URL of the same file (original, thumbnail or preset) at the current version, relative. */
  private currentUrl(row: AssetRow, query: DeliveryQuery): string {
    const params = new URLSearchParams();
    if (query.preset !== undefined) params.set('preset', query.preset);
    if (query.thumb !== undefined) params.set('thumb', String(query.thumb));
    params.set('v', String(row.version));
    return `/dam-asset/${encodePath(row.path)}?${params}`;
  }

  private async row(path: string, fresh = false): Promise<AssetRow | null> {
    const now = performance.now();
    const hit = this.rows.get(path);
    if (hit && !fresh && now - hit.at < ROW_TTL_MS) return hit.row;
    const row = (await findAsset(this.deps.db, { path })) ?? null;
    if (this.rows.size >= ROW_CACHE_MAX) this.rows.clear();
    this.rows.set(path, { row, at: now });
    return row;
  }

  private async variant(request: FastifyRequest, row: AssetRow, query: DeliveryQuery): Promise<Variant> {
    const base = row.sha256.slice(0, 24);
    if (query.thumb !== undefined) {
      if (!row.thumbnails.includes(query.thumb)) throw notFound('No thumbnail of that width', 'THUMBNAIL_NOT_FOUND');
      return {
        key: keys.thumbnail(row.id, row.version, query.thumb),
        mimeType: 'image/webp',
        etag: `"${base}-t${query.thumb}"`,
        lastModified: new Date(row.updated_at),
      };
    }
    if (query.preset !== undefined) {
      const preset = await this.deps.presets.get(query.preset);
      if (!preset) throw notFound('Unknown preset', 'PRESET_NOT_FOUND');
      if (!isImageType(row.mime_type)) throw notFound('Presets apply to images only', 'NOT_AN_IMAGE');
      const format = negotiateFormat(preset, request.headers.accept, row.mime_type);
      const name = derivedName(preset, format);
      const key = keys.derived(row.id, row.version, name);
      const info = await this.derived(row, key, preset, format);
      return {
        key,
        info,
        mimeType: MIME_OF[format],
        etag: `"${base}-${name}"`,
        lastModified: new Date(row.updated_at),
        vary: preset.format === 'auto' ? 'Accept' : undefined,
      };
    }
    return {
      key: row.storage_key,
      mimeType: row.mime_type,
      etag: `"${base}"`,
      lastModified: new Date(row.updated_at),
      info: { size: Number(row.size), lastModified: new Date(row.updated_at) },
    };
  }

  /** The stored rendition, made once: concurrent first requests share one rendering. */
  private async derived(
    row: AssetRow,
    key: string,
    preset: Parameters<typeof derivedName>[0],
    format: OutputFormat,
  ): Promise<StoredObjectInfo> {
    const known = this.derivedKnown.get(key);
    if (known) return known;
    let pending = this.rendering.get(key);
    if (!pending) {
      pending = (async () => {
        const existing = await this.deps.storage.head(key);
        if (existing) return existing;
        const out = await this.deps.library.withLocalCopy(row, (file) =>
          this.deps.images.resize(
            file,
            {
              width: preset.width ?? undefined,
              height: preset.height ?? undefined,
              fit: preset.fit,
              format,
              quality: preset.quality,
            },
            format,
            // Anonymous renderings share one turn: each preset, version and format is rendered once.
            { caller: 'delivery' },
          ),
        );
        await this.deps.storage.put(key, bufferStream(out.data), {
          contentType: MIME_OF[format],
          size: out.data.length,
        });
        return { size: out.data.length, lastModified: new Date() };
      })().finally(() => this.rendering.delete(key));
      this.rendering.set(key, pending);
    }
    const info = await pending;
    if (this.derivedKnown.size >= ROW_CACHE_MAX) this.derivedKnown.clear();
    this.derivedKnown.set(key, info);
    return info;
  }
}

/**
 * How `?v=` relates to the current version: absent, the current one, an older one (redirected to the
 * current URL: pages that embed an older URL keep working), or any other value (404: a version that
 * does not exist yet is never answered with another's bytes).
 */
function versionAsked(v: string | undefined, current: number): 'none' | 'current' | 'older' | 'other' {
  if (v === undefined) return 'none';
  if (!/^[1-9][0-9]{0,8}$/.test(v)) return 'other';
  const n = Number(v);
  return n === current ? 'current' : n < current ? 'older' : 'other';
}

function attachment(filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename)}`;
}

function notModified(request: FastifyRequest, v: Variant): boolean {
  const inm = request.headers['if-none-match'];
  if (inm) return inm.split(',').some((t) => t.trim().replace(/^W\//, '') === v.etag || t.trim() === '*');
  const ims = request.headers['if-modified-since'];
  if (ims) {
    const since = Date.parse(ims);
    return Number.isFinite(since) && Math.floor(v.lastModified.getTime() / 1000) <= Math.floor(since / 1000);
  }
  return false;
}

/** One byte range of `Range: bytes=...`; several ranges are answered whole (allowed by RFC 9110). */
export function parseRange(
  header: string | undefined,
  size: number,
  ifRange: string | undefined,
  etag: string,
): { start: number; end: number } | null | 'unsatisfiable' {
  if (!header) return null;
  if (ifRange && ifRange.trim() !== etag) return null;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return null;
  if (m[1] === '') {
    const suffix = Number(m[2]);
    if (suffix === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(m[1]);
  const end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (!Number.isSafeInteger(start) || start >= size || end < start) return 'unsatisfiable';
  return { start, end };
}
