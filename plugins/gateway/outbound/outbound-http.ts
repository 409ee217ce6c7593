import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import type { Readable } from 'node:stream';
import { Agent, buildConnector, request, type Dispatcher } from 'undici';
import { HttpError, badRequest, type OutboundGuard } from '../../../kernel/index.ts';
import type { GatewayAnswer, GatewayStreamedAnswer } from '../ports.ts';
import { type AddressPolicy, normaliseHost } from './address-policy.ts';
import { cappedStream, UpstreamTooLargeError } from './capped-stream.ts';

/** Resolves a host name to its addresses (injectable so tests can point a name anywhere). */
export type Resolver = (host: string) => Promise<string[]>;

const systemResolver: Resolver = async (host) =>
  (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);

/** Thrown from the connector when the policy refuses every address of a host; mapped to 403 OUTBOUND_REFUSED. */
export class OutboundRefusedError extends Error {
  readonly code = 'OUTBOUND_REFUSED';
}

export interface OutboundOptions {
  policy: AddressPolicy;
  /** The kernel's outbound guard, asked before any lookup or connection (it refuses all under the sandbox profile). */
  guard?: Pick<OutboundGuard, 'refusal'>;
  resolve?: Resolver;
  connectTimeoutMs: number;
  /** Default whole-call timeout (headers and body). */
  timeoutMs: number;
  /** Cap on a response body (a request may ask for less): `request` cuts the rest off and sets `truncated`, `stream` fails. */
  maxResponseBytes: number;
  /** Redirects `fetch` follows (each hop re-checked by the connector); route calls never follow. */
  maxRedirects: number;
}

export interface OutboundRequest {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  timeoutMs?: number;
  maxBytes?: number;
  /**
   * Redirects `fetch` may follow for this call, at most the configured `maxRedirects` (0: none, the
   * 3xx is the answer). A call carrying a credential header other than `authorization` or `cookie`
   * (which `fetch` drops on a change of origin) passes 0, so the credential never follows a redirect.
   */
  maxRedirects?: number;
}

/** Answers up to this size with a declared Content-Length are read whole by `stream` (held briefly, cheap to send). */
const SMALL_ANSWER_BYTES = 16 * 1024;

// Connection-level headers that describe one hop, never forwarded in either direction.
export const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
  'content-length',
]);

/**
 * The one module through which the gateway talks to the outside (undici). Every connection goes
 * through a connector that resolves the host itself, checks each address against the policy and then
 * connects to that very address (TLS still verifies the original host name), so a name that changes
 * its answer between the check and the connection (DNS rebinding) cannot slip through: there is no
 * second lookup. Redirects are not followed for route calls (the caller gets the 3xx as the upstream
 * sent it); `fetch` follows a few, each new connection checked the same way.
 */
export class OutboundHttp {
  readonly agent: Agent;
  private readonly resolve: Resolver;

  constructor(private readonly opts: OutboundOptions) {
    this.resolve = opts.resolve ?? systemResolver;
    const base = buildConnector({ timeout: opts.connectTimeoutMs });
    this.agent = new Agent({
      connect: (connectOpts, callback) => {
        const host = normaliseHost(connectOpts.hostname);
        this.pinnedAddress(host).then(
          (address) =>
            base(
              {
                ...connectOpts,
                hostname: address,
                servername: connectOpts.servername || (isIP(host) ? undefined : host),
              },
              callback,
            ),
          (err: Error) => callback(err, null),
        );
      },
      keepAliveTimeout: 10_000,
    });
  }

  /** The first address of `host` the policy allows; refuses when it allows none. */
  async pinnedAddress(host: string): Promise<string> {
    // Before the DNS lookup: under the sandbox profile not even a query leaves the machine.
    const guarded = this.opts.guard?.refusal(host);
    if (guarded !== undefined) throw new OutboundRefusedError(`Outbound call refused: ${guarded}`);
    const addresses = isIP(host) ? [host] : await this.resolve(host);
    let reason = `${host} has no address`;
    for (const address of addresses) {
      const refusal = this.opts.policy.refusal(host, address);
      if (refusal === undefined) return address;
      reason = refusal;
    }
    throw new OutboundRefusedError(`Outbound call refused: ${reason}`);
  }

  /** Why a call to `url` would be refused (guard, then each resolved address), or undefined: no connection opened. */
  async refusal(url: string | URL): Promise<string | undefined> {
    let host: string;
    try {
      host = normaliseHost(checkedUrl(url).hostname);
    } catch (err) {
      return (err as Error).message;
    }
    try {
      await this.pinnedAddress(host);
      return undefined;
    } catch (err) {
      if (err instanceof OutboundRefusedError) return err.message.replace(/^Outbound call refused: /, '');
      // A name that does not exist is refused: nothing could ever be delivered to it. Any other lookup
      // failure (a resolver timing out) says nothing about the URL; the call is checked again when made.
      const code = (err as NodeJS.ErrnoException).code;
      return code === 'ENOTFOUND' || code === 'ENODATA' ? `${host} does not resolve (${code})` : undefined;
    }
  }

  /** One request, no redirects followed; rejects with an HttpError when no answer was received. */
  async request(url: string | URL, init: OutboundRequest = {}): Promise<GatewayAnswer> {
    const target = checkedUrl(url);
    const timeoutMs = Math.min(init.timeoutMs ?? this.opts.timeoutMs, 300_000);
    const maxBytes = Math.min(init.maxBytes ?? this.opts.maxResponseBytes, this.opts.maxResponseBytes);
    const signal = AbortSignal.timeout(timeoutMs);
    try {
      const res = await request(target, {
        dispatcher: this.agent,
        method: (init.method ?? 'GET') as Dispatcher.HttpMethod,
        headers: init.headers,
        body: init.body,
        signal,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      const { body, truncated } = await readCapped(res.body, maxBytes);
      return { status: res.statusCode, headers: flattenHeaders(res.headers), body, truncated };
    } catch (err) {
      throw upstreamError(err, target, signal.aborted);
    }
  }

  /**
   * One request whose answer body is passed on as it arrives (no redirects followed). The status and
   * headers must arrive within the timeout, and so must each part of the body after the one before:
   * a long answer that keeps flowing is not cut by the clock, only by `maxBytes`. A declared
   * `Content-Length` above `maxBytes` is refused before the body is read; one of at most 16 KiB is
   * read whole and handed over as a Buffer.
   */
  async stream(url: string | URL, init: OutboundRequest = {}): Promise<GatewayStreamedAnswer> {
    const target = checkedUrl(url);
    const timeoutMs = Math.min(init.timeoutMs ?? this.opts.timeoutMs, 300_000);
    const maxBytes = Math.min(init.maxBytes ?? this.opts.maxResponseBytes, this.opts.maxResponseBytes);
    // Until the headers arrive (name resolution and connection included), then only the body's pauses count.
    const untilHeaders = new AbortController();
    const timer = setTimeout(
      () => untilHeaders.abort(new DOMException('headers timed out', 'TimeoutError')),
      timeoutMs,
    );
    let res: Dispatcher.ResponseData;
    try {
      res = await request(target, {
        dispatcher: this.agent,
        method: (init.method ?? 'GET') as Dispatcher.HttpMethod,
        headers: init.headers,
        body: init.body,
        signal: untilHeaders.signal,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
    } catch (err) {
      throw upstreamError(err, target, untilHeaders.signal.aborted);
    } finally {
      clearTimeout(timer);
    }
    const declared = res.headers['content-length'];
    const length = typeof declared === 'string' && /^\d{1,15}$/.test(declared) ? Number(declared) : undefined;
    if (length !== undefined && length > maxBytes) {
      res.body.destroy();
      throw new UpstreamTooLargeError(maxBytes);
    }
    const headers = flattenHeaders(res.headers);
    if (length !== undefined && length <= SMALL_ANSWER_BYTES) {
      // A small answer (most API answers) is read whole: passing a buffer on costs the sender less than a stream.
      try {
        const { body } = await readCapped(res.body, maxBytes);
        return { status: res.statusCode, headers, body, length: body.length };
      } catch (err) {
        throw upstreamError(err, target, false);
      }
    }
    return {
      status: res.statusCode,
      headers,
      body: cappedStream(res.body, maxBytes),
      ...(length !== undefined ? { length } : {}),
    };
  }

  /** Like `request`, following up to `maxRedirects` redirects; credentials are dropped when the origin changes. */
  async fetch(url: string | URL, init: OutboundRequest = {}): Promise<GatewayAnswer> {
    let current = checkedUrl(url);
    let step = { ...init, headers: { ...init.headers } };
    const maxRedirects = Math.max(Math.min(init.maxRedirects ?? this.opts.maxRedirects, this.opts.maxRedirects), 0);
    for (let hop = 0; ; hop++) {
      const answer = await this.request(current, step);
      const location = answer.headers.location;
      if (![301, 302, 303, 307, 308].includes(answer.status) || !location || hop >= maxRedirects) return answer;
      const next = new URL(location, current);
      if (next.protocol !== 'http:' && next.protocol !== 'https:') return answer;
      if (next.origin !== current.origin) {
        step.headers = Object.fromEntries(
          Object.entries(step.headers).filter(([k]) => !['authorization', 'cookie'].includes(k.toLowerCase())),
        );
      }
      if (
        answer.status === 303 ||
        ((answer.status === 301 || answer.status === 302) && (step.method ?? 'GET') !== 'GET')
      ) {
        step = { ...step, method: 'GET', body: undefined };
      }
      current = next;
    }
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}

/** An absolute http(s) URL without user information, or a 400 naming `url`. */
export function checkedUrl(url: string | URL): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw badRequest('Not an absolute URL', 'url');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw badRequest('Only http and https URLs are called', 'url');
  if (parsed.username || parsed.password)
    throw badRequest('Credentials in a URL are not accepted; configure them on the endpoint', 'url');
  return parsed;
}

async function readCapped(
  stream: Readable & AsyncIterable<Buffer>,
  maxBytes: number,
): Promise<{ body: Buffer; truncated: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    if (size + chunk.length > maxBytes) {
      chunks.push(chunk.subarray(0, maxBytes - size));
      stream.destroy();
      return { body: Buffer.concat(chunks), truncated: true };
    }
    chunks.push(chunk);
    size += chunk.length;
  }
  return { body: Buffer.concat(chunks), truncated: false };
}

export function flattenHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || HOP_BY_HOP.has(name)) continue;
    out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

/** Maps a failed call to the port's documented errors; messages name the host, never credentials or the query. */
export function upstreamError(err: unknown, url: URL, timedOut: boolean): HttpError {
  const e = err as { code?: string; name?: string; message?: string; cause?: { code?: string } };
  if (err instanceof OutboundRefusedError || e?.code === 'OUTBOUND_REFUSED')
    return new HttpError(403, 'OUTBOUND_REFUSED', e.message ?? 'Outbound call refused');
  if (err instanceof HttpError) return err;
  if (timedOut || e?.name === 'TimeoutError' || TIMEOUT_CODES.has(e?.code ?? '')) {
    return new HttpError(504, 'UPSTREAM_TIMEOUT', `The upstream ${url.host} did not answer in time`);
  }
  const code = e?.code ?? e?.cause?.code ?? 'network error';
  return new HttpError(502, 'UPSTREAM_FAILED', `The upstream ${url.host} could not be reached (${code})`);
}

/**
 * Calls to the installation's own services (core-api, asset-processor) at base URLs from the
 * configuration, for the passthrough routes: no address policy (they live on the private network or
 * loopback by design), the answer streamed back as it arrives.
 */
export class InternalForwarder {
  private readonly agent = new Agent({ keepAliveTimeout: 10_000, connect: { timeout: 5_000 } });

  async forward(
    target: URL,
    init: { method: string; headers: Record<string, string>; body?: Buffer; timeoutMs: number },
  ): Promise<Dispatcher.ResponseData> {
    try {
      return await request(target, {
        dispatcher: this.agent,
        method: init.method as Dispatcher.HttpMethod,
        headers: init.headers,
        body: init.body?.length ? init.body : undefined,
        headersTimeout: init.timeoutMs,
        bodyTimeout: init.timeoutMs,
      });
    } catch (err) {
      throw upstreamError(err, target, false);
    }
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}
