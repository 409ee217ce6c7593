import { Type } from '@sinclair/typebox';
import { type App, requestContext } from '../../../kernel/index.ts';
import type { PublishJobs } from '../services/jobs.ts';
import type { JobState } from '../store/jobs.ts';
import { IdParams, Job, JobList, jobJson, ListQuery, LogsQuery, Queue } from './schemas.ts';

const read = { permission: 'objects:read' };
const publish = { permission: 'websites:publish' };
const tags = ['publish'];

/** What editors do with publish jobs: queue, list, follow (progress and logs), cancel, retry. */
export async function jobRoutes(app: App, jobs: PublishJobs): Promise<void> {
  app.post(
    '/publish/jobs',
    {
      config: publish,
      schema: {
        tags,
        summary: 'Queue a static build of a website (audit website.publish)',
        body: Queue,
        response: { 202: Job },
      },
    },
    async (request, reply) =>
      reply.code(202).send(jobJson(await jobs.queue(requestContext(request), request.body.websiteId))),
  );

  app.get(
    '/publish/jobs',
    {
      config: read,
      schema: {
        tags,
        summary: 'Publish jobs, newest first',
        querystring: ListQuery,
        response: { 200: JobList },
      },
    },
    async (request) => {
      const q = request.query;
      const [{ rows, total }, lastSeenAt] = await Promise.all([
        jobs.store.list({
          websiteId: q.websiteId,
          state: q.state as JobState | undefined,
          limit: q.limit,
          offset: q.offset,
        }),
        jobs.store.lastClaimAt(),
      ]);
      return { jobs: rows.map(jobJson), total, runner: { lastSeenAt: lastSeenAt?.toISOString() ?? null } };
    },
  );

  app.get(
    '/publish/jobs/:id',
    { config: read, schema: { tags, summary: 'One publish job', params: IdParams, response: { 200: Job } } },
    async (request) => jobJson(await jobs.get(request.params.id)),
  );

  app.get(
    '/publish/jobs/:id/logs',
    {
      config: read,
      schema: {
        tags,
        summary: "A publish job's log lines after the id `after`, oldest first",
        params: IdParams,
        querystring: LogsQuery,
        response: {
          200: Type.Object({
            lines: Type.Array(
              Type.Object({
                id: Type.Integer(),
                attempt: Type.Integer(),
                at: Type.String({ format: 'date-time' }),
                level: Type.String(),
                message: Type.String(),
              }),
            ),
          }),
        },
      },
    },
    async (request) => {
      await jobs.get(request.params.id);
      const rows = await jobs.store.logs(request.params.id, request.query.after, request.query.limit);
      return {
        lines: rows.map((r) => ({
          id: Number(r.id),
          attempt: r.attempt,
          at: r.at.toISOString(),
          level: r.level,
          message: r.message,
        })),
      };
    },
  );

  app.post(
    '/publish/jobs/:id/cancel',
    {
      config: publish,
      schema: {
        tags,
        summary: 'Cancel a queued or running publish job (audit website.publish_cancel)',
        params: IdParams,
        response: { 200: Job },
      },
    },
    async (request) => jobJson(await jobs.cancel(requestContext(request), request.params.id)),
  );

  app.post(
    '/publish/jobs/:id/retry',
    {
      config: publish,
      schema: {
        tags,
        summary: 'Queue a failed or cancelled publish job again (audit website.publish)',
        params: IdParams,
        response: { 202: Job },
      },
    },
    async (request, reply) =>
      reply.code(202).send(jobJson(await jobs.retry(requestContext(request), request.params.id))),
  );
}
