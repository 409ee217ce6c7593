import { Type } from '@sinclair/typebox';

export const IdParams = Type.Object({ id: Type.String({ format: 'uuid' }) }, { additionalProperties: false });

// A host name or an IP literal: no scheme, path, credentials or spaces.
const Host = Type.String({ minLength: 1, maxLength: 253, pattern: '^[A-Za-z0-9.:_-]+$' });
const Folder = Type.String({ minLength: 1, maxLength: 1000 });
const Name = Type.String({ minLength: 1, maxLength: 200, pattern: '\\S' });
const Word = Type.String({ minLength: 1, maxLength: 64, pattern: '^[^\\s\\u0000]+$' });

const connectionFields = {
  host: Host,
  port: Type.Integer({ minimum: 1, maximum: 65535 }),
  database: Word,
  user: Type.String({ minLength: 1, maxLength: 80 }),
  password: Type.String({ maxLength: 500 }),
  ssl: Type.Boolean(),
};

export const CreateSource = Type.Object(
  {
    name: Name,
    kind: Type.Literal('pimcore'),
    connection: Type.Object(
      {
        host: connectionFields.host,
        port: connectionFields.port,
        database: connectionFields.database,
        user: connectionFields.user,
        password: Type.Optional(connectionFields.password),
        ssl: Type.Optional(connectionFields.ssl),
      },
      { additionalProperties: false },
    ),
    classPath: Folder,
    assetsPath: Type.Optional(Type.Union([Folder, Type.Null()])),
  },
  { additionalProperties: false },
);

export const PatchSource = Type.Object(
  {
    name: Type.Optional(Name),
    connection: Type.Optional(Type.Partial(Type.Object(connectionFields), { additionalProperties: false })),
    classPath: Type.Optional(Folder),
    assetsPath: Type.Optional(Type.Union([Folder, Type.Null()])),
  },
  { additionalProperties: false },
);

export const SourceView = Type.Object({
  id: Type.String({ format: 'uuid' }),
  name: Type.String(),
  kind: Type.Literal('pimcore'),
  connection: Type.Object({
    host: Type.String(),
    port: Type.Integer(),
    database: Type.String(),
    user: Type.String(),
    ssl: Type.Boolean(),
  }),
  passwordSet: Type.Boolean(),
  classPath: Type.String(),
  assetsPath: Type.Union([Type.String(), Type.Null()]),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
});

export const TestReport = Type.Object({
  ok: Type.Boolean(),
  server: Type.Union([Type.String(), Type.Null()]),
  classes: Type.Integer(),
  objects: Type.Integer(),
  documents: Type.Integer(),
  problems: Type.Array(Type.String()),
});

export const ClassNames = Type.Object(
  {
    classes: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 63 }), { maxItems: 1000, uniqueItems: true }),
    ),
  },
  { additionalProperties: false },
);

const MappedField = Type.Object({
  name: Type.String(),
  pimcoreType: Type.String(),
  type: Type.String(),
  translated: Type.Boolean(),
  note: Type.Optional(Type.String()),
});

export const PreviewAnswer = Type.Object({
  classes: Type.Array(
    Type.Object({
      name: Type.String(),
      pimcoreId: Type.String(),
      action: Type.Union([Type.Literal('create'), Type.Literal('reuse'), Type.Literal('conflict')]),
      reason: Type.Optional(Type.String()),
      fields: Type.Array(MappedField),
    }),
  ),
  components: Type.Array(
    Type.Object({
      name: Type.String(),
      kind: Type.Union([Type.Literal('fieldcollection'), Type.Literal('objectbrick')]),
      fields: Type.Array(MappedField),
    }),
  ),
  warnings: Type.Array(Type.String()),
});

export const ImportClassesAnswer = Type.Object({
  created: Type.Array(Type.Object({ name: Type.String(), id: Type.String({ format: 'uuid' }) })),
  reused: Type.Array(Type.String()),
  conflicts: Type.Array(Type.Object({ name: Type.String(), reason: Type.String() })),
  warnings: Type.Array(Type.String()),
});

export const ComponentNames = Type.Object(
  {
    components: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 63 }), { maxItems: 1000, uniqueItems: true }),
    ),
  },
  { additionalProperties: false },
);

export const ExtractComponentsAnswer = Type.Object({
  created: Type.Array(
    Type.Object({
      name: Type.String(),
      id: Type.String({ format: 'uuid' }),
      kind: Type.Union([Type.Literal('fieldcollection'), Type.Literal('objectbrick')]),
    }),
  ),
  reused: Type.Array(Type.String()),
  conflicts: Type.Array(Type.Object({ name: Type.String(), reason: Type.String() })),
  warnings: Type.Array(Type.String()),
});

export const ImportObjectsBody = Type.Object(
  {
    classes: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 63 }), { maxItems: 1000, uniqueItems: true }),
    ),
    background: Type.Optional(Type.Boolean()),
    publish: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

export const JobIdParams = Type.Object({ jobId: Type.String({ format: 'uuid' }) }, { additionalProperties: false });

const Counts = Type.Object({
  created: Type.Integer(),
  updated: Type.Integer(),
  skipped: Type.Integer(),
  failed: Type.Integer(),
});
const FailedRecords = Type.Array(Type.Object({ sourceId: Type.String(), reason: Type.String() }));

export const ImportObjectsAnswer = Type.Object({
  jobId: Type.String({ format: 'uuid' }),
  counts: Counts,
  failed: FailedRecords,
  warnings: Type.Array(Type.String()),
});

export const ImportQueued = Type.Object({ jobId: Type.String({ format: 'uuid' }) });

export const ImportJobView = Type.Object({
  id: Type.String({ format: 'uuid' }),
  sourceId: Type.String({ format: 'uuid' }),
  state: Type.Union(['queued', 'running', 'succeeded', 'failed', 'cancelled'].map((s) => Type.Literal(s))),
  progress: Type.Object({ done: Type.Integer(), total: Type.Integer() }),
  counts: Counts,
  failed: FailedRecords,
  warnings: Type.Array(Type.String()),
  error: Type.Union([Type.String(), Type.Null()]),
  createdAt: Type.String({ format: 'date-time' }),
  startedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  finishedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});

export const ImportDocumentsBody = Type.Object(
  {
    websiteId: Type.String({ format: 'uuid' }),
    locale: Type.Optional(Type.String({ minLength: 2, maxLength: 35, pattern: '^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$' })),
    staging: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

export const ImportDocumentsAnswer = Type.Object({
  counts: Counts,
  documents: Type.Array(
    Type.Object({
      pimcoreId: Type.Integer(),
      kind: Type.Union([Type.Literal('page'), Type.Literal('staged'), Type.Literal('snippet')]),
      id: Type.String({ format: 'uuid' }),
      path: Type.String(),
    }),
  ),
  failed: FailedRecords,
  warnings: Type.Array(Type.String()),
});

export const PromoteDocumentsBody = Type.Object(
  {
    ids: Type.Optional(Type.Array(Type.String({ format: 'uuid' }), { minItems: 1, maxItems: 5000, uniqueItems: true })),
    all: Type.Optional(Type.Literal(true)),
  },
  { additionalProperties: false },
);

export const PromoteDocumentsAnswer = Type.Object({
  promoted: Type.Array(
    Type.Object({ id: Type.String({ format: 'uuid' }), pageId: Type.String({ format: 'uuid' }), path: Type.String() }),
  ),
});
