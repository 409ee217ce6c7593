import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, acceptsConnections } from '../../../test/helpers/ports.ts';
import {
  addEndpoint,
  objectChange,
  startEventsKernel,
  type EventsKernel,
} from '../../../test/helpers/events-kernel.ts';
import { eventually } from '../../../test/helpers/kernel.ts';

const here = path.dirname(fileURLToPath(import.meta.url));

/** The receiver example of the README, exactly as written there. */
function readmeReceiver(): string {
  const readme = readFileSync(path.join(here, '..', 'README.md'), 'utf8');
  const match = /<!-- receiver-example[^>]*-->\s*```js\n([\s\S]*?)```/.exec(readme);
  if (!match) throw new Error('README: receiver example not found');
  return match[1];
}

describe('object events: the README receiver example', function () {
  this.timeout(30_000);
  let k: EventsKernel;
  let child: ChildProcess;
  let dir: string;
  let port: number;
  let output = '';
  const secret = 'readme-example-secret';
  const secretName = 'OBJECT_EVENTS_SECRET_README_EXAMPLE';

  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'cms-receiver-'));
    const file = path.join(dir, 'receiver.mjs');
    writeFileSync(file, readmeReceiver());
    port = await freePort();
    child = spawn('node', [file], {
      env: { ...process.env, CMS_EVENTS_SECRET: secret, PORT: String(port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (c) => (output += c));
    child.stderr!.on('data', (c) => (output += c));
    while (!(await acceptsConnections(port))) await new Promise((r) => setTimeout(r, 50));
    process.env[secretName] = secret;
    k = await startEventsKernel({ withData: false });
  });
  after(async () => {
    child.kill();
    await k.t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('accepts a real signed delivery (204 → delivered) and prints the event', async () => {
    const { endpointId, routeIds } = await addEndpoint(k.t.db, `http://127.0.0.1:${port}`, [
      { method: 'POST', path: '/' },
    ]);
    const res = await k.call('POST', '/object-event-subscriptions', k.manager, {
      name: 'readme',
      events: ['object.updated'],
      endpointId,
      routeId: routeIds[0],
      signingSecretRef: secretName,
    });
    const sub = res.json();
    await k.announce(objectChange());
    await eventually(async () => (await k.deliveries(sub.id))[0]?.status === 'delivered', { timeoutMs: 15_000 });
    expect(output).to.contain('object.updated');
  });

  it('refuses a wrong signature and a timestamp older than 5 minutes (401)', async () => {
    const body = '{"id":"x","type":"object.updated"}';
    const send = (ts: number, key: string) =>
      fetch(`http://127.0.0.1:${port}/`, {
        method: 'POST',
        body,
        headers: {
          'x-cms-timestamp': String(ts),
          'x-cms-signature': 'sha256=' + createHmac('sha256', key).update(`${ts}.${body}`).digest('hex'),
        },
      });
    const now = Math.floor(Date.now() / 1000);
    expect((await send(now, secret)).status).to.equal(204);
    expect((await send(now, 'wrong')).status).to.equal(401);
    expect((await send(now - 301, secret)).status).to.equal(401);
  });
});
