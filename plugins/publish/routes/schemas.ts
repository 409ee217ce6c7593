import { Type } from '@sinclair/typebox';
import type { JobRow } from '../store/jobs.ts';

export const IdParams = Type.Object({ id: Type.String({ format: 'uuid' }) });

export const State = Type.Union(
  ['queued', 'running', 'cancelling', 'succeeded', 'failed', 'cancelled'].map((s) => Type.Literal(s)),
);
const Timestamp = Type.String({ format: 'date-time' });
const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);

/** A publish job as the editor routes answer it. */
export const Job = Type.Object({
  id: Type.String({ format: 'uuid' }),
  websiteId: Type.String({ format: 'uuid' }),
  websiteName: Type.String(),
  state: State,
  requestedBy: Nullable(Type.String()),
  requestedAt: Timestamp,
  attempt: Type.Integer({ description: 'runs so far (a claim starts one)' }),
  attemptsLeft: Type.Integer({ description: 'runs left before a runner that stops answering fails the job' }),
  runner: Nullable(Type.String()),
  claimedAt: Nullable(Timestamp),
  finishedAt: Nullable(Timestamp),
  progress: Type.Object({ done: Type.Integer(), total: Type.Integer() }),
  pages: Type.Integer(),
  files: Type.Integer(),
  output: Nullable(Type.String({ description: 'where the runner wrote the build' })),
  error: Nullable(Type.String()),
});

/** The jobs list: a page of jobs, the count under the filter, and when a runner was last heard from. */
export const JobList = Type.Object({
  jobs: Type.Array(Job),
  total: Type.Integer(),
  runner: Type.Object({
    lastSeenAt: Nullable(
      Type.String({
        format: 'date-time',
        description: 'when a runner last claimed a run (any job); null when none ever did',
      }),
    ),
  }),
});

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function jobJson(row: JobRow) {
  return {
    id: row.id,
    websiteId: row.website_id,
    websiteName: row.website_name,
    state: row.state,
    requestedBy: row.requested_by,
    requestedAt: row.requested_at.toISOString(),
    attempt: row.attempt,
    attemptsLeft: row.attempts_left,
    runner: row.runner,
    claimedAt: iso(row.claimed_at),
    finishedAt: iso(row.finished_at),
    progress: { done: row.progress_done, total: row.progress_total },
    pages: row.pages,
    files: row.files,
    output: row.output,
    error: row.error,
  };
}

export const ListQuery = Type.Object(
  {
    websiteId: Type.Optional(Type.String({ format: 'uuid' })),
    state: Type.Optional(State),
    limit: Type.Integer({ minimum: 1, maximum: 200, default: 50 }),
    offset: Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0 }),
  },
  { additionalProperties: false },
);

export const LogsQuery = Type.Object(
  {
    after: Type.Integer({
      minimum: 0,
      maximum: Number.MAX_SAFE_INTEGER,
      default: 0,
      description: 'the id of the last line already read',
    }),
    limit: Type.Integer({ minimum: 1, maximum: 1000, default: 200 }),
  },
  { additionalProperties: false },
);

export const LogLines = Type.Array(
  Type.Object(
    {
      level: Type.Union([Type.Literal('info'), Type.Literal('warn'), Type.Literal('error')]),
      message: Type.String({ minLength: 1, maxLength: 2000 }),
    },
    { additionalProperties: false },
  ),
  { maxItems: 200 },
);

export const Queue = Type.Object({ websiteId: Type.String({ format: 'uuid' }) }, { additionalProperties: false });

// ---- runner routes ------------------------------------------------------------------------------

export const ClaimBody = Type.Object(
  {
    runner: Type.String({
      minLength: 1,
      maxLength: 200,
      pattern: '^[\\x21-\\x7e]+$',
      description: 'a name for the logs: host and process',
    }),
  },
  { additionalProperties: false },
);

export const PageQuery = Type.Object(
  {
    locale: Type.String({ minLength: 1, maxLength: 64 }),
    path: Type.String({ minLength: 1, maxLength: 2000, pattern: '^/' }),
  },
  { additionalProperties: false },
);

export const FilesBody = Type.Object(
  { references: Type.Array(Type.String({ minLength: 1, maxLength: 2048 }), { maxItems: 10_000 }) },
  { additionalProperties: false },
);

export const FileParams = Type.Object({ id: Type.String({ format: 'uuid' }), fileId: Type.String({ format: 'uuid' }) });

const Count = Type.Integer({ minimum: 0, maximum: 10_000_000 });

export const ProgressBody = Type.Object(
  { done: Count, total: Count, logs: Type.Optional(LogLines) },
  { additionalProperties: false },
);

export const FinishBody = Type.Object(
  {
    outcome: Type.Union([Type.Literal('succeeded'), Type.Literal('failed'), Type.Literal('cancelled')]),
    output: Type.Optional(Type.String({ maxLength: 2000 })),
    error: Type.Optional(Type.String({ maxLength: 2000 })),
    pages: Type.Optional(Count),
    files: Type.Optional(Count),
    logs: Type.Optional(LogLines),
  },
  { additionalProperties: false },
);

/** A claimed job: the job, the claim of the run (the runner's credential for it, shown only here) and its lease. */
export const ClaimedJob = Type.Object({
  job: Job,
  claim: Type.String({ description: `Sent back in the claim header on every later call about the job` }),
  leaseSeconds: Type.Integer(),
});

const Skipped = { path: Type.String(), reason: Type.String() };

/** The website and the file of each page to build; pages that cannot be built, with the reason. */
export const RunnerPages = Type.Object({
  website: Type.Object({
    id: Type.String({ format: 'uuid' }),
    name: Type.String(),
    rootPath: Type.String(),
    locales: Type.Array(Type.String()),
  }),
  pages: Type.Array(Type.Object({ locale: Type.String(), path: Type.String(), file: Type.String() })),
  skipped: Type.Array(Type.Object({ locale: Type.String(), ...Skipped })),
});

/** The public library files among the pages' references; private ones are skipped. */
export const RunnerFiles = Type.Object({
  files: Type.Array(
    Type.Object({
      id: Type.String(),
      path: Type.String(),
      file: Type.String(),
      size: Type.Integer(),
      mimeType: Type.String(),
    }),
  ),
  skipped: Type.Array(Type.Object(Skipped)),
});
