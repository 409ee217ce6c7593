import { randomUUID } from 'node:crypto';
import { ManualClock } from '../../kernel/clock.ts';
import { createKnex, type DatabaseHandle, type Db } from '../../kernel/database.ts';
import type { RecordChange } from '../../kernel/record-hooks.ts';
import { addEndpoint } from '../fixtures/test-gateway-routes/endpoints.ts';
import gatewayRoutesFixture from '../fixtures/test-gateway-routes/index.ts';
import { startTestKernel } from './kernel.ts';
import type { Receiver } from './receiver.ts';

/** The job queue of event deliveries (object-events enqueues, event-delivery works it). */
export const DELIVERY_QUEUE = 'object-events.deliveries';

export { addEndpoint };

/**
 * A kernel with data, object-events, event-delivery and the test gateway routes fixture; a manual clock;
 * a manager (object_events:manage) and a data publisher.
 */
export async function startEventsKernel(
  opts: { env?: Record<string, string>; withData?: boolean; delivery?: boolean; database?: DatabaseHandle } = {},
) {
  const clock = new ManualClock();
  const plugins = [
    'object-events',
    ...(opts.delivery === false ? [] : ['event-delivery']),
    ...(opts.withData === false ? [] : ['data']),
  ];
  const t = await startTestKernel({
    plugins,
    extraPlugins: [gatewayRoutesFixture],
    clock,
    env: opts.env,
    database: opts.database,
  });
  const manager = await t.createUser({ permissions: ['object_events:manage'] });
  const call = t.call;

  /** A subscription to a fresh endpoint+route at the receiver; returns its view. */
  const subscribe = async (receiver: Receiver, body: Record<string, unknown> = {}, path = '/hook') => {
    const { endpointId, routeIds } = await addEndpoint(t.db, receiver.url, [{ method: 'POST', path }]);
    const res = await call('POST', '/object-event-subscriptions', manager, {
      name: `sub-${randomUUID()}`,
      events: ['object.created', 'object.updated', 'object.deleted'],
      endpointId,
      routeId: routeIds[0],
      ...body,
    });
    if (res.statusCode !== 201) throw new Error(`subscription create failed: ${res.body}`);
    return res.json() as { id: string; name: string; endpointId: string; routeId: string };
  };

  /** Announces a change the way a writing plugin does, in a transaction of its own. */
  const announce = (change: RecordChange) =>
    t.db.transaction((trx) => t.kernel.resolve('recordHooks').announce(trx, change));

  const deliveries = (subscriptionId: string) =>
    t.db('object_event_deliveries').where({ subscription_id: subscriptionId }).orderBy('seq');

  /**
   * Resolves once this kernel's runner of the deliveries queue looked for due jobs since this call and
   * recorded the outcome of all it sent: what was due by now has been sent (at once without event-delivery,
   * which sends nothing).
   */
  const settled = () => t.kernel.resolve('jobs').settled(DELIVERY_QUEUE);

  return { t, clock, manager, call, subscribe, announce, deliveries, settled };
}

export type EventsKernel = Awaited<ReturnType<typeof startEventsKernel>>;

/** A record change of an object in `classId`, as the data plugin announces it. */
export function objectChange({
  classId = randomUUID(),
  ...over
}: Partial<RecordChange> & { classId?: string } = {}): RecordChange {
  const id = over.recordId ?? randomUUID();
  return {
    recordType: 'object',
    recordId: id,
    kind: 'updated',
    changedFields: ['title'],
    actor: { type: 'user', id: randomUUID() },
    data: {
      class: { id: classId, name: 'article' },
      object: {
        id,
        translationGroupId: id,
        locale: 'en',
        key: null,
        published: false,
        workflowState: null,
        updatedAt: new Date().toISOString(),
      },
    },
    ...over,
  };
}

/** A second connection pool on the database of `db`: another process's view of the same data. */
export function secondHandle(db: Db): DatabaseHandle {
  const url = (db.client as { connectionSettings: { connectionString: string } }).connectionSettings.connectionString;
  const other = createKnex(url, 5);
  return { db: other, url, close: () => other.destroy() };
}
