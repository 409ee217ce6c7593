import { expect } from 'chai';
import { startEventsKernel, type EventsKernel } from '../../../test/helpers/events-kernel.ts';
import { startReceiver, type Receiver } from '../../../test/helpers/receiver.ts';

describe('object events: from an object write over HTTP to the receiver', () => {
  let k: EventsKernel;
  let receiver: Receiver;
  before(async () => {
    k = await startEventsKernel();
    receiver = await startReceiver();
  });
  after(async () => {
    await k.t.close();
    await receiver.close();
  });

  it('POST then publish a data object: object.created and object.published arrive with the spec body; a stopped write sends nothing', async () => {
    const admin = await k.t.admin();
    const cls = (
      await k.call('POST', '/data-classes', admin, {
        name: `e2e_${Date.now().toString(36)}`,
        label: 'x',
        fields: [{ name: 'title', type: 'text' }],
      })
    ).json();
    await k.subscribe(receiver, { classId: cls.id, events: ['object.created', 'object.published', 'object.updated'] });
    const created = await k.call('POST', '/data-objects', admin, {
      classId: cls.id,
      key: 'hello',
      attributes: { title: 'secret words' },
    });
    expect(created.statusCode).to.equal(201);
    const obj = created.json();
    await receiver.waitForCalls(1);
    expect((await k.call('PATCH', `/data-objects/${obj.id}`, admin, { published: true })).statusCode).to.equal(200);
    await receiver.waitForCalls(2);
    const [first, second] = receiver.calls.map((c) => JSON.parse(c.body));
    expect(first).to.include({ type: 'object.created' });
    expect(first.class).to.deep.equal({ id: cls.id, name: cls.name });
    expect(first.object).to.include({
      id: obj.id,
      translationGroupId: obj.translationGroupId,
      locale: obj.locale,
      key: 'hello',
      published: false,
      workflowState: null,
    });
    expect(first.actor).to.deep.equal({ type: 'user', id: admin.id });
    expect(second).to.include({ type: 'object.published' });
    expect(second.object.published).to.equal(true);
    expect(receiver.calls.map((c) => c.body).join()).not.to.contain('secret words');

    const stopped = await k.call(
      'PATCH',
      `/data-objects/${obj.id}`,
      admin,
      { attributes: { title: 'changed' } },
      { 'x-cms-flow': 'stop' },
    );
    expect(stopped.statusCode).to.equal(200);
    // The worker has looked for due deliveries since the write and sent what it found: nothing.
    await k.settled();
    expect(receiver.calls).to.have.length(2);
  });
});
