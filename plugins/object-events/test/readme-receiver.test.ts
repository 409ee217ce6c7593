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
import { startReceiver, type ReceivedCall, type Receiver } from '../../../test/helpers/receiver.ts';

const here = path.dirname(fileURLToPath(import.meta.url));

/** The receiver example of the README, exactly as written there. */
function readmeReceiver(): string {
  const readme = readFileSync(path.join(here, '..', 'README.md'), 'utf8');
  const match = /<!-- receiver-example[^>]*-->\s*```js\n([\s\S]*?)```/.exec(readme);
  if (!match) throw new Error('README: receiver example not found');
  return match[1];
}

/**
 * The README's receiver example, written to a file and run with node as a receiver would run it,
 * against real deliveries of the delivery worker: accepted as sent, refused when replayed with
 * anything changed, refused when the sender's clock puts the timestamp outside the 5 minutes.
 */
describe('object events: the README receiver example, run verbatim against real deliveries', function () {
  this.timeout(60_000);
  let k: EventsKernel;
  let child: ChildProcess;
  let dir: string;
  let port: number;
  let output = '';
  /** Records the same deliveries the example gets (same secret): the real headers and body to replay. */
  let capture: Receiver;
  const secret = 'readme-example-secret';
  const secretName = 'OBJECT_EVENTS_SECRET_README_EXAMPLE';
  const receiverUrl = () => `http://127.0.0.1:${port}`;

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
    capture = await startReceiver();
  });
  after(async () => {
    child.kill();
    await k.t.close();
    await capture.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A signed subscription to `url` for object.updated; returns its id. */
  const subscribe = async (url: string) => {
    const { endpointId, routeIds } = await addEndpoint(k.t.db, url, [{ method: 'POST', path: '/' }]);
    const res = await k.call('POST', '/object-event-subscriptions', k.manager, {
      name: `readme-${Math.random().toString(36).slice(2)}`,
      events: ['object.updated'],
      endpointId,
      routeId: routeIds[0],
      signingSecretRef: secretName,
    });
    expect(res.statusCode).to.equal(201);
    return res.json().id as string;
  };
  /** A call to the example with these headers and body; its status. */
  const send = async (headers: Record<string, string>, body: string) =>
    (await fetch(receiverUrl(), { method: 'POST', headers, body })).status;
  const signed = (ts: string, body: string) =>
    `sha256=${createHmac('sha256', secret).update(`${ts}.${body}`).digest('hex')}`;
  const headersOf = (call: ReceivedCall): Record<string, string> => ({
    'content-type': 'application/json',
    'x-cms-timestamp': String(call.headers['x-cms-timestamp']),
    'x-cms-signature': String(call.headers['x-cms-signature']),
  });

  it('compares the signature in constant time, and will not start without its secret', async () => {
    const example = readmeReceiver();
    expect(example).to.contain('timingSafeEqual(given, wanted)');
    // Lengths may be compared (they say nothing about the secret), the values never with == or ===.
    expect(example).not.to.match(/\b(given|wanted)\s*[!=]==?|[!=]==?\s*(given|wanted)\b(?!\.length)|\.equals\(/);
    // Started without the secret it stops at once, naming the variable (instead of failing every call).
    const file = path.join(dir, 'receiver.mjs');
    const { CMS_EVENTS_SECRET: _, ...env } = process.env;
    const bare = spawn('node', [file], { env: { ...env, PORT: String(await freePort()) }, stdio: 'pipe' });
    let stderr = '';
    bare.stderr.on('data', (c) => (stderr += c));
    const code = await new Promise<number | null>((resolve) => {
      const timer = setTimeout(() => {
        bare.kill();
        resolve(null);
      }, 10_000);
      bare.on('exit', (c) => {
        clearTimeout(timer);
        resolve(c);
      });
    });
    expect(code, 'exit code').to.not.equal(0).and.not.equal(null);
    expect(stderr).to.contain('CMS_EVENTS_SECRET');
  });

  it('accepts a real signed delivery (204 → delivered) and prints the event', async () => {
    const sub = await subscribe(receiverUrl());
    await k.announce(objectChange());
    await eventually(async () => (await k.deliveries(sub))[0]?.status === 'delivered', { timeoutMs: 15_000 });
    expect(output).to.contain('object.updated');
  });

  it('refuses a real delivery replayed with its body, signature or timestamp changed (401); as sent, 204', async () => {
    capture.reset();
    await subscribe(capture.url);
    await k.announce(objectChange());
    await capture.waitForCalls(1);
    const real = capture.calls[0]!;
    const h = headersOf(real);
    expect(h['x-cms-signature']).to.equal(signed(h['x-cms-timestamp']!, real.body));
    expect(await send(h, real.body), 'as delivered').to.equal(204);

    const lastHex = h['x-cms-signature']!.slice(-1);
    const flipped = h['x-cms-signature']!.slice(0, -1) + (lastHex === '0' ? '1' : '0');
    const tampered: Array<[string, Record<string, string>, string]> = [
      ['body: another event kind', h, real.body.replace('"object.updated"', '"object.deleted"')],
      ['body: one byte more', h, `${real.body} `],
      ['signature: last digit changed', { ...h, 'x-cms-signature': flipped }, real.body],
      ['signature: upper case', { ...h, 'x-cms-signature': h['x-cms-signature']!.toUpperCase() }, real.body],
      ['signature: cut short', { ...h, 'x-cms-signature': h['x-cms-signature']!.slice(0, 20) }, real.body],
      ['signature: missing', { ...h, 'x-cms-signature': '' }, real.body],
      ['signature: another secret', { ...h, 'x-cms-signature': 'sha256=' + '0'.repeat(64) }, real.body],
      [
        'timestamp: one second earlier',
        { ...h, 'x-cms-timestamp': String(Number(h['x-cms-timestamp']) - 1) },
        real.body,
      ],
      ['timestamp: missing', { ...h, 'x-cms-timestamp': '' }, real.body],
    ];
    for (const [what, headers, body] of tampered) expect(await send(headers, body), what).to.equal(401);
  });

  it("refuses a real delivery whose timestamp is more than 5 minutes from the receiver's clock, either way (401)", async () => {
    for (const offsetSeconds of [-(5 * 60 + 30), 5 * 60 + 30]) {
      capture.reset();
      // The sender's clock 5.5 minutes off the receiver's: its deliveries carry that timestamp.
      k.clock.advance(offsetSeconds * 1000);
      try {
        const sub = await subscribe(receiverUrl());
        await subscribe(capture.url);
        await k.announce(objectChange());
        const row = await eventually(
          async () => {
            const [delivery] = await k.deliveries(sub);
            return delivery?.status === 'retrying' ? delivery : false;
          },
          { timeoutMs: 15_000 },
        );
        expect(row.last_problem, String(offsetSeconds)).to.equal('receiver answered HTTP 401');
        // The same delivery, validly signed: the timestamp alone is why it was refused.
        // Earlier subscriptions of this file may still deliver to the capture (a retry on a loaded
        // machine): take the delivery stamped by the shifted clock; none arriving fails the test.
        const skew = (call: ReceivedCall) => Number(headersOf(call)['x-cms-timestamp']) - Date.now() / 1000;
        const real = await eventually(
          () => capture.calls.find((c) => Math.abs(skew(c) - offsetSeconds) < 30) ?? false,
          {
            timeoutMs: 15_000,
          },
        );
        const h = headersOf(real);
        expect(h['x-cms-signature']).to.equal(signed(h['x-cms-timestamp']!, real.body));
        expect(await send(h, real.body)).to.equal(401);
      } finally {
        k.clock.advance(-offsetSeconds * 1000);
      }
    }
  });
});
