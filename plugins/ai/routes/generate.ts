import { Readable } from 'node:stream';
import { Type } from '@sinclair/typebox';
import {
  type App,
  forbidden,
  isHttpError,
  type Logger,
  type PermissionRegistry,
  requestContext,
} from '../../../kernel/index.ts';
import type { GenerationService } from '../services/generation.ts';
import { WebsiteStructure } from '../services/structure-schema.ts';
import { AssetAnswer, FromAiAnswer, GeneratedAnswer, GeneratedList, PageAnswer } from './answers.ts';

const GenerateBody = Type.Object(
  {
    prompt: Type.String({ minLength: 1, maxLength: 50_000 }),
    system: Type.Optional(Type.String({ maxLength: 20_000 })),
    maxOutputTokens: Type.Optional(Type.Integer({ minimum: 1, maximum: 200_000 })),
    stream: Type.Optional(
      Type.Boolean({ description: 'true: text/event-stream deltas, ending with the whole result' }),
    ),
  },
  { additionalProperties: false },
);

const StructureBody = Type.Object(
  {
    brief: Type.String({ minLength: 1, maxLength: 20_000 }),
    locales: Type.Optional(
      Type.Array(Type.String({ minLength: 2, maxLength: 35, pattern: '^[A-Za-z]{2,3}([_-][A-Za-z0-9]{2,8})*$' }), {
        minItems: 1,
        maxItems: 20,
      }),
    ),
    maxPages: Type.Optional(Type.Integer({ minimum: 1, maximum: 50 })),
  },
  { additionalProperties: false },
);

const Kind = Type.Union([
  Type.Literal('text'),
  Type.Literal('structure'),
  Type.Literal('image'),
  Type.Literal('translation'),
]);

const sse = (event: string, data: unknown) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

/** The AI routes: `ai:use` (translate: `pages:edit` too, checked in its handler), all off under the sandbox profile. */
export function generationRoutes(
  app: App,
  { generation, log, permissions }: { generation: GenerationService; log: Logger; permissions: PermissionRegistry },
): void {
  const use = { permission: 'ai:use', sandbox: 'block' } as const;
  const tags = ['ai'];

  app.post(
    '/ai/generate',
    {
      config: use,
      schema: {
        tags,
        body: GenerateBody,
        response: {
          200: {
            description: 'The generated text; with `stream: true` server-sent events (`delta`, then `done` or `error`)',
            content: {
              'application/json': { schema: GeneratedAnswer },
              'text/event-stream': { schema: Type.String() },
            },
          },
        },
      },
    },
    async (request, reply) => {
      const { stream, ...input } = request.body;
      if (!stream) return reply.type('application/json').send(await generation.generate(request.actor, input));
      const deltas = await generation.generateStream(request.actor, input);
      async function* events() {
        try {
          let step = await deltas.next();
          while (!step.done) {
            yield sse('delta', { text: step.value });
            step = await deltas.next();
          }
          yield sse('done', step.value);
        } catch (err) {
          // The status was sent already: the failure is the stream's last event, in the error body's shape.
          const e = isHttpError(err)
            ? err
            : { statusCode: 502, code: 'AI_PROVIDER_FAILED', message: 'The stream failed' };
          if (!isHttpError(err)) log.error({ err }, 'AI stream failed');
          yield sse('error', { statusCode: e.statusCode, code: e.code, message: e.message, requestId: request.id });
        } finally {
          await deltas.return(undefined as never);
        }
      }
      const body = Readable.from(events());
      // A client that leaves ends the provider call and frees its slot.
      request.raw.on('close', () => body.destroy());
      return (
        reply
          .type('text/event-stream; charset=utf-8')
          .header('cache-control', 'no-cache')
          .header('x-accel-buffering', 'no')
          // A stream passes through unserialised; the type provider knows only the JSON answer's type.
          .send(body as never)
      );
    },
  );

  app.get(
    '/ai/generated',
    {
      config: use,
      schema: {
        tags,
        querystring: Type.Object(
          {
            kind: Type.Optional(Kind),
            limit: Type.Integer({ minimum: 1, maximum: 200, default: 50 }),
            offset: Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0 }),
          },
          { additionalProperties: false },
        ),
        response: { 200: GeneratedList },
      },
    },
    (request) => generation.listGenerated(request.query),
  );

  app.post(
    '/ai/generate-website-structure',
    {
      config: use,
      schema: {
        tags,
        body: StructureBody,
        response: { 200: Type.Object({ structure: WebsiteStructure, warnings: Type.Array(Type.String()) }) },
      },
    },
    // The answer was checked against WebsiteStructure (and the node-tree rules) by the service.
    async (request) => (await generation.generateStructure(request.actor, request.body)) as never,
  );

  app.post(
    '/ai/generate-image',
    {
      config: use,
      schema: {
        tags,
        body: Type.Object(
          {
            prompt: Type.String({ minLength: 1, maxLength: 4000 }),
            size: Type.Optional(
              Type.Union(
                ['256x256', '512x512', '1024x1024', '1024x1536', '1536x1024', '1024x1792', '1792x1024'].map((v) =>
                  Type.Literal(v),
                ),
              ),
            ),
            folder: Type.Optional(Type.String({ minLength: 1, maxLength: 500, pattern: '^/' })),
          },
          { additionalProperties: false },
        ),
        response: { 201: Type.Object({ asset: AssetAnswer }) },
      },
    },
    async (request, reply) => {
      if (request.actor.type !== 'user') throw forbidden('A signed-in user generates images');
      return reply.code(201).send(await generation.generateImage(request.actor, request.body));
    },
  );

  app.post(
    '/cms-one/pages/:id/translate',
    {
      // `ai:use` on the route; `pages:edit` (the content plugin's key: it writes a page) in the handler,
      // so the plugin starts without the content plugin (the route then finds no page).
      config: { permission: 'ai:use', sandbox: 'block' },
      schema: {
        tags,
        params: Type.Object({ id: Type.String({ format: 'uuid' }) }),
        body: Type.Object(
          { locale: Type.String({ minLength: 2, maxLength: 35, pattern: '^[A-Za-z]{2,3}([_-][A-Za-z0-9]{2,8})*$' }) },
          { additionalProperties: false },
        ),
        response: { 201: PageAnswer },
      },
    },
    async (request, reply) => {
      if (!permissions.allows(request.actor, 'pages:edit')) throw forbidden('Translating a page needs pages:edit too');
      return reply
        .code(201)
        .send((await generation.translatePage(request.actor, request.params.id, request.body.locale)) as never);
    },
  );

  app.post(
    '/cms-one/websites/from-ai',
    {
      // Takes a structure (possibly edited by a person) and calls no provider; the website create rights.
      config: { permission: 'objects:write', sandbox: 'block' },
      schema: {
        tags,
        body: Type.Object({ structure: WebsiteStructure }, { additionalProperties: false }),
        response: { 201: FromAiAnswer },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await generation.createWebsite(requestContext(request), request.body.structure)),
  );
}
