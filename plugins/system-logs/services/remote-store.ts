import type { Readable } from 'node:stream';
import { type Dispatcher, request } from 'undici';
import { HttpError } from '../../../kernel/index.ts';
import type { LogLine, TailQuery } from './log-lines.ts';
import type { StoredSegment } from './store.ts';

/** How long core-api waits for the store before answering 503. */
const TIMEOUT_MS = 15_000;
const RETRY_AFTER_SECONDS = 30;

/**
 * The log store of the asset-processor seen from core-api and the gateway (`LOG_STORE_URL`, bearer
 * `DAM_SERVICE_TOKEN`): shipping files to it, and reading the tail and the download of everything it
 * holds.
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
    return res.statusCode === 409
      ? new HttpError(409, code, message)
      : new HttpError(
          503,
          'LOG_STORE_UNAVAILABLE',
          `The log store on the asset-processor refused: ${message}`,
          undefined,
          {
            'retry-after': String(RETRY_AFTER_SECONDS),
          },
        );
  }

  async segments(service: string): Promise<StoredSegment[]> {
    const res = await this.call(`/segments/${encodeURIComponent(service)}`);
    if (res.statusCode !== 200) throw await this.fail(res);
    return ((await res.body.json()) as { segments: StoredSegment[] }).segments;
  }

  async append(service: string, name: string, offset: number, bytes: Buffer): Promise<void> {
    const res = await this.call(
      `/segments/${encodeURIComponent(service)}/${encodeURIComponent(name)}?offset=${offset}`,
      {
        method: 'PUT',
        headers: { 'content-type': 'application/octet-stream' },
        body: bytes,
      },
    );
    if (res.statusCode !== 200) throw await this.fail(res);
    await res.body.dump();
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
    `The log store on the asset-processor (LOG_STORE_URL) did not answer: ${reason}`,
    undefined,
    { 'retry-after': String(RETRY_AFTER_SECONDS) },
  );
}
