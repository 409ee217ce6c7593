import { Type } from '@sinclair/typebox';
import type { App } from '../../../kernel/index.ts';
import { type AuditLogReader, ENTRY_COLUMNS } from '../services/audit-log-reader.ts';
import { toCsv } from '../services/csv.ts';
import { toFilter } from '../services/query-params.ts';

export const MAX_LIMIT = 5000;
/** Deepest page start: beyond it a read skips millions of rows (narrow with `to` instead). */
export const MAX_OFFSET = 1_000_000;

const Query = Type.Object(
  {
    action: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description: 'Exact action, or a prefix when it ends in a dot (`user.`)',
      }),
    ),
    actor: Type.Optional(
      Type.String({ minLength: 1, maxLength: 320, description: 'Actor id, or actor e-mail (case-insensitive)' }),
    ),
    targetType: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    targetId: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    from: Type.Optional(Type.String({ maxLength: 64, description: 'ISO date or timestamp, inclusive' })),
    to: Type.Optional(
      Type.String({ maxLength: 64, description: 'ISO date (whole UTC day included) or timestamp, inclusive' }),
    ),
    limit: Type.Integer({ minimum: 1, maximum: MAX_LIMIT, default: 100 }),
    offset: Type.Integer({ minimum: 0, maximum: MAX_OFFSET, default: 0 }),
    format: Type.Optional(Type.Union([Type.Literal('json'), Type.Literal('csv')])),
  },
  { additionalProperties: false },
);

const Json = Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]);
const NullableText = Type.Union([Type.String(), Type.Null()]);
const Entry = Type.Object({
  id: Type.Integer(),
  at: Type.String({ format: 'date-time' }),
  actor_type: Type.String(),
  actor_id: NullableText,
  actor_label: NullableText,
  ip: NullableText,
  action: Type.String(),
  target_type: NullableText,
  target_id: NullableText,
  target_label: NullableText,
  before: Json,
  after: Json,
  request_id: NullableText,
});
const Page = Type.Object({ entries: Type.Array(Entry), total: Type.Integer() });

/** GET /audit-log: read-only; the plugin has no route that writes, changes or deletes a row. */
export async function auditLogRoutes(app: App, deps: { reader: AuditLogReader; now: () => Date }): Promise<void> {
  app.get(
    '/audit-log',
    {
      config: { permission: 'audit:read' },
      schema: {
        tags: ['audit'],
        summary: 'Audit entries, newest first; `format=csv` downloads the same page as CSV',
        querystring: Query,
        response: { 200: Page },
      },
    },
    async (request, reply) => {
      const { limit, offset, format, ...rest } = request.query;
      const page = await deps.reader.page(toFilter(rest), { limit, offset });
      reply.header('cache-control', 'no-store');
      if (format !== 'csv') return page;
      const stamp = deps
        .now()
        .toISOString()
        .replace(/[-:]/g, '')
        .replace(/\.\d+Z$/, 'Z');
      return (
        reply
          .header('content-type', 'text/csv; charset=utf-8')
          .header('content-disposition', `attachment; filename="audit-log-${stamp}.csv"`)
          .header('x-total-count', String(page.total))
          // The 200 schema describes the JSON form; Fastify sends a string body as it is, unserialized.
          .send(toCsv(ENTRY_COLUMNS, page.entries) as unknown as typeof page)
      );
    },
  );
}
