import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ManualClock } from '../../../kernel/clock.ts';
import { PROJECT_ROOT } from '../../../kernel/loader.ts';
import { eventually, startTestKernel, type TestKernel } from '../../../test/helpers/kernel.ts';
import { freePort } from '../../../test/helpers/ports.ts';
import { addEndpoint, objectChange } from '../../../test/helpers/events-kernel.ts';
import gatewayRoutesFixture from '../../../test/fixtures/test-gateway-routes/index.ts';
import { startReceiver, type Receiver } from '../../../test/helpers/receiver.ts';

const FIXTURE_DIR = path.join(PROJECT_ROOT, 'test', 'fixtures', 'test-gateway-routes');

/**
 * Deliveries are sent by a real gateway process (`cms start --service gateway`, the test gateway routes
 * fixture on CMS_PLUGIN_PATH), killed with SIGKILL in the middle of a burst while the receiver holds its
 * last calls open. A new gateway process takes the dead one's running jobs back (after the queue's
 * timeout plus its grace, short with a 2 s send timeout; JOBS_SUPERVISE_SECONDS=1 keeps the check frequent) and sends what is left:
 * nothing is lost, and only deliveries in flight at the kill arrive twice (at least once, as the README says).
 */
describe('event delivery: a gateway killed mid-delivery', function () {
  this.timeout(180_000);
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
        JOBS_SUPERVISE_SECONDS: '1',
        JOBS_POLL_MS: '200',
        // A 2 s send timeout makes the queue's timeout 7 s, so a dead process's tries come back after 14 s.
        OBJECT_EVENTS_SEND_TIMEOUT_SECONDS: '2',
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

  it('a burst survives kill -9: every delivery arrives, only those in flight at the kill arrive twice', async () => {
    const BURST = 40;
    const ANSWERED_BEFORE_KILL = 15;
    let killed = false;
    // Before the kill: the first calls are answered, the next ones held open (in flight at the kill).
    receiver.answerWith(async () => {
      if (killed) return { status: 204 };
      if (receiver.calls.length > ANSWERED_BEFORE_KILL) return 'hold';
      await new Promise((r) => setTimeout(r, 10));
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
    const changes = Array.from({ length: BURST }, () => objectChange());
    for (const change of changes)
      await core.db.transaction((trx) => core.kernel.resolve('recordHooks').announce(trx, change));
    const rowsOf = () => core.db('object_event_deliveries').where({ subscription_id: sub.json().id });
    expect(await rowsOf()).to.have.length(BURST);

    const gateway = await startGateway();
    // All of the gateway's slots (5) end up held by the receiver: the burst is mid-way.
    await receiver.waitForCalls(ANSWERED_BEFORE_KILL + 5, 60_000);
    gateway.kill('SIGKILL');
    await new Promise((resolve) => gateway.once('exit', resolve));
    killed = true;
    const received = new Set(receiver.calls.map((c) => String(c.headers['x-cms-event-id'])));
    const atKill = await rowsOf();
    // In flight at the kill: sent (the receiver has it) but not recorded as delivered.
    const inFlight = new Set(
      atKill.filter((r) => r.status !== 'delivered' && received.has(r.event_id)).map((r) => r.event_id),
    );
    expect(inFlight.size, 'deliveries in flight at the kill').to.be.greaterThan(0);
    expect(atKill.filter((r) => r.status === 'delivered').length).to.be.lessThan(BURST);

    await startGateway();
    await eventually(async () => (await rowsOf()).every((r) => r.status === 'delivered'), {
      // The queue's timeout (7 s) plus its grace (7 s), checked every second.
      timeoutMs: 60_000,
      intervalMs: 200,
      what: 'every delivery of the burst delivered after the restart',
    });
    const rows = await rowsOf();
    const counts = new Map<string, number>();
    for (const call of receiver.calls) {
      const id = String(call.headers['x-cms-event-id']);
      counts.set(id, (counts.get(id) ?? 0) + 1);
    }
    // Nothing lost: the receiver, deduplicating on X-Cms-Event-Id, has every event of the burst.
    expect([...counts.keys()].sort()).to.deep.equal(rows.map((r) => r.event_id).sort());
    const twice = [...counts].filter(([, n]) => n > 1).map(([id]) => id);
    for (const id of twice)
      expect(inFlight.has(id), `${id} arrived twice but was not in flight at the kill`).to.equal(true);
    expect(Math.max(...counts.values())).to.be.at.most(2);
    // A delivery sent again counts both tries.
    for (const row of rows) if (twice.includes(row.event_id)) expect(row.attempts).to.equal(2);
    const recordIds = new Set(receiver.calls.map((c) => JSON.parse(c.body).object.id));
    for (const change of changes) expect(recordIds.has(change.recordId)).to.equal(true);
  });
});
