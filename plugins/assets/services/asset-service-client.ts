import { type Dispatcher, request } from 'undici';
import { HttpError } from '../../../kernel/index.ts';

/**
 * core-api's client of the asset-processor's service routes in the split deployment
 * (`ASSET_SERVICE_URL`, bearer `DAM_SERVICE_TOKEN`). One client for every contribution that asks the
 * asset service instead of the local store: website bundle files (registry `websiteBundleFiles`) and a
 * data subject's files (registry `dataSubjectSources`). The asset service's refusals of the request
 * keep their status and code (a file too large stays 413); a refused token (401, 403: the two
 * processes are configured apart), any other answer, or none at all, is a 502 naming what was asked.
 */
export class AssetServiceClient {
  private readonly base: string;
  private readonly auth: { authorization: string };

  constructor(base: string, token: string) {
    this.base = base.replace(/\/$/, '');
    this.auth = { authorization: `Bearer ${token}` };
  }

  /** A JSON request answered with JSON (`expect`: the status of success). */
  async json<T>(what: string, method: 'GET' | 'POST', path: string, body?: unknown, expect = 200): Promise<T> {
    const res = await this.send(what, path, {
      method,
      headers: { ...this.auth, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (res.statusCode !== expect) throw await this.failure(what, res);
    return (await res.body.json()) as T;
  }

  /** A request whose answer body streams back (`expect`: the status of success). */
  async stream(
    what: string,
    path: string,
    init: {
      method?: 'GET' | 'PUT' | 'POST';
      headers?: Record<string, string>;
      body?: Dispatcher.DispatchOptions['body'];
    },
    expect = 200,
  ): Promise<Dispatcher.ResponseData> {
    const res = await this.send(what, path, {
      method: init.method ?? 'GET',
      headers: { ...this.auth, ...init.headers },
      body: init.body,
      bodyTimeout: 0,
    });
    if (res.statusCode !== expect) throw await this.failure(what, res);
    return res;
  }

  private async send(
    what: string,
    path: string,
    options: Omit<Dispatcher.RequestOptions, 'origin' | 'path'>,
  ): Promise<Dispatcher.ResponseData> {
    try {
      return await request(`${this.base}${path}`, options);
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      throw new HttpError(502, 'ASSET_SERVICE_UNREACHABLE', `${what}: the asset service did not answer (${reason})`);
    }
  }

  private async failure(what: string, res: Dispatcher.ResponseData): Promise<HttpError> {
    const text = await res.body.text();
    let message = text.slice(0, 300);
    let code = 'ASSET_SERVICE_ERROR';
    try {
      ({ message, code } = JSON.parse(text));
    } catch {
      // not a JSON error body: keep the text
    }
    const refusedRequest =
      res.statusCode >= 400 && res.statusCode < 500 && res.statusCode !== 401 && res.statusCode !== 403;
    const status = refusedRequest ? res.statusCode : 502;
    return new HttpError(status, code, `${what}: ${message}`);
  }
}
