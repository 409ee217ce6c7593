import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import type { App } from '../../../kernel/index.ts';
import type { FormsConfig } from '../config.ts';
import type { FormSubmissions } from '../services/form-submit.ts';

/** A stored submission: its object id and the uploads attached to its fields. */
const SubmittedAnswer = Type.Object({
  id: Type.String({ format: 'uuid' }),
  attachments: Type.Array(Type.Object({ field: Type.String(), assetId: Type.String({ format: 'uuid' }) })),
});

export async function submitRoutes(
  app: App,
  forms: FormSubmissions,
  config: Static<typeof FormsConfig>,
): Promise<void> {
  app.post(
    '/public/forms/:classId/submit',
    {
      config: {
        public: true,
        // Per client address; a body the schema refuses is not counted.
        rateLimit: {
          key: 'address',
          limit: config.FORM_SUBMIT_RATE_LIMIT_PER_WINDOW,
          windowMs: config.FORM_SUBMIT_RATE_LIMIT_WINDOW_SECONDS * 1000,
          hook: 'preHandler',
          message: 'Too many form submissions from this address; try again later',
          code: 'FORM_RATE_LIMITED',
        },
      },
      schema: {
        tags: ['public'],
        params: Type.Object({ classId: Type.String({ minLength: 1, maxLength: 64 }) }),
        body: Type.Object(
          {
            attributes: Type.Record(Type.String({ maxLength: 200 }), Type.Unknown(), { maxProperties: 200 }),
            locale: Type.Optional(Type.String({ minLength: 2, maxLength: 35 })),
            // Used only when it equals a block an author saved in a form of a page for this class (README).
            notify: Type.Optional(Type.Unknown()),
          },
          { additionalProperties: false },
        ),
        response: { 201: SubmittedAnswer },
      },
    },
    async (request, reply) => reply.code(201).send(await forms.submit(request.params.classId, request.body)),
  );
}
