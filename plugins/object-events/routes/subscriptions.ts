import { requestContext, type App } from '../../../kernel/index.ts';
import { MANAGE } from '../permissions.ts';
import type { ObjectEventServices } from '../services/index.ts';
import type { DeliveryStatus } from '../store/delivery-store.ts';
import { Type } from '@sinclair/typebox';
import {
  CreateSubscription,
  DeleteDeliveries,
  DeliveriesQuery,
  DeliveryView,
  IdParams,
  PatchSubscription,
  SubscriptionView,
  NoContent,
} from './schemas.ts';

const config = { permission: MANAGE };
const tags = ['object-events'];

/** /object-event-subscriptions and their delivery log; /object-event-deliveries/:id/retry. */
export async function subscriptionRoutes(app: App, { subscriptions, deliveries }: ObjectEventServices): Promise<void> {
  app.get(
    '/object-event-subscriptions',
    { config, schema: { tags, response: { 200: Type.Object({ subscriptions: Type.Array(SubscriptionView) }) } } },
    async () => ({
      subscriptions: await subscriptions.list(),
    }),
  );

  app.post(
    '/object-event-subscriptions',
    { config, schema: { tags, body: CreateSubscription, response: { 201: SubscriptionView } } },
    async (request, reply) => reply.code(201).send(await subscriptions.create(requestContext(request), request.body)),
  );

  app.get(
    '/object-event-subscriptions/:id',
    { config, schema: { tags, params: IdParams, response: { 200: SubscriptionView } } },
    async (request) => subscriptions.get(request.params.id),
  );

  app.patch(
    '/object-event-subscriptions/:id',
    { config, schema: { tags, params: IdParams, body: PatchSubscription, response: { 200: SubscriptionView } } },
    async (request) => subscriptions.update(requestContext(request), request.params.id, request.body),
  );

  app.delete(
    '/object-event-subscriptions/:id',
    { config, schema: { tags, params: IdParams, response: { 204: NoContent } } },
    async (request, reply) => {
      await subscriptions.remove(requestContext(request), request.params.id);
      return reply.code(204).send();
    },
  );

  app.post(
    '/object-event-subscriptions/:id/test',
    { config, schema: { tags, params: IdParams, response: { 202: Type.Object({ eventId: Type.String() }) } } },
    async (request, reply) => reply.code(202).send(await subscriptions.queueTest(request.params.id)),
  );

  app.get(
    '/object-event-subscriptions/:id/deliveries',
    {
      config,
      schema: {
        tags,
        params: IdParams,
        querystring: DeliveriesQuery,
        response: { 200: Type.Object({ deliveries: Type.Array(DeliveryView) }) },
      },
    },
    async (request) => {
      const q = request.query;
      return {
        deliveries: await deliveries.list(request.params.id, {
          status: q.status as DeliveryStatus | undefined,
          type: q.type,
          recordId: q.recordId,
          limit: q.limit ?? 50,
        }),
      };
    },
  );

  app.delete(
    '/object-event-subscriptions/:id/deliveries',
    {
      config,
      schema: {
        tags,
        params: IdParams,
        body: DeleteDeliveries,
        response: { 200: Type.Object({ deleted: Type.Integer() }) },
      },
    },
    async (request) =>
      deliveries.delete(request.params.id, request.body as { ids?: string[]; status?: DeliveryStatus }),
  );

  app.post(
    '/object-event-deliveries/:id/retry',
    { config, schema: { tags, params: IdParams, response: { 200: DeliveryView } } },
    async (request) => deliveries.retry(request.params.id),
  );
}
