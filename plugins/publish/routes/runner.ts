import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import {
  type App,
  badRequest,
  emptyAnswer,
  HttpError,
  nonJsonAnswer,
  safeEqual,
  unavailable,
} from '../../../kernel/index.ts';
import type { PublishJobs } from '../services/jobs.ts';
import {
  ClaimBody,
  ClaimedJob,
  FileParams,
  FilesBody,
  FinishBody,
  IdParams,
  Job,
  jobJson,
  PageQuery,
  ProgressBody,
  RunnerFiles,
  RunnerPages,
  State,
} from './schemas.ts';

const tags = ['publish runner'];
/** The claim of the run, presented on every call about the job after the claim. */
export const CLAIM_HEADER = 'x-publish-claim';

/**
 * The runner routes (`cms publish-runner` calls them): claim the oldest queued job, read what to
 * build, report progress and logs, finish. Public to the session layer: the bearer
 * PUBLISH_RUNNER_TOKEN is their credential, compared in constant time; without it configured they
 * answer 503 PUBLISH_RUNNER_DISABLED (the spec), a wrong or missing bearer 401. The check runs after
 * the route's schema (bad input is a 400 naming the field, token or not) and before any work.
 */
export async function runnerRoutes(app: App, jobs: PublishJobs, token: string | undefined): Promise<void> {
  const guard = async (request: FastifyRequest) => {
    if (!token)
      throw unavailable('Publish runners are not enabled here: set PUBLISH_RUNNER_TOKEN', 'PUBLISH_RUNNER_DISABLED');
    const presented = /^Bearer (.+)$/i.exec(request.headers.authorization ?? '')?.[1] ?? '';
    if (!safeEqual(presented, token))
      throw new HttpError(
        401,
        'PUBLISH_RUNNER_UNAUTHENTICATED',
        'Runner routes need the PUBLISH_RUNNER_TOKEN bearer token',
      );
  };
  const config = { public: true } as const;
  const run = (request: { params: { id: string }; headers: FastifyRequest['headers'] }) => {
    const claim = request.headers[CLAIM_HEADER];
    if (typeof claim !== 'string' || claim.length < 1 || claim.length > 200)
      throw badRequest(`The ${CLAIM_HEADER} header (the claim of the run) is required`, CLAIM_HEADER);
    return jobs.run(request.params.id, claim);
  };

  app.post(
    '/publish/jobs/claim',
    {
      config,
      preHandler: guard,
      schema: {
        tags,
        summary: 'Runner: claim the oldest queued job (204 when none)',
        body: ClaimBody,
        response: { 200: ClaimedJob, 204: emptyAnswer('No job is queued') },
      },
    },
    async (request, reply) => {
      const claimed = await jobs.claim(request.body.runner);
      if (!claimed) return reply.code(204).send();
      return {
        job: jobJson(claimed.job),
        claim: claimed.claim,
        leaseSeconds: jobs.leaseSeconds,
      };
    },
  );

  app.get(
    '/publish/jobs/:id/runner/pages',
    {
      config,
      preHandler: guard,
      schema: {
        tags,
        summary: 'Runner: the website and the file of each page to build',
        params: IdParams,
        response: { 200: RunnerPages },
      },
    },
    async (request) => jobs.pages(await run(request)),
  );

  app.get(
    '/publish/jobs/:id/runner/page',
    {
      config,
      preHandler: guard,
      schema: {
        tags,
        summary: "Runner: one page's HTML, as the live site serves it",
        params: IdParams,
        querystring: PageQuery,
        response: { 200: nonJsonAnswer('text/html', 'The page as the live site serves it') },
      },
    },
    async (request, reply) => {
      const html = await jobs.renderPage(await run(request), request.query.locale, request.query.path);
      return reply.type('text/html; charset=utf-8').send(html);
    },
  );

  app.post(
    '/publish/jobs/:id/runner/files',
    {
      config,
      preHandler: guard,
      bodyLimit: 32 * 1024 * 1024,
      schema: {
        tags,
        summary: 'Runner: the public library files among the references of the pages',
        params: IdParams,
        body: FilesBody,
        response: { 200: RunnerFiles },
      },
    },
    async (request) => {
      await run(request);
      return jobs.describeFiles(request.body.references);
    },
  );

  app.get(
    '/publish/jobs/:id/runner/files/:fileId',
    {
      config,
      preHandler: guard,
      schema: {
        tags,
        summary: "Runner: a public library file's bytes",
        params: FileParams,
        response: { 200: nonJsonAnswer('application/octet-stream', "The file's bytes, under its own media type") },
      },
    },
    async (request, reply) => {
      await run(request);
      const file = await jobs.openFile(request.params.fileId);
      return reply.type(file.mimeType).header('content-length', file.size).send(file.body);
    },
  );

  app.post(
    '/publish/jobs/:id/runner/progress',
    {
      config,
      preHandler: guard,
      schema: {
        tags,
        summary: 'Runner: progress and log lines; the answer says whether to go on',
        params: IdParams,
        body: ProgressBody,
        response: { 200: Type.Object({ state: State }) },
      },
    },
    async (request) => {
      const job = await jobs.progress(await run(request), { ...request.body, logs: request.body.logs ?? [] });
      return { state: job.state };
    },
  );

  app.post(
    '/publish/jobs/:id/runner/finish',
    {
      config,
      preHandler: guard,
      schema: {
        tags,
        summary: 'Runner: the end of the run',
        params: IdParams,
        body: FinishBody,
        response: { 200: Type.Object({ job: Job }) },
      },
    },
    async (request) => {
      const job = await jobs.finish(await run(request), { ...request.body, logs: request.body.logs ?? [] });
      return { job: jobJson(job) };
    },
  );
}
