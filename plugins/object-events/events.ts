import type { RecordChange } from '../../kernel/index.ts';

/** Every event kind a subscription may tick (spec "Events"). */
export const EVENT_TYPES = [
  'object.created',
  'object.updated',
  'object.published',
  'object.unpublished',
  'object.transitioned',
  'object.deleted',
  'object.bulk',
  'asset.created',
  'asset.updated',
  'asset.moved',
  'asset.deleted',
  'asset.bulk',
  'page.published',
  'page.unpublished',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** The record types this plugin listens to, with the change kinds that become events. */
export const RECORD_KINDS: ReadonlyMap<string, ReadonlySet<string>> = new Map([
  ['object', new Set(['created', 'updated', 'published', 'unpublished', 'transitioned', 'deleted', 'bulk'])],
  ['asset', new Set(['created', 'updated', 'moved', 'deleted', 'bulk'])],
  // Creating, editing and deleting pages emit no events: only publication does.
  ['page', new Set(['published', 'unpublished'])],
]);

/** The event kind of a change, or undefined when the change emits no event. */
export function eventTypeOf(change: RecordChange): EventType | undefined {
  return RECORD_KINDS.get(change.recordType)?.has(change.kind)
    ? (`${change.recordType}.${change.kind}` as EventType)
    : undefined;
}

/** The id of the all-zero object a test event describes. */
export const ZERO_ID = '00000000-0000-0000-0000-000000000000';

/**
 * What is stored with the event and turned into the body at send time (plus `id`, `instance`). For
 * object events: the spec's fields. Other record types carry the announcer's ids and metadata under
 * their record type (`asset`, `page`); their field-level shape is the announcing plugin's.
 */
export interface EventEnvelope {
  type: string;
  occurredAt: string;
  actor: { type: string; id: string | null };
  changed?: string[];
  test?: true;
  [part: string]: unknown;
}

/** The envelope of a change: never attribute values, only what the announcer put in `data`. */
export function envelopeOf(change: RecordChange, type: string, occurredAt: Date): EventEnvelope {
  const data = change.data ?? {};
  const parts: Record<string, unknown> = {};
  if (change.recordType === 'object') {
    // The spec's body order: class, object, (transition, bulk), changed, actor.
    for (const key of ['class', 'object', 'transition', 'bulk']) if (data[key] !== undefined) parts[key] = data[key];
  } else {
    parts[change.recordType] = { id: change.recordId, ...data };
  }
  return {
    type,
    occurredAt: occurredAt.toISOString(),
    ...parts,
    ...(change.kind === 'bulk' ? {} : { changed: change.changedFields ?? [] }),
    actor: { type: change.actor.type, id: change.actor.id },
  };
}
