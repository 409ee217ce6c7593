import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { expectNoLeaks } from '../../../test/helpers/answer-leaks.ts';
import { startTestKernel, type TestKernel, type TestUser } from '../../../test/helpers/kernel.ts';
import type { SystemLogs } from '../services/index.ts';

const TOKEN = 'log-store-service-token-0123456789';
const SECRET_LINE = '{"msg":"raw line with the service token","token":"raw-secret-line"}';

/**
 * The answer schemas are the filter: even when the services hand over more than a tail line or a
 * stored file (the raw line's secret, the service token, a file's path on disk), the tail, the store's
 * tail and its file list answer only their own fields.
 */
describe('system-logs: no internal column reaches a client', function () {
  this.timeout(60_000);
  let t: TestKernel;
  let dir: string;
  let reader: TestUser;
  const auth = { authorization: `Bearer ${TOKEN}` };
  const segments = '/api/v1/system/log-store/segments/gateway';
  /** The stored copy's size: where the next append goes. */
  let shipped = 0;
  const append = async () => {
    const res = await t.inject({
      method: 'PUT',
      url: `${segments}/9999999999999-gateway.1.log?offset=${shipped}`,
      headers: { ...auth, 'content-type': 'application/octet-stream' },
      payload: Buffer.from('{"msg":"shipped"}\n'),
    });
    if (res.statusCode === 200) shipped = res.json().size;
    return res;
  };
  const answers = async () => [
    await append(),
    await t.call('GET', '/api/v1/system/logs?lines=5', reader),
    await t.inject({ method: 'GET', url: '/api/v1/system/log-store/tail?lines=5', headers: auth }),
    await t.inject({ method: 'GET', url: segments, headers: auth }),
  ];

  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'cms-logs-'));
    t = await startTestKernel({ plugins: ['system-logs'], env: { LOG_DIR: dir, DAM_SERVICE_TOKEN: TOKEN } });
    ({ reader } = await t.users({ reader: ['system:logs'] }));
    t.kernel.resolve('logger').info('leak-check');
  });
  after(async () => {
    await t?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('answers the tails, the stored files and an append without an internal column', async () => {
    const res = await answers();
    for (const r of res) expect(r.statusCode, r.body).to.equal(200);
    expectNoLeaks(res, { values: [TOKEN] });
  });

  it('answers the tails and the stored files by their schemas, whatever else the services return', async () => {
    const logs = t.services<SystemLogs>('system-logs');
    const store = logs.segments!;
    const { tail, localTail } = logs;
    const list = store.segments;
    const withSecrets = <L extends object>(lines: L[]) =>
      lines.map((l) => ({ ...l, raw: SECRET_LINE, secret: 'raw-secret-line', serviceToken: TOKEN }));
    logs.tail = async (query) => withSecrets(await tail(query)) as Awaited<ReturnType<typeof tail>>;
    logs.localTail = async (query) => withSecrets(await localTail(query)) as Awaited<ReturnType<typeof tail>>;
    store.segments = async (service) =>
      (await list.call(store, service)).map((s) => ({ ...s, path: path.join(dir, 'store', s.name), secret: TOKEN }));
    try {
      const res = await answers();
      for (const r of res) expect(r.statusCode, r.body).to.equal(200);
      const [, own, stored, files] = res;
      expect(own.json().lines).to.not.be.empty;
      expect(files.json().segments).to.not.be.empty;
      for (const r of [own, stored])
        for (const line of r.json().lines) expect(line).to.not.have.any.keys('raw', 'secret', 'serviceToken');
      for (const s of files.json().segments) expect(s).to.have.keys('name', 'size');
      expectNoLeaks(res, { keys: ['raw', 'secret', 'serviceToken', 'path'], values: [TOKEN, 'raw-secret-line', dir] });
    } finally {
      Object.assign(logs, { tail, localTail });
      store.segments = list;
    }
  });
});
