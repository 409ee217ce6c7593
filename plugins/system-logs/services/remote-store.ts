import type { Readable } from 'node:stream';
import { type Dispatcher, request } from 'undici';
import { HttpError } from '../../../kernel/index.ts';
import type { LogLine, TailQuery } from './log-lines.ts';
import type { StoredSegment } from './store.ts';

/** How long core-api waits for the store before answering 503. */
const TIMEOUT_MS = 15_000;
const RETRY_AFTER_SECONDS = 30;

/**
 * The log store seen from core-api and the gateway (`LOG_STORE_URL`, bearer `DAM_SERVICE_TOKEN`):
 * core-api's is the asset-processor (shipping, reading the tail and the download of everything it
 * holds), the gateway's is core-api, which passes what it ships on to the asset-processor.
 */
export class RemoteLogStore {
  private readonly auth: Record<string, string>;

  constructor(
    private readonly base: string,
    token: string,
  ) {
    this.auth = { authorization: `Bearer ${token}` };
  }

  private url(p: string): string {
    return `${this.base.replace(/\/$/, '')}/api/v1/system/log-store${p}`;
  }

  private async call(path: string, options: Omit<Dispatcher.RequestOptions, 'origin' | 'path'> = { method: 'GET' }) {
    try {
      return await request(this.url(path), {
        ...options,
        headers: { ...this.auth, ...(options.headers as Record<string, string>) },
        headersTimeout: TIMEOUT_MS,
      });
    } catch (err) {
      throw unreachable((err as Error).message);
    }
  }

  /** A refusal of the store, as an error for core-api's caller (never the store's body verbatim when it is not ours). */
  private async fail(res: Dispatcher.ResponseData): Promise<HttpError> {
    const text = await res.body.text().catch(() => '');
    let message = `status ${res.statusCode}`;
    let code = 'LOG_STORE_ERROR';
    try {
      const body = JSON.parse(text) as { message?: unknown; code?: unknown };
      if (typeof body.message === 'string') message = body.message;
      if (typeof body.code === 'string') code = body.code;
    } catch {
      // not our error body
    }
    // A refusal of what was sent (the offset, a name) keeps its status; anything else is the store's fault.
    return res.statusCode === 400 || res.statusCode === 409
      ? new HttpError(res.statusCode, code, message)
      : new HttpError(503, 'LOG_STORE_UNAVAILABLE', `The log store (LOG_STORE_URL) refused: ${message}`, undefined, {
          'retry-after': String(RETRY_AFTER_SECONDS),
        });
  }

  async segments(service: string): Promise<StoredSegment[]> {
    const res = await this.call(`/segments/${encodeURIComponent(service)}`);
    if (res.statusCode !== 200) throw await this.fail(res);
    return ((await res.body.json()) as { segments: StoredSegment[] }).segments;
  }

  async append(service: string, name: string, offset: number, bytes: Buffer): Promise<number> {
    const res = await this.call(
      `/segments/${encodeURIComponent(service)}/${encodeURIComponent(name)}?offset=${offset}`,
      {
        method: 'PUT',
        headers: { 'content-type': 'application/octet-stream' },
        body: bytes,
      },
    );
    if (res.statusCode !== 200) throw await this.fail(res);
    return ((await res.body.json()) as { size: number }).size;
  }

  async tail(query: TailQuery): Promise<LogLine[]> {
    const params = new URLSearchParams({ lines: String(query.lines) });
    if (query.level) params.set('level', query.level);
    if (query.service) params.set('service', query.service);
    const res = await this.call(`/tail?${params}`);
    if (res.statusCode !== 200) throw await this.fail(res);
    return ((await res.body.json()) as { lines: LogLine[] }).lines;
  }

  async download(service?: string): Promise<Readable> {
    const res = await this.call(`/download${service ? `?service=${encodeURIComponent(service)}` : ''}`, {
      method: 'GET',
      bodyTimeout: 0,
    });
    if (res.statusCode !== 200) throw await this.fail(res);
    return res.body;
  }
}

function unreachable(reason: string): HttpError {
  return new HttpError(
    503,
    'LOG_STORE_UNAVAILABLE',
    `The log store (LOG_STORE_URL) did not answer: ${reason}`,
    undefined,
    { 'retry-after': String(RETRY_AFTER_SECONDS) },
  );
}
