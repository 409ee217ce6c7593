import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ANONYMOUS, conflict, inTransaction, isHttpError, type App, type Db, type Tx } from '../../../kernel/index.ts';
import { parseFilters, withTypedFilters } from '../services/data-queries.ts';
import type { ClientApiServices } from '../services/index.ts';
import { ClientNotFoundAnswer, ClientObjectPage, ClientObjectView, WrittenObjectView } from './answers.ts';
import { clientOf, ClientNotFound, orNotFound } from './client-scope.ts';
import { ClientObjectTexts, undisclosedConflict, writtenObject } from './client-objects.ts';

const tags = ['client'];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ClassParam = Type.String({ minLength: 1, maxLength: 63 });
const IdParam = Type.String({ minLength: 1, maxLength: 64 });
// Bodies are parsed before an unknown caller is refused: cap them near the largest object the data plugin stores by default.
const WRITE_BODY_LIMIT = 2 * 1024 * 1024;
const Attributes = Type.Record(Type.String({ maxLength: 200 }), Type.Unknown(), { maxProperties: 500 });

/** GET /client/v1/data/:class, GET .../:class/:id, POST .../:class, PATCH .../:class/:id. */
export async function clientDataRoutes(app: App, services: ClientApiServices, db: Db): Promise<void> {
  const { dataObjects } = services;
  const config = { public: true, rateLimit: services.rateLimiter.rule };
  const texts = new ClientObjectTexts(dataObjects);
  const sendJson = (reply: FastifyReply, text: string) => reply.type('application/json; charset=utf-8').send(text);

  app.get(
    '/client/v1/data/:class',
    {
      config,
      schema: {
        tags,
        params: Type.Object({ class: ClassParam }),
        querystring: Type.Object(
          {
            filter: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 500 }), { maxItems: 5 })),
            orderBy: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
            dir: Type.Optional(Type.Union([Type.Literal('asc'), Type.Literal('desc')])),
            limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
            offset: Type.Integer({ minimum: 0, maximum: 100_000, default: 0 }),
            locale: Type.Optional(Type.String({ minLength: 1, maxLength: 35 })),
          },
          { additionalProperties: false },
        ),
        response: { 200: ClientObjectPage, 404: ClientNotFoundAnswer },
      },
    },
    async (request, reply) =>
      orNotFound(reply, async () => {
        const className = request.params.class;
        if (!clientOf(request).scopes.mayData('data:read', className)) throw new ClientNotFound();
        const q = request.query;
        const filters = parseFilters(q.filter ?? []);
        const text = await withTypedFilters(filters, (typed) =>
          texts
            .page({
              className,
              filters: typed.map(({ field, op, value }) => ({ field, op, value })),
              orderBy: q.orderBy ? [{ field: q.orderBy, direction: q.dir ?? 'asc' }] : undefined,
              limit: q.limit,
              offset: q.offset,
              locale: q.locale,
            })
            .catch((err: unknown) => {
              // An unknown class answers like an out-of-scope one.
              if (isHttpError(err) && err.statusCode === 400 && err.field === 'className') throw new ClientNotFound();
              throw err;
            }),
        );
        return sendJson(reply, text);
      }),
  );

  app.get(
    '/client/v1/data/:class/:id',
    {
      config,
      schema: {
        tags,
        params: Type.Object({ class: ClassParam, id: IdParam }),
        response: { 200: ClientObjectView, 404: ClientNotFoundAnswer },
      },
    },
    async (request, reply) =>
      orNotFound(reply, async () => {
        const { class: className, id } = request.params;
        if (!clientOf(request).scopes.mayData('data:read', className) || !UUID.test(id)) throw new ClientNotFound();
        // The public read path answers published objects only (a draft is its 404).
        const object = await texts.object(id);
        if (object.className !== className) throw new ClientNotFound();
        return sendJson(reply, object.text);
      }),
  );

  /** Who writes: the client for the record-change hooks; the anonymous actor for checks, so a client never publishes. */
  const writeContext = (request: FastifyRequest, trx?: Tx) => {
    const flow = request.headers['x-cms-flow'];
    const stop = typeof flow === 'string' && flow.trim().toLowerCase() === 'stop';
    return {
      actor: ANONYMOUS,
      changeActor: { type: 'api-client' as const, id: clientOf(request).client.id },
      flags: stop ? { flow: 'stop' } : undefined,
      trx,
    };
  };

  /**
   * Which existing rows a client's write may change: rows of the route's class that this client
   * created; another language row of the record (a new language joins it, or shared fields are
   * synced into it) only while it is still a draft. Everything else answers like a missing id, and
   * relations the client sends may name only published objects and its own drafts.
   */
  const ownDrafts = (request: FastifyRequest, className: string) => {
    const clientId = clientOf(request).client.id;
    return {
      mayChange: (row: { className: string; createdBy: string | null; published: boolean }, how: string) =>
        row.className === className && row.createdBy === clientId && (how === 'target' || !row.published),
      // A relation may name a published object or one of the client's own drafts: a draft of someone
      // else answers like an id that does not exist.
      mayRelate: (row: { createdBy: string | null; published: boolean }) => row.published || row.createdBy === clientId,
    };
  };

  app.post(
    '/client/v1/data/:class',
    {
      config,
      bodyLimit: WRITE_BODY_LIMIT,
      schema: {
        tags,
        params: Type.Object({ class: ClassParam }),
        body: Type.Object(
          {
            locale: Type.Optional(Type.String({ minLength: 1, maxLength: 35 })),
            key: Type.Optional(Type.Union([Type.String({ maxLength: 200 }), Type.Null()])),
            translationGroupId: Type.Optional(Type.String({ format: 'uuid' })),
            attributes: Attributes,
          },
          { additionalProperties: false },
        ),
        response: { 201: WrittenObjectView, 404: ClientNotFoundAnswer },
      },
    },
    async (request, reply) =>
      orNotFound(reply, async () => {
        const className = request.params.class;
        if (!clientOf(request).scopes.mayData('data:write', className)) throw new ClientNotFound();
        const created = await dataObjects
          .create(
            writeContext(request as FastifyRequest),
            { ...request.body, className, published: false },
            ownDrafts(request as FastifyRequest, className),
          )
          .catch((err: unknown) => {
            if (isHttpError(err) && err.statusCode === 400 && (err.field === 'className' || err.field === 'classId'))
              throw new ClientNotFound();
            throw undisclosedConflict(err);
          });
        return reply.code(201).send(writtenObject(created, { key: true, attributes: request.body.attributes }));
      }),
  );

  app.patch(
    '/client/v1/data/:class/:id',
    {
      config,
      bodyLimit: WRITE_BODY_LIMIT,
      schema: {
        tags,
        params: Type.Object({ class: ClassParam, id: IdParam }),
        body: Type.Object(
          {
            key: Type.Optional(Type.Union([Type.String({ maxLength: 200 }), Type.Null()])),
            attributes: Type.Optional(Attributes),
          },
          { additionalProperties: false },
        ),
        response: { 200: WrittenObjectView, 404: ClientNotFoundAnswer },
      },
    },
    async (request, reply) =>
      orNotFound(reply, async () => {
        const { class: className, id } = request.params;
        if (!clientOf(request).scopes.mayData('data:write', className) || !UUID.test(id)) throw new ClientNotFound();
        // One transaction: a row that is not this client's draft of this class answers like a missing id
        // before its input is checked; the client's own draft, once published, is refused (409) with
        // nothing changed (hook rows included).
        const updated = await inTransaction(db, undefined, async (trx) => {
          const object = await dataObjects
            .update(
              writeContext(request as FastifyRequest, trx),
              id,
              request.body,
              ownDrafts(request as FastifyRequest, className),
            )
            .catch((err: unknown) => {
              throw undisclosedConflict(err);
            });
          if (object.published)
            throw conflict('Clients change drafts only; this object is published', 'OBJECT_PUBLISHED');
          return object;
        });
        return writtenObject(updated, { key: request.body.key !== undefined, attributes: request.body.attributes });
      }),
  );
}
