import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ManualClock } from '../../../kernel/clock.ts';
import { PROJECT_ROOT } from '../../../kernel/loader.ts';
import { startTestKernel, type TestKernel } from '../../../test/helpers/kernel.ts';
import { freePort } from '../../../test/helpers/ports.ts';
import { addEndpoint, objectChange } from './events-kernel.ts';
import gatewayRoutesFixture from '../../../test/fixtures/test-gateway-routes/index.ts';
import { startReceiver, type Receiver } from './receiver.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const FIXTURE_DIR = path.join(here, '..', '..', '..', 'test', 'fixtures', 'test-gateway-routes');

/**
 * The delivery worker in a real gateway process (`cms start --service gateway`, the test gateway routes fixture on
 * CMS_PLUGIN_PATH) is killed with SIGKILL while the receiver holds its call open; a new gateway
 * process sends the delivery again once the claim's lease has passed: at least once, nothing lost.
 */
describe('object events: a gateway killed mid-delivery', function () {
  this.timeout(90_000);
  let core: TestKernel;
  let receiver: Receiver;
  let dataDir: string;
  const children: ChildProcess[] = [];

  before(async () => {
    // core-api side: every plugin (so the database has the gateway set's tables), no worker of its own.
    // The fixture stands in for the gateway plugin (both provide gatewayRoutes), here and in the child.
    core = await startTestKernel({
      extraPlugins: [gatewayRoutesFixture],
      clock: new ManualClock(),
      env: { CMS_DISABLED_PLUGINS: 'event-delivery,gateway' },
    });
    receiver = await startReceiver();
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'cms-events-kill-'));
  });
  after(async () => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await core.close();
    await receiver.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function startGateway(): Promise<ChildProcess> {
    const url = (core.db.client as { connectionSettings: { connectionString: string } }).connectionSettings
      .connectionString;
    const child = spawn('node', [path.join(PROJECT_ROOT, 'bin', 'cms.js'), 'start', '--service', 'gateway'], {
      env: {
        ...process.env,
        NODE_ENV: 'test',
        LOG_LEVEL: 'warn',
        DATABASE_URL: url,
        CMS_DATA_DIR: dataDir,
        CMS_PLUGIN_PATH: FIXTURE_DIR,
        CMS_DISABLED_PLUGINS: 'gateway',
        PORT: String(await freePort()),
        HOST: '127.0.0.1',
        OBJECT_EVENTS_CLAIM_SECONDS: '8',
        OBJECT_EVENTS_POLL_MS: '100',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let output = '';
    child.stdout!.on('data', (c) => (output += c));
    child.stderr!.on('data', (c) => (output += c));
    child.on('exit', (code, signal) => {
      if (signal !== 'SIGKILL' && code !== 0) console.error(`gateway exited ${code}:\n${output}`);
    });
    return child;
  }

  it('sends the delivery again after kill -9 and marks it delivered', async () => {
    let first = true;
    receiver.answerWith(() => {
      if (first) {
        first = false;
        return 'hold';
      }
      return { status: 204 };
    });
    const { endpointId, routeIds } = await addEndpoint(core.db, receiver.url, [{ method: 'POST', path: '/hook' }]);
    const admin = await core.admin();
    const sub = await core.inject({
      method: 'POST',
      url: '/object-event-subscriptions',
      headers: { cookie: admin.cookie },
      payload: { name: 'kill-test', events: ['object.updated'], endpointId, routeId: routeIds[0] },
    });
    expect(sub.statusCode).to.equal(201);
    const change = objectChange();
    await core.db.transaction((trx) => core.kernel.resolve('recordHooks').announce(trx, change));

    const gateway = await startGateway();
    await receiver.waitForCalls(1, 60_000);
    gateway.kill('SIGKILL');
    await new Promise((resolve) => gateway.once('exit', resolve));
    const claimed = await core.db('object_event_deliveries').where({ subscription_id: sub.json().id }).first();
    expect(claimed).to.include({ status: 'pending', attempts: 1 });
    expect(claimed.claim_token).to.be.a('string');

    await startGateway();
    await receiver.waitForCalls(2, 60_000);
    const deadline = Date.now() + 20_000;
    let row = claimed;
    while (row.status !== 'delivered' && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      row = await core.db('object_event_deliveries').where({ id: claimed.id }).first();
    }
    expect(row).to.include({ status: 'delivered', attempts: 2 });
    const ids = receiver.calls.map((c) => c.headers['x-cms-event-id']);
    expect(ids[0]).to.equal(ids[1]);
    expect(JSON.parse(receiver.calls[1].body).object.id).to.equal(change.recordId);
  });
});
