import { Type, type TSchema } from '@sinclair/typebox';
import { requestContext, type App, type AuditContext } from '../../../kernel/index.ts';
import { entityTag } from '../services/preconditions.ts';
import { Deleted, PageDraftDiffAnswer } from './answers.ts';
import { withEntityTag } from './schemas.ts';

/** `?version=live` reads the live record of one that has a working copy. */
export const VersionQuery = Type.Object({
  version: Type.Optional(Type.Union([Type.Literal('live'), Type.Literal('draft')])),
});
/** `?draft=true`: a publisher's save goes to the working copy of a live record instead of live. */
export const DraftQuery = Type.Object({
  draft: Type.Optional(Type.Union([Type.Literal('true'), Type.Literal('false')])),
});
/** The rule, as route descriptions state it (services/working-copy.ts). */
export const draftNote = (what: string) =>
  `A ${what} saved by someone without \`objects:publish\`, or with \`?draft=true\`, changes its working copy; the live ${what} stays until \`POST …/publish-draft\`.`;
export const VERSION_NOTE =
  'The working copy when there is one (`draft` says who saved it and when); `?version=live` for the live record.';

/** The working-copy routes of one kind of record, under `base` (its record path, e.g. `/cms-one/pages/:id`). */
export interface WorkingCopyRoutes<Row extends { updated_at: Date }> {
  base: string;
  params: TSchema;
  tags: string[];
  /** The permission a save of the record needs (publish-draft also needs objects:publish, checked in the service). */
  edit: string;
  /** The record's answer schema, and its DTO. */
  answer: TSchema;
  dto(row: Row): unknown;
  diff(params: Record<string, string>): Promise<unknown>;
  publish(ctx: AuditContext, params: Record<string, string>): Promise<Row>;
  discard(ctx: AuditContext, params: Record<string, string>): Promise<void>;
}

/**
 * `GET <base>/draft/diff` (fields and node-tree paths that differ from live), `POST <base>/publish-draft`
 * (objects:publish) and `DELETE <base>/draft`, the same for pages, snippets, templates and layouts.
 */
export function workingCopyRoutes<Row extends { updated_at: Date }>(app: App, r: WorkingCopyRoutes<Row>): void {
  const { tags, params } = r;
  const edit = { permission: r.edit };
  app.get(
    `${r.base}/draft/diff`,
    {
      config: { permission: 'objects:read' },
      schema: {
        tags,
        summary: 'What the working copy changes: the fields and node-tree paths that differ from live',
        params,
        response: { 200: PageDraftDiffAnswer },
      },
    },
    async (request) => r.diff(request.params as Record<string, string>) as never,
  );
  app.post(
    `${r.base}/publish-draft`,
    {
      config: edit,
      schema: {
        tags,
        summary: 'Make the working copy live (needs objects:publish)',
        params,
        response: { 200: withEntityTag(r.answer) },
      },
    },
    async (request, reply) => {
      const row = await r.publish(requestContext(request), request.params as Record<string, string>);
      reply.header('etag', entityTag(row.updated_at));
      return r.dto(row) as never;
    },
  );
  app.delete(
    `${r.base}/draft`,
    { config: edit, schema: { tags, summary: 'Discard the working copy; live stays', params, response: Deleted } },
    async (request, reply) => {
      await r.discard(requestContext(request), request.params as Record<string, string>);
      return reply.code(204).send();
    },
  );
}
