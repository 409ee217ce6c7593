import { Type } from '@sinclair/typebox';
import { requestContext, type App } from '../../../kernel/index.ts';
import type { ContentServices } from '../services/index.ts';
import { toPageDto } from '../services/pages.ts';
import { toSnippetDto } from '../services/snippets.ts';
import { PageAnswer, PageScheduleAnswer, PendingDraftsAnswer, SnippetAnswer } from './answers.ts';
import { IdParams, ListQuery } from './schemas.ts';
import { workingCopyRoutes } from './working-copy-routes.ts';

/**
 * Working copies: compare a page's with live, publish it (objects:publish, checked in the service
 * so ENFORCE_PUBLISH_PERMISSION=0 lets editors publish as elsewhere), discard it, and list every
 * record with one ("pending changes").
 */
export function draftRoutes(app: App, s: ContentServices): void {
  const read = { permission: 'objects:read' };
  const edit = { permission: 'pages:edit' };
  const tags = ['pages'];

  app.get(
    '/cms-one/drafts',
    {
      config: read,
      schema: {
        tags,
        summary: 'Pending changes: pages, snippets, templates and layouts with a working copy, newest first',
        querystring: Type.Object({
          ownerType: Type.Optional(
            Type.Union([
              Type.Literal('page'),
              Type.Literal('snippet'),
              Type.Literal('template'),
              Type.Literal('layout'),
            ]),
          ),
          ...ListQuery,
        }),
        response: { 200: PendingDraftsAnswer },
      },
    },
    async (request) => ({
      drafts: (await s.drafts.list(request.query)).map((d) => ({
        ownerType: d.owner_type,
        id: d.owner_id,
        label: d.label,
        websiteId: d.website_id,
        updatedAt: d.updated_at,
        updatedBy: d.updated_by,
      })),
    }),
  );

  app.get(
    '/cms-one/schedules',
    {
      config: read,
      schema: {
        tags,
        summary: 'Scheduled publishing and unpublishing of pages, soonest first',
        querystring: Type.Object(ListQuery),
        response: { 200: Type.Object({ schedules: Type.Array(PageScheduleAnswer) }) },
      },
    },
    async (request) => ({ schedules: await s.schedules.list(request.query) }),
  );

  app.get(
    '/cms-one/pages/:id/schedule',
    {
      config: read,
      schema: {
        tags,
        params: IdParams,
        response: { 200: Type.Object({ schedule: Type.Union([PageScheduleAnswer, Type.Null()]) }) },
      },
    },
    async (request) => ({ schedule: await s.schedules.get(request.params.id) }),
  );

  app.put(
    '/cms-one/pages/:id/schedule',
    {
      config: edit,
      schema: {
        tags,
        summary: 'When the page (with its working copy) goes live and offline; needs objects:publish',
        params: IdParams,
        body: Type.Object(
          {
            publishAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
            unpublishAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
          },
          { additionalProperties: false },
        ),
        response: { 200: Type.Object({ schedule: Type.Union([PageScheduleAnswer, Type.Null()]) }) },
      },
    },
    async (request) => ({
      schedule: await s.schedules.set(requestContext(request), request.params.id, request.body),
    }),
  );

  workingCopyRoutes(app, {
    base: '/cms-one/pages/:id',
    params: IdParams,
    tags,
    edit: 'pages:edit',
    answer: PageAnswer,
    dto: toPageDto,
    diff: (p) => s.pages.draftDiff(p.id),
    publish: (ctx, p) => s.pages.publishDraft(ctx, p.id),
    discard: (ctx, p) => s.pages.discardDraft(ctx, p.id),
  });
  workingCopyRoutes(app, {
    base: '/cms-one/snippets/:id',
    params: IdParams,
    tags: ['snippets'],
    edit: 'snippets:edit',
    answer: SnippetAnswer,
    dto: toSnippetDto,
    diff: (p) => s.snippets.draftDiff(p.id),
    publish: (ctx, p) => s.snippets.publishDraft(ctx, p.id),
    discard: (ctx, p) => s.snippets.discardDraft(ctx, p.id),
  });
}
