import { Type } from '@sinclair/typebox';
import type { App } from '../../../kernel/index.ts';
import type { AssetServices } from '../services/index.ts';
import { ASSET_KEYS } from '../permissions.ts';
import { AssetRef, ReceivedUpload, UploadIntent } from './answers.ts';
import { Visibility } from './schemas.ts';

const Uuid = Type.String({ minLength: 1, maxLength: 64 });

/**
 * Public form uploads: intent → PUT bytes with the ticket (the submit itself is the forms plugin's).
 * Plus the service route that attaches a staged upload for a core-api in another process.
 */
export async function formRoutes(app: App, s: AssetServices): Promise<void> {
  const tags = ['public'];
  app.post(
    '/public/uploads/intent',
    {
      config: {
        public: true,
        // Per client address: each ticket may stage bytes for hours, so one address must not hold the
        // website's whole daily volume. A body the schema refuses is not counted.
        rateLimit: {
          key: 'address',
          limit: s.config.UPLOAD_INTENT_RATE_LIMIT_PER_WINDOW,
          windowMs: s.config.UPLOAD_INTENT_RATE_LIMIT_WINDOW_SECONDS * 1000,
          hook: 'preHandler',
          message: 'Too many uploads from this address; try again later',
          code: 'UPLOAD_RATE_LIMITED',
        },
      },
      schema: {
        tags,
        querystring: Type.Object({}, { additionalProperties: false }),
        body: Type.Object(
          {
            fieldId: Type.String({ minLength: 1, maxLength: 200 }),
            filename: Type.String({ minLength: 1, maxLength: 255 }),
            size: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }),
            websiteId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
          },
          { additionalProperties: false },
        ),
        response: { 201: UploadIntent },
      },
    },
    async (request, reply) => {
      const out = await s.formUploads.intent({
        ...request.body,
        origin: header(request.headers.origin),
        referer: header(request.headers.referer),
      });
      return reply.code(201).send(out);
    },
  );

  // The bytes arrive unparsed (any Content-Type) and stream to disk; the ticket authorises them.
  await app.register(async (scope) => {
    const raw = scope as App;
    raw.removeAllContentTypeParsers();
    raw.addContentTypeParser('*', (_request, _payload, done) => done(null));
    raw.put(
      '/public/upload-data/:ticket',
      {
        config: { public: true },
        schema: {
          tags,
          params: Type.Object({ ticket: Type.String({ minLength: 1, maxLength: 96 }) }),
          response: { 201: ReceivedUpload },
        },
      },
      async (request, reply) => reply.code(201).send(await s.formUploads.receive(request.params.ticket, request.raw)),
    );
  });

  app.post(
    '/api/v1/dam/form-uploads/attach',
    {
      config: { public: true },
      // Service-to-service with the bearer token; a signed-in user holding assets:upload may call it too.
      onRequest: async (request) => s.auth.requireTokenOrPermission(request, ASSET_KEYS.upload),
      schema: {
        tags: ['assets'],
        body: Type.Object(
          { uploadId: Uuid, folder: Type.String({ maxLength: 1024 }), visibility: Visibility },
          { additionalProperties: false },
        ),
        response: { 201: AssetRef },
      },
    },
    async (request, reply) => reply.code(201).send(s.urls.ref(await s.formUploads.attach(request.body))),
  );
}

const header = (v: string | string[] | undefined) => (typeof v === 'string' ? v : undefined);
