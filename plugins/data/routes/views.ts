import { Type } from '@sinclair/typebox';
import { emptyAnswer } from '../../../kernel/index.ts';
import { FIELD_TYPES } from '../model.ts';
import { WorkflowSchema } from '../services/workflow-definition.ts';

/**
 * What the admin data routes answer (`toClassDto`, `toComponentDto`, `toObjectDto`), declared so
 * `/openapi.json` says it and the dashboard's types come from it.
 */
const Time = Type.String({ format: 'date-time' });
const FieldType = Type.Union(FIELD_TYPES.map((t) => Type.Literal(t)));

/** A field definition as stored: normalized, unknown keys refused when it was written. */
export const FieldDefView = Type.Object({
  name: Type.String(),
  type: FieldType,
  label: Type.Optional(Type.String()),
  required: Type.Optional(Type.Boolean()),
  unique: Type.Optional(Type.Boolean()),
  localized: Type.Optional(Type.Boolean()),
  options: Type.Optional(Type.Array(Type.String())),
  validation: Type.Optional(
    Type.Object({
      min: Type.Optional(Type.Number()),
      max: Type.Optional(Type.Number()),
      minLength: Type.Optional(Type.Integer()),
      maxLength: Type.Optional(Type.Integer()),
      pattern: Type.Optional(Type.String()),
    }),
  ),
  relation: Type.Optional(Type.Object({ class: Type.String() })),
  component: Type.Optional(Type.String()),
  of: Type.Optional(FieldType),
});

export const ClassView = Type.Object({
  id: Type.String({ format: 'uuid' }),
  name: Type.String(),
  label: Type.String(),
  fields: Type.Array(FieldDefView),
  viewConfig: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]),
  retentionDays: Type.Union([Type.Integer(), Type.Null()]),
  workflow: Type.Union([WorkflowSchema, Type.Null()]),
  createdAt: Time,
  updatedAt: Time,
});

export const ComponentView = Type.Object({
  id: Type.String({ format: 'uuid' }),
  name: Type.String(),
  label: Type.String(),
  fields: Type.Array(FieldDefView),
  createdAt: Time,
  updatedAt: Time,
});

export const ComponentUsageView = Type.Object({
  inUse: Type.Boolean(),
  classes: Type.Array(Type.Object({ id: Type.String(), name: Type.String() })),
  objectCount: Type.Integer(),
});

/** One language row of an object. */
export const ObjectView = Type.Object({
  id: Type.String({ format: 'uuid' }),
  class: Type.Object({ id: Type.String(), name: Type.String() }),
  classId: Type.String(),
  translationGroupId: Type.String(),
  locale: Type.String(),
  key: Type.Union([Type.String(), Type.Null()]),
  parentId: Type.Union([Type.String(), Type.Null()]),
  path: Type.String(),
  published: Type.Boolean(),
  workflowState: Type.Union([Type.String(), Type.Null()]),
  attributes: Type.Record(Type.String(), Type.Unknown()),
  createdAt: Time,
  updatedAt: Time,
  /** Present on staff reads when the object has a working copy; the content above is then the copy's. */
  draft: Type.Optional(Type.Object({ updatedAt: Time, updatedBy: Type.Union([Type.String(), Type.Null()]) })),
});

/** The fields (attribute names, `key`, `parent`, `path`) in which an object's working copy differs from live. */
export const DraftDiffView = Type.Object({
  changed: Type.Array(Type.String()),
  fields: Type.Array(Type.Object({ field: Type.String(), live: Type.Unknown(), draft: Type.Unknown() })),
});

/** When an object goes live and offline (scheduled publishing), and who set it. */
export const ScheduleView = Type.Object({
  objectId: Type.String({ format: 'uuid' }),
  classId: Type.String({ format: 'uuid' }),
  publishAt: Type.Union([Time, Type.Null()]),
  unpublishAt: Type.Union([Time, Type.Null()]),
  scheduledBy: Type.String(),
  updatedAt: Time,
});

/** Objects with a working copy, newest first. */
export const PendingChangesView = Type.Object({
  drafts: Type.Array(
    Type.Object({
      objectId: Type.String({ format: 'uuid' }),
      class: Type.Object({ id: Type.String(), name: Type.String() }),
      locale: Type.String(),
      published: Type.Boolean(),
      updatedAt: Time,
      updatedBy: Type.Union([Type.String(), Type.Null()]),
    }),
  ),
});

export const ObjectList = Type.Object({ objects: Type.Array(ObjectView) });

/** A page of the admin query: `total` only when counted, `nextCursor` only when rows follow. */
export const ObjectQueryPage = Type.Object({
  objects: Type.Array(ObjectView),
  hasMore: Type.Boolean(),
  total: Type.Optional(Type.Integer()),
  nextCursor: Type.Optional(Type.String()),
});

/** The answer of a delete. */
export const Deleted = { 204: emptyAnswer('Deleted') };

/** Objects by id: those found (in the order asked) and the ids that were not. */
export const ObjectBatchView = Type.Object({ objects: Type.Array(ObjectView), missing: Type.Array(Type.String()) });

/** What a bulk create or update did with each entry; `rejected` names the entry and field. */
export const BulkResultView = Type.Object({
  created: Type.Array(Type.String()),
  updated: Type.Array(Type.String()),
  unchanged: Type.Array(Type.String()),
  rejected: Type.Array(Type.Object({ index: Type.Integer(), field: Type.String(), reason: Type.String() })),
});

/** What a batch action did with each id; `assets` for `resolve-assets` (null for an unknown reference). */
export const BatchResultView = Type.Object({
  results: Type.Array(
    Type.Object({
      id: Type.String(),
      status: Type.Union(
        ['published', 'unpublished', 'unchanged', 'deleted', 'not_found', 'resolved'].map((s) => Type.Literal(s)),
      ),
      assets: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    }),
  ),
});
