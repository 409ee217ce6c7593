import { Type } from '@sinclair/typebox';
import { EnvFlag } from '../../kernel/index.ts';

/** The environment variables the delivery worker reads (gateway process). */
export const EventDeliveryConfig = Type.Object({
  OBJECT_EVENTS_ENABLED: EnvFlag(true, '0: no events are recorded and the delivery worker does not run'),
  OBJECT_EVENTS_CONCURRENCY: Type.Integer({
    minimum: 1,
    maximum: 100,
    default: 5,
    description: 'deliveries sent at the same time by one gateway process',
  }),
  OBJECT_EVENTS_POLL_MS: Type.Integer({
    minimum: 20,
    maximum: 60_000,
    default: 250,
    description: 'how often the worker looks for due deliveries when no database notice woke it',
  }),
  OBJECT_EVENTS_CLAIM_SECONDS: Type.Integer({
    minimum: 4,
    maximum: 3600,
    default: 30,
    description:
      'lease of a claimed delivery: a process killed mid-delivery gives it back after this long (the send timeout is 10 s or half the lease, whichever is lower)',
  }),
});
