import { Type } from '@sinclair/typebox';
import { EnvFlag } from '../../kernel/index.ts';

/** The environment variables the delivery sender reads (gateway process). */
export const EventDeliveryConfig = Type.Object({
  OBJECT_EVENTS_ENABLED: EnvFlag(true, '0: no events are recorded and no delivery is sent'),
  OBJECT_EVENTS_CONCURRENCY: Type.Integer({
    minimum: 1,
    maximum: 100,
    default: 5,
    description: 'deliveries sent at the same time by one gateway process',
  }),
  OBJECT_EVENTS_SEND_TIMEOUT_SECONDS: Type.Integer({
    minimum: 1,
    maximum: 60,
    default: 10,
    description: "how long a receiver has to answer one delivery before the try counts as failed (the spec's 10 s)",
  }),
});
