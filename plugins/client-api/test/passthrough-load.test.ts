import type http from 'node:http';
import { expect } from 'chai';
import { request } from 'undici';
import { eventually, startTestKernel, type TestKernel } from '../../../test/helpers/kernel.ts';
import { startUpstream, type Upstream } from '../../../test/helpers/upstream.ts';

const CAP = 64 * 1024;

/** An upstream answer held open after its first bytes until the test lets it finish. */
class HeldAnswers {
  private readonly open: http.ServerResponse[] = [];
  hold(res: http.ServerResponse, first: string): void {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.write(first);
    this.open.push(res);
  }
  get count(): number {
    return this.open.length;
  }
  finishAll(rest = 'rest'): void {
    for (const res of this.open.splice(0)) res.end(rest);
  }
}

async function readAll(body: AsyncIterable<Buffer>): Promise<string> {
  let text = '';
  for await (const chunk of body) text += chunk.toString('utf8');
  return text;
}

/**
 * The client passthrough with the gateway plugin's real catalog and a real local upstream, over a
 * listening socket: answers streamed, the cap, calls in flight per client and per endpoint, shared
 * cache misses, headers of relayed answers.
 */
describe('client-api: the gateway passthrough under load (real catalog and upstream)', () => {
  let t: TestKernel;
  let up: Upstream;
  let base: string;
  const held = new HeldAnswers();
  const unfinished: http.ServerResponse[] = [];
  let endpointName: string;
  const keys: Record<'a' | 'b' | 'c', string> = { a: '', b: '', c: '' };

  before(async () => {
    up = await startUpstream((req, res) => {
      if (req.url === '/stream' || req.url.startsWith('/hold/')) return held.hold(res, 'first part;');
      if (req.url === '/declared') {
        // Declares more than the cap and sends a little of it: only the declaration can refuse it in time.
        res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(CAP + 1) });
        res.write(Buffer.alloc(16, 1));
        return void unfinished.push(res);
      }
      if (req.url === '/chunked') {
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        for (let i = 0; i < 8; i++) res.write(Buffer.alloc(CAP / 4, 2));
        return res.end();
      }
      if (req.url === '/page') {
        res.writeHead(200, { 'content-type': 'text/html', 'content-security-policy': "script-src 'unsafe-inline'" });
        return res.end('<script>alert(document.cookie)</script>');
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ ok: true }));
    });
    t = await startTestKernel({
      plugins: ['data', 'client-api', 'gateway'],
      env: {
        OUTBOUND_MAX_RESPONSE_BYTES: String(CAP),
        CLIENT_MAX_IN_FLIGHT: '2',
        GATEWAY_ENDPOINT_MAX_IN_FLIGHT: '3',
        CLIENT_DEFAULT_REQUESTS_PER_MINUTE: '100000',
      },
    });
    base = (await t.kernel.listen(0)).replace('0.0.0.0', '127.0.0.1');
    const admin = await t.admin();
    const endpoint = await t.call('POST', '/api/v1/gateway/endpoints', admin, {
      name: 'files',
      baseUrl: up.url,
      timeoutMs: 5_000,
    });
    expect(endpoint.statusCode, endpoint.body).to.equal(201);
    endpointName = endpoint.json().name;
    for (const path of ['/stream', '/declared', '/chunked', '/page', '/small', '/hold/{n}']) {
      const route = await t.call('POST', `/api/v1/gateway/endpoints/${endpoint.json().id}/routes`, admin, {
        method: 'GET',
        path,
      });
      expect(route.statusCode, route.body).to.equal(201);
    }
    const run = await t.call('POST', `/api/v1/gateway/endpoints/${endpoint.json().id}/routes`, admin, {
      method: 'POST',
      path: '/run',
    });
    expect(run.statusCode, run.body).to.equal(201);
    for (const name of ['a', 'b', 'c'] as const) {
      const client = await t.call('POST', '/api/v1/gateway/clients', admin, {
        name: `load-${name}`,
        authMode: 'key',
        scopes: [`gateway:call:${endpointName}`, `automation:run:${endpointName}:*`],
      });
      expect(client.statusCode, client.body).to.equal(201);
      keys[name] = client.json().key;
    }
  });
  afterEach(() => {
    held.finishAll();
    for (const res of unfinished.splice(0)) res.destroy();
  });
  after(async () => {
    held.finishAll();
    await t?.close();
    await up?.close();
  });

  const get = (key: string, path: string) =>
    request(`${base}/client/v1/gateway/${endpointName}${path}`, { headers: { authorization: `Bearer ${key}` } });

  it('passes the answer on as it arrives: the first bytes reach the client before the upstream has finished', async () => {
    const res = await get(keys.a, '/stream');
    expect(res.statusCode).to.equal(200);
    const reader = res.body[Symbol.asyncIterator]();
    const first = await reader.next();
    expect(String(first.value)).to.equal('first part;');
    // Only now, with the first bytes read, does the upstream finish its answer.
    expect(held.count).to.equal(1);
    held.finishAll('and the rest');
    let rest = '';
    for (let next = await reader.next(); !next.done; next = await reader.next()) rest += String(next.value);
    expect(rest).to.equal('and the rest');
  });

  it('refuses an answer whose declared Content-Length is above the cap before reading its body (502 UPSTREAM_TOO_LARGE)', async () => {
    const res = await get(keys.a, '/declared');
    expect(res.statusCode).to.equal(502);
    expect(((await res.body.json()) as { code: string }).code).to.equal('UPSTREAM_TOO_LARGE');
  });

  it('cuts off an answer that passes the cap while it streams: the connection ends before the answer does', async () => {
    const res = await get(keys.a, '/chunked');
    expect(res.statusCode).to.equal(200);
    let received = 0;
    let failure: unknown;
    try {
      for await (const chunk of res.body) received += (chunk as Buffer).length;
    } catch (err) {
      failure = err;
    }
    expect(failure, 'the client must see the answer fail, not end').to.be.instanceOf(Error);
    expect(received).to.be.at.most(CAP);
    // The cut call gave its slots back: the client can call again.
    const next = await get(keys.a, '/small');
    expect(next.statusCode).to.equal(200);
    await next.body.dump();
  });

  it('bounds calls in flight per client and per endpoint (429 with Retry-After); a slot frees when its answer ends or its client goes', async () => {
    const open = async (key: string, n: number) => {
      const res = await get(key, `/hold/${n}`);
      expect(res.statusCode).to.equal(200);
      const reader = res.body[Symbol.asyncIterator]();
      expect(String((await reader.next()).value)).to.equal('first part;');
      return { res, reader };
    };
    const a1 = await open(keys.a, 1);
    await open(keys.a, 2);
    const overClient = await get(keys.a, '/small');
    expect(overClient.statusCode).to.equal(429);
    expect(Number(overClient.headers['retry-after'])).to.be.within(1, 5);
    expect(((await overClient.body.json()) as { code: string }).code).to.equal('CLIENT_CONCURRENCY_LIMITED');

    await open(keys.b, 3); // the endpoint's third call in flight
    for (const key of [keys.b, keys.c]) {
      const overEndpoint = await get(key, '/small');
      expect(overEndpoint.statusCode).to.equal(429);
      expect(Number(overEndpoint.headers['retry-after'])).to.be.within(1, 5);
      expect(((await overEndpoint.body.json()) as { code: string }).code).to.equal('ENDPOINT_BUSY');
    }
    // Automations of that endpoint wait their turn the same way (not an engine error).
    const automation = await request(`${base}/client/v1/automations/${endpointName}/run`, {
      method: 'POST',
      headers: { authorization: `Bearer ${keys.c}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(automation.statusCode).to.equal(429);
    expect(automation.headers['retry-after']).to.equal('1');
    expect(((await automation.body.json()) as { code: string }).code).to.equal('ENDPOINT_BUSY');
    expect(held.count).to.equal(3);

    // A client that goes away gives its slots back (the upstream call is ended too).
    a1.res.body.destroy();
    await eventually(async () => {
      const res = await get(keys.c, '/small');
      await res.body.dump();
      expect(res.statusCode).to.equal(200);
    });
    // Answers that end give theirs back.
    held.finishAll();
    const again = await Promise.all([get(keys.a, '/small'), get(keys.a, '/small')]);
    for (const res of again) {
      expect(res.statusCode).to.equal(200);
      await res.body.dump();
    }
  });

  it('relays every answer with nosniff and a sandbox policy, never the upstream own policy', async () => {
    const res = await get(keys.c, '/page');
    expect(res.statusCode).to.equal(200);
    expect(res.headers['content-type']).to.equal('text/html');
    expect(res.headers['x-content-type-options']).to.equal('nosniff');
    expect(res.headers['content-security-policy']).to.equal('sandbox');
    expect(await readAll(res.body)).to.contain('<script>');
    const json = await get(keys.c, '/small');
    expect(json.headers['x-content-type-options']).to.equal('nosniff');
    await json.body.dump();
  });

  it('looks a key and an endpoint up once for a burst of calls that miss their caches', async () => {
    const admin = await t.admin();
    const created = await t.call('POST', '/api/v1/gateway/clients', admin, {
      name: 'burst',
      authMode: 'key',
      scopes: [`gateway:call:${endpointName}`],
    });
    const key = created.json().key as string;
    await t.advanceClock(60_000); // every cached endpoint and key is stale now
    const queries: string[] = [];
    const listener = (q: { sql: string }) => queries.push(q.sql);
    t.db.on('query', listener);
    try {
      const answers = await Promise.all(
        Array.from({ length: 20 }, () =>
          t.inject({
            method: 'GET',
            url: `/client/v1/gateway/${endpointName}/small`,
            headers: { authorization: `Bearer ${key}` },
          }),
        ),
      );
      // The client's in-flight bound (2) refuses most of the burst; the lookups happen before it.
      expect(answers.map((a) => a.statusCode)).to.include(200);
    } finally {
      t.db.off('query', listener);
    }
    const count = (table: string) => queries.filter((sql) => sql.includes(`"${table}"`)).length;
    expect(count('api_client_keys'), 'key lookups').to.equal(1);
    expect(count('gateway_endpoints'), 'endpoint lookups').to.equal(1);
    expect(count('gateway_routes'), 'route list loads').to.equal(1);
  });
});
