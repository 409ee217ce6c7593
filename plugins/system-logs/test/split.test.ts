import { mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { startTestKernel, type TestKernel } from '../../../test/helpers/kernel.ts';

const TOKEN = 'log-store-service-token-0123456789';
const tempDir = () => mkdtemp(path.join(os.tmpdir(), 'cms-logs-split-'));
const logFilesIn = async (dir: string) => (await readdir(dir)).filter((n) => n.endsWith('.log')).sort();

/**
 * The split deployment's logs: core-api ships its files to the asset-processor's store over HTTP
 * (LOG_STORE_URL, bearer DAM_SERVICE_TOKEN), the gateway ships through core-api, which passes them
 * on; core-api's /api/v1/system/logs reads everything from the store.
 */
describe('system logs in the split deployment: shipped to the asset-processor, read by core-api', function () {
  this.timeout(90_000);
  const dirs: Record<'store' | 'core' | 'gateway', string> = { store: '', core: '', gateway: '' };
  let store: TestKernel;
  let core: TestKernel;
  let gateway: TestKernel;
  let storeUrl: string;

  before(async () => {
    for (const key of Object.keys(dirs) as Array<keyof typeof dirs>) dirs[key] = await tempDir();
    const common = { LOG_LEVEL: 'info', LOG_FILE_MAX_MB: '1', LOG_FILE_COUNT: '2', DAM_SERVICE_TOKEN: TOKEN };
    store = await startTestKernel({
      service: 'asset-processor',
      ownDataDir: true,
      env: { ...common, LOG_DIR: dirs.store, HOST: '127.0.0.1' },
    });
    storeUrl = await store.kernel.listen(0);
    core = await startTestKernel({
      service: 'core-api',
      ownDataDir: true,
      env: { ...common, LOG_DIR: dirs.core, LOG_STORE_URL: storeUrl, HOST: '127.0.0.1' },
    });
    // The gateway ships through core-api, which passes its files on to the asset-processor.
    const coreUrl = await core.kernel.listen(0);
    gateway = await startTestKernel({
      service: 'gateway',
      ownDataDir: true,
      env: { ...common, LOG_DIR: dirs.gateway, LOG_STORE_URL: coreUrl },
    });
  });
  after(async () => {
    await Promise.all([core?.close(), gateway?.close()]);
    await store?.close();
    for (const dir of Object.values(dirs)) if (dir) await rm(dir, { recursive: true, force: true });
  });

  const log = (t: TestKernel) => t.kernel.resolve('logger');
  const tail = async (query = 'lines=1000') => {
    const res = await core.call('GET', `/api/v1/system/logs?${query}`, await core.admin());
    expect(res.statusCode, res.body).to.equal(200);
    return res.json().lines as Array<{ service: string; msg: string; level: string }>;
  };

  it('the tail on core-api holds the lines of all three processes, in time order', async () => {
    log(store).info('split-check store line');
    log(gateway).warn('split-check gateway line');
    log(core).info('split-check core line');
    await gateway.runJob('system-logs', 'ship'); // what its 30 s job does
    const all = await tail();
    const lines = all.filter((l) => l.msg?.startsWith('split-check'));
    expect(lines.map((l) => [l.service, l.msg])).to.have.deep.members([
      ['asset-processor', 'split-check store line'],
      ['gateway', 'split-check gateway line'],
      ['core-api', 'split-check core line'],
    ]);
    const times = all.map((l) => Date.parse((l as unknown as { time: string }).time));
    expect(times).to.deep.equal([...times].sort((a, b) => a - b));
    const warnings = await tail('level=warn&service=gateway');
    expect(warnings.map((l) => l.msg)).to.include('split-check gateway line');
    expect(warnings.every((l) => l.service === 'gateway')).to.equal(true);
  });

  it('ships each byte once: the store copies grow by what was logged since', async () => {
    const folder = path.join(dirs.store, 'store', 'gateway');
    const stored = async () =>
      Promise.all(
        (await readdir(folder))
          .filter((n) => n.endsWith('.log'))
          .map(async (n) => [n, (await stat(path.join(folder, n))).size]),
      );
    await gateway.runJob('system-logs', 'ship');
    const before = await stored();
    await gateway.runJob('system-logs', 'ship');
    expect(await stored()).to.deep.equal(before);
    log(gateway).info('once-check');
    await gateway.runJob('system-logs', 'ship');
    await gateway.runJob('system-logs', 'ship');
    const lines = (await tail('service=gateway')).filter((l) => l.msg === 'once-check');
    expect(lines).to.have.length(1);
  });

  it('a closed file leaves the gateway once stored; the store keeps LOG_FILE_COUNT + 1 per process', async () => {
    const filler = 'y'.repeat(1000);
    for (let batch = 0; batch < 40; batch++) {
      for (let i = 0; i < 100; i++) log(gateway).info({ i, filler }, 'ship-filler');
      await gateway.kernel.resolve('logFiles').flush();
      if (batch % 10 === 9) await gateway.runJob('system-logs', 'ship');
    }
    await gateway.runJob('system-logs', 'ship');
    expect(await logFilesIn(dirs.gateway)).to.have.length(1); // only the current file
    const stored = (await readdir(path.join(dirs.store, 'store', 'gateway'))).filter((n) => n.endsWith('.log'));
    expect(stored).to.have.length(3);
    for (const name of stored) expect(name).to.match(/^\d{13}-gateway\.\d+\.log$/);
  });

  it('a closed file older than everything the store keeps is dropped, and the pass goes on', async () => {
    const old = path.join(dirs.gateway, 'gateway.0.log');
    await writeFile(old, `${JSON.stringify({ level: 30, time: 1_000_000_000_000, msg: 'ancient' })}\n`);
    log(gateway).info('after-ancient');
    await gateway.runJob('system-logs', 'ship');
    expect(await logFilesIn(dirs.gateway)).not.to.include('gateway.0.log');
    const stored = await readdir(path.join(dirs.store, 'store', 'gateway'));
    expect(stored.filter((n) => n.startsWith('1000000000000-'))).to.deep.equal([]);
    expect((await tail('service=gateway&lines=5')).map((l) => l.msg)).to.include('after-ancient');
  });

  it('downloads the files of every process through core-api', async () => {
    log(core).info('download-split-check');
    const res = await core.call('GET', '/api/v1/system/logs/download', await core.admin());
    expect(res.statusCode).to.equal(200);
    expect(res.headers['content-type']).to.equal('application/x-ndjson; charset=utf-8');
    const records = res.body
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { service: string; msg: string });
    expect(new Set(records.map((r) => r.service))).to.deep.equal(new Set(['core-api', 'gateway', 'asset-processor']));
    expect(records.map((r) => r.msg)).to.include('download-split-check');
    const gatewayOnly = await core.call('GET', '/api/v1/system/logs/download?service=gateway', await core.admin());
    const services = new Set(
      gatewayOnly.body
        .split('\n')
        .filter(Boolean)
        .map((l) => (JSON.parse(l) as { service: string }).service),
    );
    expect([...services]).to.deep.equal(['gateway']);
  });

  it('the store answers only the service token, and refuses what is not whole lines at the right offset', async () => {
    const segments = '/api/v1/system/log-store/segments/gateway';
    expect((await store.inject({ method: 'GET', url: segments })).statusCode).to.equal(401);
    const wrong = await store.inject({
      method: 'GET',
      url: segments,
      headers: { authorization: 'Bearer wrong-token-0123456789' },
    });
    expect(wrong.statusCode).to.equal(401);
    // A session, even an administrator's, is not the token.
    const admin = await store.admin();
    expect((await store.call('GET', segments, admin)).statusCode).to.equal(401);

    const auth = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/octet-stream' };
    const put = (name: string, offset: number, body: string) =>
      store.inject({
        method: 'PUT',
        url: `${segments}/${name}?offset=${offset}`,
        headers: auth,
        payload: Buffer.from(body),
      });
    // (the newest name: the store keeps the newest files of a process, by the time in their names)
    const name = '9999999999999-gateway.1.log';
    expect((await put(name, 0, '{"msg":"a"}\n')).json()).to.deep.equal({ size: 12 });
    const mismatch = await put(name, 0, '{"msg":"b"}\n');
    expect(mismatch.statusCode).to.equal(409);
    expect(mismatch.json()).to.include({ code: 'LOG_OFFSET_MISMATCH' });
    expect(mismatch.json().message).to.contain('12');
    const partial = await put(name, 12, '{"msg":"no newline"}');
    expect(partial.statusCode).to.equal(400);
    expect(partial.json()).to.include({ code: 'LOG_LINES_INCOMPLETE' });
    // At the cap (3 kept for the gateway), a new copy older than all of them is refused.
    const tooOld = await put('1000000000000-gateway.1.log', 0, '{"msg":"old"}\n');
    expect(tooOld.statusCode).to.equal(409);
    expect(tooOld.json()).to.include({ code: 'LOG_SEGMENT_TOO_OLD', field: 'name' });
    const badName = await put('core-api.1.log', 0, 'x\n');
    expect(badName.statusCode).to.equal(400);
    expect(badName.json().field).to.equal('name');
    const otherService = await put('9999999999999-core-api.1.log', 0, 'x\n');
    expect(otherService.statusCode).to.equal(400);
    const badOffset = await put(name, -1, 'x\n');
    expect(badOffset.statusCode).to.equal(400);
    expect(`${badOffset.json().field} ${badOffset.json().message}`).to.contain('offset');
  });

  it("core-api passes the gateway's calls on with the store's answers; it keeps no copies itself", async () => {
    const auth = { authorization: `Bearer ${TOKEN}` };
    const direct = await store.inject({
      method: 'GET',
      url: '/api/v1/system/log-store/segments/gateway',
      headers: auth,
    });
    const relayed = await core.inject({
      method: 'GET',
      url: '/api/v1/system/log-store/segments/gateway',
      headers: auth,
    });
    expect(relayed.statusCode).to.equal(200);
    expect(relayed.json()).to.deep.equal(direct.json());
    expect(
      (await core.inject({ method: 'GET', url: '/api/v1/system/log-store/segments/gateway' })).statusCode,
    ).to.equal(401);
    const name = direct.json().segments.at(-1).name as string;
    const mismatch = await core.inject({
      method: 'PUT',
      url: `/api/v1/system/log-store/segments/gateway/${name}?offset=0`,
      headers: { ...auth, 'content-type': 'application/octet-stream' },
      payload: Buffer.from('{"msg":"late"}\n'),
    });
    expect(mismatch.statusCode).to.equal(409);
    expect(mismatch.json()).to.include({ code: 'LOG_OFFSET_MISMATCH' });
    // Reading the store back is the asset-processor's alone.
    expect(
      (await core.inject({ method: 'GET', url: '/api/v1/system/log-store/tail', headers: auth })).statusCode,
    ).to.equal(404);
    expect(await readdir(dirs.core)).not.to.include('store');
  });

  it('core-api answers 503 with Retry-After when the store does not answer', async () => {
    const lonely = await startTestKernel({
      service: 'core-api',
      ownDataDir: true,
      env: { DAM_SERVICE_TOKEN: TOKEN, LOG_STORE_URL: 'http://127.0.0.1:9' },
    });
    try {
      const res = await lonely.call('GET', '/api/v1/system/logs', await lonely.admin());
      expect(res.statusCode).to.equal(503);
      expect(res.json()).to.include({ code: 'LOG_STORE_UNAVAILABLE' });
      expect(res.headers['retry-after']).to.equal('30');
    } finally {
      await lonely.close();
    }
  });
});
