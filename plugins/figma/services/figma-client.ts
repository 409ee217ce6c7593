import {
  badRequest,
  HttpError,
  isHttpError,
  notFound,
  type ServiceMap,
  tooManyRequests,
} from '../../../kernel/index.ts';
import type { FigmaFileAnswer, FigmaNodesAnswer } from './figma-types.ts';

export interface FigmaClientOptions {
  /** `FIGMA_API_URL`, e.g. `https://api.figma.com`. */
  baseUrl: string;
  timeoutMs: number;
  maxFileBytes: number;
  maxImageBytes: number;
  /** Absent when the gateway plugin is not loaded in this process: every call is then refused (503). */
  outbound: ServiceMap['outboundFetch'] | undefined;
}

/** Figma's error body: `{ status, err }` (files, nodes, images) or `{ error, status, message }`. */
function reasonOf(body: Buffer): string {
  try {
    const parsed = JSON.parse(body.subarray(0, 4096).toString('utf8')) as Record<string, unknown>;
    const text = parsed.err ?? parsed.message ?? parsed.error;
    if (typeof text === 'string') return text.slice(0, 300);
  } catch {
    // not JSON: the status alone says it
  }
  return '';
}

/** A Figma answer that is not 200, as our answer: a clear 4xx where the caller can act, else 502. */
function figmaError(status: number, body: Buffer, headers: Record<string, string>, what: string): HttpError {
  const reason = reasonOf(body);
  const told = reason ? `: ${reason}` : '';
  if (status === 400)
    return badRequest(`Figma refused the request for ${what} (400${told})`, 'nodeId', 'FIGMA_BAD_REQUEST');
  if (status === 401 || status === 403)
    return new HttpError(
      403,
      'FIGMA_ACCESS_DENIED',
      `Figma refused the access token for ${what} (${status}${told}); check the token in /figma/settings and that it may read the file`,
    );
  if (status === 404) return notFound(`Figma has no ${what} (404${told})`, 'FIGMA_NOT_FOUND');
  if (status === 429) {
    const wait = Math.min(Math.max(Number.parseInt(headers['retry-after'] ?? '', 10) || 60, 1), 3600);
    return tooManyRequests(
      `Figma's rate limit was reached (429${told}); try again in ${wait} s`,
      wait,
      'FIGMA_RATE_LIMITED',
    );
  }
  return new HttpError(502, 'FIGMA_UPSTREAM_FAILED', `Figma answered ${status} for ${what}${told}`);
}

/**
 * The Figma REST API (`GET /v1/files/:key`, `/v1/files/:key/nodes`, `/v1/files/:key/images`,
 * `/v1/images/:key`) through the gateway's outbound policy (the kernel's outbound guard, address
 * rules, timeouts), every answer capped before it is parsed.
 */
export class FigmaClient {
  constructor(private readonly opts: FigmaClientOptions) {}

  /** The gateway's outbound policy, or a 503 that says why no call to Figma can be made here. */
  private get outbound(): ServiceMap['outboundFetch'] {
    if (!this.opts.outbound)
      throw new HttpError(
        503,
        'FIGMA_OUTBOUND_UNAVAILABLE',
        "Calls to Figma go through the gateway plugin's outbound policy, which is not loaded in this process",
      );
    return this.opts.outbound;
  }

  private url(path: string, query: Record<string, string | undefined> = {}): string {
    const base = this.opts.baseUrl.replace(/\/+$/, '');
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(query)) if (v !== undefined) q.set(k, v);
    const text = q.toString();
    return `${base}${path}${text ? `?${text}` : ''}`;
  }

  private async json<T>(
    token: string,
    path: string,
    query: Record<string, string | undefined>,
    what: string,
  ): Promise<T> {
    const answer = await this.outbound.fetch(this.url(path, query), {
      headers: { 'x-figma-token': token, accept: 'application/json' },
      timeoutMs: this.opts.timeoutMs,
      maxBytes: this.opts.maxFileBytes + 1,
      // The token travels in X-Figma-Token, which a redirect would carry along: none is followed.
      maxRedirects: 0,
    });
    if (answer.status >= 300 && answer.status < 400)
      throw new HttpError(
        502,
        'FIGMA_UPSTREAM_FAILED',
        `Figma answered ${answer.status} (a redirect${redirectHost(answer.headers.location, this.opts.baseUrl)}) for ${what}; the API is not expected to redirect and the redirect is not followed`,
      );
    if (answer.status !== 200) throw figmaError(answer.status, answer.body, answer.headers, what);
    if (answer.truncated || answer.body.length > this.opts.maxFileBytes)
      throw new HttpError(
        422,
        'FIGMA_FILE_TOO_LARGE',
        `Figma's answer for ${what} is larger than FIGMA_MAX_FILE_BYTES (${this.opts.maxFileBytes} bytes); import one frame (a link with node-id, or nodeId)`,
      );
    try {
      return JSON.parse(answer.body.toString('utf8')) as T;
    } catch {
      throw new HttpError(502, 'FIGMA_UPSTREAM_FAILED', `Figma's answer for ${what} is not JSON`);
    }
  }

  /** `GET /v1/files/:key` (the whole document). */
  file(token: string, fileKey: string): Promise<FigmaFileAnswer> {
    return this.json(token, `/v1/files/${encodeURIComponent(fileKey)}`, {}, `file ${fileKey}`);
  }

  /** `GET /v1/files/:key/nodes?ids=` (one frame and what is below it). */
  nodes(token: string, fileKey: string, nodeId: string): Promise<FigmaNodesAnswer> {
    return this.json(
      token,
      `/v1/files/${encodeURIComponent(fileKey)}/nodes`,
      { ids: nodeId },
      `node ${nodeId} of file ${fileKey}`,
    );
  }

  /** `GET /v1/files/:key/images`: download URLs of the file's image fills, by image reference. */
  async imageFills(token: string, fileKey: string): Promise<Map<string, string>> {
    const answer = await this.json<{ meta?: { images?: Record<string, unknown> } }>(
      token,
      `/v1/files/${encodeURIComponent(fileKey)}/images`,
      {},
      `the image fills of file ${fileKey}`,
    );
    return urlMap(answer.meta?.images);
  }

  /** `GET /v1/images/:key?ids=&format=`: download URLs of nodes rendered as images. */
  async renders(token: string, fileKey: string, ids: string[], format: 'png' | 'svg'): Promise<Map<string, string>> {
    const answer = await this.json<{ err?: unknown; images?: Record<string, unknown> }>(
      token,
      `/v1/images/${encodeURIComponent(fileKey)}`,
      { ids: ids.join(','), format, scale: format === 'png' ? '2' : undefined },
      `renders of file ${fileKey}`,
    );
    return urlMap(answer.images);
  }

  /**
   * The bytes at an image URL Figma handed out. A URL on the API's own host (a local or proxied
   * Figma) goes under the ordinary policy and follows no redirect; any other host (Figma's image
   * CDN) must be a public address, each redirect's too: an answer cannot send the server to a
   * private, loopback or metadata address. Such a URL throws `ImageRefusedError` (a hostile answer:
   * the import stops), an image that merely fails an `HttpError` (the image is left out).
   */
  async download(url: string): Promise<Buffer> {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new ImageRefusedError('its URL is not a URL');
    }
    if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:')
      throw new ImageRefusedError(`${parsed.protocol} is not an image URL scheme`);
    if (parsed.username || parsed.password) throw new ImageRefusedError('its URL carries credentials');
    const ownHost = parsed.host === new URL(this.opts.baseUrl).host;
    let answer: Awaited<ReturnType<ServiceMap['outboundFetch']['fetch']>>;
    try {
      answer = await this.outbound.fetch(url, {
        timeoutMs: this.opts.timeoutMs,
        maxBytes: this.opts.maxImageBytes + 1,
        publicOnly: !ownHost,
        ...(ownHost ? { maxRedirects: 0 } : {}),
      });
    } catch (err) {
      if (isHttpError(err) && err.code === 'OUTBOUND_REFUSED') throw new ImageRefusedError(err.message);
      if (isHttpError(err)) throw err;
      throw new HttpError(502, 'FIGMA_IMAGE_FAILED', `the image could not be downloaded`);
    }
    if (answer.status >= 300 && answer.status < 400)
      throw new ImageRefusedError(
        `its URL answered a redirect${redirectHost(answer.headers.location, url)}, which is not followed`,
      );
    if (answer.status !== 200)
      throw new HttpError(502, 'FIGMA_IMAGE_FAILED', `the image URL answered ${answer.status}`);
    if (answer.truncated || answer.body.length > this.opts.maxImageBytes)
      throw new HttpError(422, 'FIGMA_IMAGE_TOO_LARGE', `the image is larger than FIGMA_MAX_IMAGE_BYTES`);
    return answer.body;
  }
}

/** An image URL in Figma's answer that the server must not call (private address, bad scheme, redirect). */
export class ImageRefusedError extends Error {}

/** ` to <host>` of a redirect's Location, for a message (never its path or query). */
function redirectHost(location: string | undefined, base: string): string {
  if (!location) return '';
  try {
    return ` to ${new URL(location, base).host}`;
  } catch {
    return '';
  }
}

function urlMap(images: Record<string, unknown> | undefined): Map<string, string> {
  const out = new Map<string, string>();
  if (!images || typeof images !== 'object') return out;
  for (const [id, url] of Object.entries(images)) if (typeof url === 'string') out.set(id, url);
  return out;
}
