import { nonJsonAnswer, type App } from '../../../kernel/index.ts';
import { SYSTEM_LOGS_KEY } from '../permissions.ts';
import type { SystemLogs } from '../services/index.ts';
import { DownloadQuery, TailAnswer, TailQuery } from './schemas.ts';

/** `20261126T075512Z`: a file name's time. */
const stamp = (now: Date) =>
  now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');

/**
 * The system logs (spec: `GET /api/v1/system/logs`, `/download`; core-api and all-in-one): the tail
 * and every file as one download. In the split deployment they come from the asset-processor's store.
 */
export async function logRoutes(app: App, logs: SystemLogs, now: () => Date): Promise<void> {
  const tags = ['system logs'];
  app.get(
    '/api/v1/system/logs',
    {
      config: { permission: SYSTEM_LOGS_KEY },
      schema: {
        tags,
        summary: 'The newest log lines of every process (filter by level and process)',
        querystring: TailQuery,
        response: { 200: TailAnswer },
      },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      return { lines: await logs.tail(request.query) };
    },
  );
  app.get(
    '/api/v1/system/logs/download',
    {
      config: { permission: SYSTEM_LOGS_KEY },
      schema: {
        tags,
        summary:
          'Every log file as one stream of JSON lines (application/x-ndjson): process by process, each oldest file first',
        querystring: DownloadQuery,
        response: { 200: nonJsonAnswer('application/x-ndjson', 'Log lines, one JSON object a line') },
      },
    },
    async (request, reply) => {
      const body = await logs.download(request.query.service);
      const name = `cms-logs-${request.query.service ?? 'all'}-${stamp(now())}.ndjson`;
      return reply
        .header('cache-control', 'no-store')
        .header('content-type', 'application/x-ndjson; charset=utf-8')
        .header('content-disposition', `attachment; filename="${name}"`)
        .send(body);
    },
  );
}
