import { expect } from 'chai';
import { createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { objectChange, startEventsKernel, type EventsKernel } from '../../../test/helpers/events-kernel.ts';
import { eventually } from '../../../test/helpers/kernel.ts';
import { startReceiver, type ReceivedCall, type Receiver } from '../../../test/helpers/receiver.ts';

/** Verification written from the spec's words, independent of the plugin's code. */
function verifyCms(call: ReceivedCall, secret: string): boolean {
  const ts = String(call.headers['x-cms-timestamp']);
  const expected = Buffer.from(
    'sha256=' +
      createHmac('sha256', secret)
        .update(ts + '.' + call.body)
        .digest('hex'),
  );
  const given = Buffer.from(String(call.headers['x-cms-signature']));
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** Standard Webhooks verification: key = base64 after `whsec_`, content = id.timestamp.body, `v1,` + base64. */
function verifyStandardWebhooks(call: ReceivedCall, whsec: string): boolean {
  const key = Buffer.from(whsec.replace(/^whsec_/, ''), 'base64');
  const content = `${call.headers['webhook-id']}.${call.headers['webhook-timestamp']}.${call.body}`;
  const expected = createHmac('sha256', key).update(content).digest('base64');
  return String(call.headers['webhook-signature'])
    .split(' ')
    .some((sig) => sig === `v1,${expected}`);
}

describe('event delivery: the deliveries queue', () => {
  let k: EventsKernel;
  let receiver: Receiver;
  before(async () => {
    k = await startEventsKernel({ withData: false });
    receiver = await startReceiver();
  });
  beforeEach(() => receiver.reset());
  // Every test starts without subscriptions (they would all receive its events).
  afterEach(async () => {
    for (const s of (await k.call('GET', '/object-event-subscriptions', k.manager)).json().subscriptions) {
      await k.call('DELETE', `/object-event-subscriptions/${s.id}`, k.manager);
    }
  });
  after(async () => {
    await k.t.close();
    await receiver.close();
  });

  const secretVar = () => `OBJECT_EVENTS_SECRET_T${randomBytes(4).toString('hex').toUpperCase()}`;
  const statusOf = async (subscriptionId: string) => (await k.deliveries(subscriptionId))[0];
  const waitStatus = async (subscriptionId: string, status: string, attempts?: number) => {
    // A try under way already counts its attempt on the row: let what is due finish first.
    await k.settled();
    return eventually(
      async () => {
        const row = await statusOf(subscriptionId);
        return row?.status === status && (attempts === undefined || row.attempts === attempts);
      },
      { timeoutMs: 15_000 },
    );
  };

  it('sends the body and headers of the spec, signed (X-Cms-Signature) and in the Standard Webhooks scheme', async () => {
    const name = secretVar();
    const secret = 'plain secret value';
    process.env[name] = secret;
    const sub = await k.subscribe(receiver, { signingSecretRef: name }, '/signed');
    const change = objectChange({ kind: 'updated', changedFields: ['title', 'key'] });
    await k.announce(change);
    await receiver.waitForCalls(1);
    const call = receiver.calls[0];
    expect(call.method).to.equal('POST');
    expect(call.path).to.equal('/signed');
    // The gateway catalog added the endpoint's credential.
    expect(call.headers.authorization).to.equal(`Bearer secret-of-${sub.endpointId}`);
    const body = JSON.parse(call.body);
    expect(Object.keys(body)).to.deep.equal([
      'id',
      'type',
      'occurredAt',
      'instance',
      'class',
      'object',
      'changed',
      'actor',
    ]);
    expect(body).to.include({ type: 'object.updated', instance: 'localhost' });
    expect(body.changed).to.deep.equal(['title', 'key']);
    expect(body.object.id).to.equal(change.recordId);
    expect(body.actor).to.deep.equal(change.actor);
    expect(body.test).to.equal(undefined);
    expect(call.headers['x-cms-event-id']).to.equal(body.id);
    expect(call.headers['x-cms-event-type']).to.equal('object.updated');
    expect(Math.abs(Number(call.headers['x-cms-timestamp']) - Date.now() / 1000)).to.be.lessThan(300);
    expect(verifyCms(call, secret)).to.equal(true);
    expect(verifyCms(call, 'other secret')).to.equal(false);
    // The same secret as a Standard Webhooks library takes it: whsec_ + base64 of the value.
    expect(verifyStandardWebhooks(call, 'whsec_' + Buffer.from(secret).toString('base64'))).to.equal(true);
    expect(call.headers['webhook-id']).to.equal(body.id);
    await waitStatus(sub.id, 'delivered', 1);
  });

  it('a delivery waiting from before the job engine (no job, no ticket) is queued once at start and sent', async () => {
    const sub = await k.subscribe(receiver, {});
    await k.announce(objectChange());
    await receiver.waitForCalls(1);
    await waitStatus(sub.id, 'delivered', 1);
    // What an older release left: a waiting row that no engine job stands for.
    await k.t
      .db('object_event_deliveries')
      .where({ subscription_id: sub.id })
      .update({ status: 'pending', attempts: 0, job_ticket: null, next_attempt_at: k.t.clock.now() });
    const deliveries = k.t.services<{ deliveries: { queueUnqueued(): Promise<number> } }>('object-events').deliveries;
    expect(await deliveries.queueUnqueued()).to.equal(1);
    expect(await deliveries.queueUnqueued(), 'adopted once').to.equal(0);
    await receiver.waitForCalls(2);
    await waitStatus(sub.id, 'delivered', 1);
    expect(receiver.calls[1].headers['x-cms-event-id']).to.equal(receiver.calls[0].headers['x-cms-event-id']);
  });

  it('a whsec_ secret signs Standard Webhooks with its base64 key; no secret means no signature headers', async () => {
    const name = secretVar();
    const whsec = 'whsec_' + randomBytes(24).toString('base64');
    process.env[name] = whsec;
    await k.subscribe(receiver, { signingSecretRef: name });
    const unsigned = await k.subscribe(receiver, {}, '/unsigned');
    await k.announce(objectChange());
    await receiver.waitForCalls(2);
    const signed = receiver.calls.find((c) => c.path === '/hook')!;
    expect(verifyStandardWebhooks(signed, whsec)).to.equal(true);
    expect(verifyCms(signed, whsec)).to.equal(true);
    const plain = receiver.calls.find((c) => c.path === '/unsigned')!;
    expect(plain.headers['x-cms-signature']).to.equal(undefined);
    expect(plain.headers['webhook-signature']).to.equal(undefined);
    await waitStatus(unsigned.id, 'delivered');
  });

  it('a test event reaches the receiver with test: true and the all-zero object id', async () => {
    const sub = await k.subscribe(receiver);
    expect((await k.call('POST', `/object-event-subscriptions/${sub.id}/test`, k.manager)).statusCode).to.equal(202);
    await receiver.waitForCalls(1);
    const body = JSON.parse(receiver.calls[0].body);
    expect(body).to.include({ type: 'object.updated', test: true });
    expect(body.object.id).to.equal('00000000-0000-0000-0000-000000000000');
  });

  it('jobs.settled() returns once what was due has been sent and its outcome stored (the sign absence checks rely on)', async () => {
    const sub = await k.subscribe(receiver);
    await k.announce(objectChange());
    await k.announce(objectChange());
    await k.settled();
    expect(receiver.calls).to.have.length(2);
    expect((await k.deliveries(sub.id)).map((d) => [d.status, d.attempts])).to.deep.equal([
      ['delivered', 1],
      ['delivered', 1],
    ]);
  });

  it('retries at 1 min, 5 min, 30 min on the manual clock while the receiver is down, then delivers', async () => {
    let up = false;
    receiver.answerWith(() => ({ status: up ? 200 : 500 }));
    const sub = await k.subscribe(receiver);
    await k.announce(objectChange());
    const waits = [60_000, 5 * 60_000, 30 * 60_000];
    for (let attempt = 1; attempt <= waits.length; attempt++) {
      await waitStatus(sub.id, 'retrying', attempt);
      const row = await statusOf(sub.id);
      expect(row.last_problem).to.equal('receiver answered HTTP 500');
      const wait = new Date(row.next_attempt_at).getTime() - new Date(row.last_attempt_at).getTime();
      expect(wait).to.be.within(waits[attempt - 1], waits[attempt - 1] + 5_000);
      // Not due yet: nothing more is sent before the wait is over (the worker looked and sent nothing).
      const calls = receiver.calls.length;
      await k.settled();
      expect(receiver.calls.length).to.equal(calls);
      expect(await statusOf(sub.id)).to.include({ status: 'retrying', attempts: attempt });
      await k.t.advanceClock(waits[attempt - 1]);
    }
    up = true;
    await waitStatus(sub.id, 'delivered', 4);
    expect(receiver.calls).to.have.length(4);
    expect(new Set(receiver.calls.map((c) => c.headers['x-cms-event-id'])).size).to.equal(1);
  });

  it('gives up after the 6th failed try (dead); retry of a dead delivery starts from zero and delivers; 409 otherwise', async () => {
    let up = false;
    receiver.answerWith(() => ({ status: up ? 204 : 502 }));
    const sub = await k.subscribe(receiver);
    await k.announce(objectChange());
    const waits = [60_000, 5 * 60_000, 30 * 60_000, 2 * 3600_000, 12 * 3600_000];
    for (let attempt = 1; attempt <= 5; attempt++) {
      await waitStatus(sub.id, 'retrying', attempt);
      await k.t.advanceClock(waits[attempt - 1]);
    }
    await waitStatus(sub.id, 'dead', 6);
    expect(receiver.calls).to.have.length(6);
    const row = await statusOf(sub.id);
    expect(row.next_attempt_at).to.equal(null);

    up = true;
    const retry = await k.call('POST', `/object-event-deliveries/${row.id}/retry`, k.manager);
    expect(retry.statusCode).to.equal(200);
    expect(retry.json()).to.include({ attempts: 0, status: 'pending' });
    await waitStatus(sub.id, 'delivered', 1);
    const again = await k.call('POST', `/object-event-deliveries/${row.id}/retry`, k.manager);
    expect(again.statusCode).to.equal(409);
    expect((await k.call('POST', `/object-event-deliveries/${randomUUID()}/retry`, k.manager)).statusCode).to.equal(
      404,
    );
  });

  it('410 Gone disables the subscription and gives up its delivery', async () => {
    receiver.answerWith(() => ({ status: 410 }));
    const sub = await k.subscribe(receiver);
    await k.announce(objectChange());
    await waitStatus(sub.id, 'dead', 1);
    // The subscription is disabled after the delivery's outcome is stored: wait for the worker to finish.
    await k.settled();
    expect((await statusOf(sub.id)).last_problem).to.contain('410');
    const view = (await k.call('GET', `/object-event-subscriptions/${sub.id}`, k.manager)).json();
    expect(view.enabled).to.equal(false);
    await k.announce(objectChange());
    expect(await k.deliveries(sub.id)).to.have.length(1);
  });

  it('honours Retry-After on 429/503 within the schedule bounds (1 min .. 12 h)', async () => {
    const cases: [number, string, number][] = [
      [429, '120', 120_000],
      [503, '5', 60_000],
      [503, '999999', 12 * 3600_000],
    ];
    for (const [status, retryAfter, expected] of cases) {
      receiver.answerWith(() => ({ status, headers: { 'retry-after': retryAfter } }));
      const sub = await k.subscribe(receiver);
      await k.announce(objectChange());
      await waitStatus(sub.id, 'retrying', 1);
      const row = await statusOf(sub.id);
      const wait = new Date(row.next_attempt_at).getTime() - new Date(row.last_attempt_at).getTime();
      expect(wait, `${status} Retry-After ${retryAfter}`).to.be.within(expected, expected + 5_000);
      await k.call('DELETE', `/object-event-subscriptions/${sub.id}`, k.manager);
    }
  });

  it('a missing secret variable fails the delivery and sends nothing', async () => {
    const sub = await k.subscribe(receiver, { signingSecretRef: 'OBJECT_EVENTS_SECRET_NOT_SET_ANYWHERE' });
    await k.announce(objectChange());
    await waitStatus(sub.id, 'retrying', 1);
    expect((await statusOf(sub.id)).last_problem).to.contain('OBJECT_EVENTS_SECRET_NOT_SET_ANYWHERE');
    expect(receiver.calls).to.have.length(0);
  });

  it('the sender reads only OBJECT_EVENTS_SECRET_* variables, whatever a stored row names', async () => {
    const sub = await k.subscribe(receiver);
    await k.t.db('object_event_subscriptions').where({ id: sub.id }).update({ signing_secret_ref: 'PATH' });
    await k.announce(objectChange());
    await waitStatus(sub.id, 'retrying', 1);
    expect((await statusOf(sub.id)).last_problem).to.contain('outside OBJECT_EVENTS_SECRET_');
    expect(receiver.calls).to.have.length(0);
  });

  it('deleting a subscription deletes its log and cancels waiting deliveries', async () => {
    receiver.answerWith(() => ({ status: 500 }));
    const sub = await k.subscribe(receiver);
    await k.announce(objectChange());
    await waitStatus(sub.id, 'retrying', 1);
    const eventId = (await statusOf(sub.id)).event_id;
    expect((await k.call('DELETE', `/object-event-subscriptions/${sub.id}`, k.manager)).statusCode).to.equal(204);
    expect(await k.deliveries(sub.id)).to.have.length(0);
    expect(await k.t.db('object_events').where({ id: eventId })).to.have.length(0);
    await k.t.advanceClock(3600_000);
    await k.settled();
    expect(receiver.calls).to.have.length(1);
  });
});
