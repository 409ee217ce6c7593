/** The product's admin API as the benchmark uses it: an administrator's session cookie and fetch. */
export interface ApiAnswer<T> {
  status: number;
  json: T;
  headers: Headers;
}

export class ProductApi {
  constructor(
    readonly baseUrl: string,
    private readonly cookie: string,
  ) {}

  async call<T = unknown>(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<ApiAnswer<T>> {
    const res = await fetch(this.baseUrl + path, {
      method,
      headers: {
        cookie: this.cookie,
        ...headers,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      body: body !== undefined ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    let json: unknown = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      json = text;
    }
    return { status: res.status, json: json as T, headers: res.headers };
  }

  /** Like `call`, but anything other than `expected` is an error naming the call. */
  async expect<T = unknown>(expected: number | number[], method: string, path: string, body?: unknown): Promise<T> {
    const answer = await this.call<T>(method, path, body);
    if (![expected].flat().includes(answer.status)) {
      throw new Error(`${method} ${path} answered ${answer.status}: ${JSON.stringify(answer.json).slice(0, 500)}`);
    }
    return answer.json;
  }

  async createClass(name: string, fields: unknown[]): Promise<string> {
    return (await this.expect<{ id: string }>(201, 'POST', '/data-classes', { name, label: name, fields })).id;
  }

  /** One bulk call; every object must be created (a rejected row means the fixtures are wrong). */
  async bulkCreate(className: string, objects: unknown[]): Promise<string[]> {
    const result = await this.expect<{ created: string[]; rejected: unknown[] }>(
      [200, 201],
      'POST',
      '/data-objects/bulk',
      { className, objects },
    );
    if (result.created.length !== objects.length)
      throw new Error(
        `bulk created ${result.created.length} of ${objects.length}: ${JSON.stringify(result.rejected).slice(0, 500)}`,
      );
    return result.created;
  }

  /** Publishes ids through the batch action, 100 per call. */
  async publish(ids: readonly string[]): Promise<void> {
    for (let i = 0; i < ids.length; i += 100) {
      await this.expect(200, 'POST', '/data-objects/batch', { ids: ids.slice(i, i + 100), action: 'publish' });
    }
  }
}

/** Runs `task(i)` for i in [0, count) with at most `parallel` running at once. */
export async function inParallel(count: number, parallel: number, task: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count) await task(next++);
  };
  await Promise.all(Array.from({ length: Math.min(parallel, count) }, worker));
}
