import { Type } from '@sinclair/typebox';
import { EnvFlag } from '../../kernel/index.ts';

/** The environment variables the recording side reads (every process that writes records). */
export const ObjectEventsConfig = Type.Object({
  OBJECT_EVENTS_ENABLED: EnvFlag(true, '0: no events are recorded and no delivery is sent'),
  OBJECT_EVENTS_LOOP_MAX: Type.Integer({
    minimum: 0,
    maximum: 100_000,
    default: 5,
    description: 'events one API client may cause on one record within the window; the next ones are stopped (0: off)',
  }),
  OBJECT_EVENTS_LOOP_SUB_MAX: Type.Integer({
    minimum: 0,
    maximum: 100_000,
    default: 12,
    description:
      'events by API clients per subscription and record within the window; the next ones are stopped (0: off)',
  }),
  OBJECT_EVENTS_LOOP_WINDOW_SECONDS: Type.Integer({
    minimum: 1,
    maximum: 86_400,
    default: 60,
    description: 'loop guard window in seconds',
  }),
  OBJECT_EVENTS_SUBSCRIPTION_CACHE_SECONDS: Type.Integer({
    minimum: 1,
    maximum: 3600,
    default: 30,
    description:
      'longest time a process keeps its subscription list without a change notice from the database (LISTEN/NOTIFY)',
  }),
});
