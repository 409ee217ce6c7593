import { Type } from '@sinclair/typebox';
import { EVENT_TYPES } from '../events.ts';

export const IdParams = Type.Object({ id: Type.String({ format: 'uuid' }) });

const EventType = Type.Union(EVENT_TYPES.map((t) => Type.Literal(t)));
const Name = Type.String({ minLength: 1, maxLength: 200, pattern: '\\S' });
const RefId = Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9._:-]+$' });
const ActorId = Type.String({ minLength: 1, maxLength: 200 });

const fields = {
  name: Name,
  events: Type.Array(EventType, { minItems: 1, maxItems: EVENT_TYPES.length, uniqueItems: true }),
  endpointId: RefId,
  routeId: RefId,
  classId: Type.Union([Type.String({ format: 'uuid' }), Type.Null()]),
  enabled: Type.Boolean(),
  ignoreActors: Type.Array(ActorId, { maxItems: 100 }),
  // A variable name of the gateway process, never the secret itself.
  signingSecretRef: Type.Union([
    Type.String({ pattern: '^OBJECT_EVENTS_SECRET_[A-Z0-9_]+$', maxLength: 120 }),
    Type.Null(),
  ]),
};

export const CreateSubscription = Type.Object(
  {
    name: fields.name,
    events: fields.events,
    endpointId: fields.endpointId,
    routeId: fields.routeId,
    classId: Type.Optional(fields.classId),
    enabled: Type.Optional(fields.enabled),
    ignoreActors: Type.Optional(fields.ignoreActors),
    signingSecretRef: Type.Optional(fields.signingSecretRef),
  },
  { additionalProperties: false },
);

export const PatchSubscription = Type.Partial(Type.Object(fields), { additionalProperties: false });

export const DeliveryStatusFilter = Type.Union(
  ['pending', 'delivered', 'retrying', 'dead', 'stopped'].map((s) => Type.Literal(s)),
);

export const DeliveriesQuery = Type.Object(
  {
    status: Type.Optional(DeliveryStatusFilter),
    type: Type.Optional(EventType),
    recordId: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
  },
  { additionalProperties: false },
);

export const DeleteDeliveries = Type.Object(
  {
    ids: Type.Optional(Type.Array(Type.String({ format: 'uuid' }), { minItems: 1, maxItems: 500 })),
    status: Type.Optional(Type.Union(['delivered', 'dead', 'stopped'].map((s) => Type.Literal(s)))),
  },
  { additionalProperties: false },
);

const Time = Type.String({ format: 'date-time' });
const NullableTime = Type.Union([Time, Type.Null()]);

/** A subscription as the API answers it (`SubscriptionService.view`). */
export const SubscriptionView = Type.Object({
  id: Type.String({ format: 'uuid' }),
  name: Type.String(),
  enabled: Type.Boolean(),
  classId: Type.Union([Type.String({ format: 'uuid' }), Type.Null()]),
  // Text, not the enum: a row written before an event kind was renamed still reads.
  events: Type.Array(Type.String()),
  endpointId: Type.String(),
  routeId: Type.String(),
  ignoreActors: Type.Array(Type.String()),
  signingSecretRef: Type.Union([Type.String(), Type.Null()]),
  payloadMode: Type.Literal('minimal'),
  loopGuard: Type.Object({ tripped: Type.Boolean(), lastTrippedAt: NullableTime }),
  createdAt: Time,
  updatedAt: Time,
});

/** A row of the delivery log (`DeliveryLog`'s view): state only, never the event or the receiver's answer. */
export const DeliveryView = Type.Object({
  id: Type.String({ format: 'uuid' }),
  eventId: Type.String(),
  subscriptionId: Type.String({ format: 'uuid' }),
  type: Type.String(),
  recordId: Type.String(),
  status: DeliveryStatusFilter,
  attempts: Type.Integer(),
  nextAttemptAt: NullableTime,
  lastProblem: Type.Union([Type.String(), Type.Null()]),
  lastAttemptAt: NullableTime,
  createdAt: Time,
});

/** A 204: the handler sends nothing (the kernel's `emptyAnswer`: a `null` schema). */
export const NoContent = Type.Unsafe<undefined>({ type: 'null', description: 'deleted; no body' });
