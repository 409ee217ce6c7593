import { Type } from '@sinclair/typebox';
import { LEVEL_NAMES, MAX_LINE_CHARS } from '../services/log-lines.ts';
import { LOG_SOURCES } from '../services/store.ts';

/** Most lines one tail answers (each at most MAX_LINE_CHARS): an answer stays a few megabytes. */
export const MAX_TAIL_LINES = 1000;

const Level = Type.Union(
  LEVEL_NAMES.map((l) => Type.Literal(l)),
  { description: 'lowest level wanted: `warn` is warn, error and fatal; lines that are not pino lines are left out' },
);
const Service = Type.Union(
  LOG_SOURCES.map((s) => Type.Literal(s)),
  { description: 'only the lines of this process (`all-in-one` when one process runs everything)' },
);

export const TailQuery = Type.Object(
  {
    lines: Type.Integer({
      minimum: 1,
      maximum: MAX_TAIL_LINES,
      default: 100,
      description: 'how many of the newest lines',
    }),
    level: Type.Optional(Level),
    service: Type.Optional(Service),
  },
  { additionalProperties: false },
);

export const DownloadQuery = Type.Object({ service: Type.Optional(Service) }, { additionalProperties: false });

const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);

export const TailAnswer = Type.Object({
  lines: Type.Array(
    Type.Object({
      service: Type.String(),
      time: Nullable(Type.String({ format: 'date-time' })),
      level: Type.Union([...LEVEL_NAMES.map((l) => Type.Literal(l)), Type.Null()]),
      msg: Nullable(Type.String()),
      line: Type.String({ description: `the line as stored (pino JSON), cut at ${MAX_LINE_CHARS} characters` }),
      truncated: Type.Optional(Type.Literal(true)),
    }),
    { description: 'oldest first, in time order across processes' },
  ),
});
