import { Readable } from 'node:stream';
import { Type } from '@sinclair/typebox';
import { type App, badRequest, type PluginContext, requestContext, unavailable } from '../../../kernel/index.ts';
import type { DataSubjectConfig } from '../config.ts';
import { DATA_SUBJECT_MANAGE } from '../permissions.ts';
import type { DataSubjectOptions } from '../ports.ts';
import type { DataSubjectServices } from '../services/index.ts';
import { exportFileName } from '../services/requests.ts';
import { EraseAnswer, ExportAnswer, SearchAnswer } from './answers.ts';

type Context = PluginContext<
  'db' | 'audit' | 'clock' | 'secretBox',
  never,
  typeof DataSubjectConfig,
  DataSubjectServices
>;

/** Every route of the plugin starts here: one prefix for a profile (the public sandbox) to block. */
export const DATA_SUBJECT_PREFIX = '/data-subject';
/** The key of the HMAC standing for the identifier in audit rows. */
const FINGERPRINT_KEY = 'DATA_SUBJECT_FINGERPRINT_KEY';

/**
 * The shortest identifier a request takes, in characters after trimming: a value as short as `b`
 * is a letter of thousands of unrelated records (select options, initials), never one person.
 */
export const MIN_IDENTIFIER_LENGTH = 5;

// Checked by the schema, before the request counts as a scan: something besides spaces, and no control
// characters (a NUL cannot even be stored in PostgreSQL text; a tab or a line break is never part of a
// value a person is found by).
const Identifier = Type.String({
  // The schema says it too, so that clients (and the probes) see the rule; `minimumLength` below
  // counts after trimming and answers its own code.
  minLength: MIN_IDENTIFIER_LENGTH,
  maxLength: 320,
  pattern: '^[^\\u0000-\\u001f\\u007f]*[^\\s\\u0000-\\u001f\\u007f][^\\u0000-\\u001f\\u007f]*$',
  description: 'whole value, compared without case; at most 320 characters, no control characters, not blank',
});
const Options = Type.Object(
  {
    classes: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 128 }), {
        maxItems: 200,
        description: 'objects only of these classes (by name); absent: every class',
      }),
    ),
    lookInsideText: Type.Optional(
      Type.Boolean({ description: 'mail log: also the identifier as a word in subject or text, not only to and cc' }),
    ),
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 1000, description: 'items listed per kind (counts are complete); 100' }),
    ),
  },
  { additionalProperties: false },
);
const SearchBody = Type.Object(
  { identifier: Identifier, options: Type.Optional(Options) },
  { additionalProperties: false },
);
const EraseBody = Type.Object(
  {
    identifier: Identifier,
    options: Type.Optional(Options),
    dryRun: Type.Optional(Type.Boolean({ description: 'true unless false is given' })),
    confirm: Type.Optional(
      Type.String({ maxLength: 320, description: 'the identifier again; needed when dryRun is false' }),
    ),
  },
  { additionalProperties: false },
);

const subject = (raw: string) => {
  const identifier = raw.trim();
  if (!identifier) throw badRequest('identifier must not be blank', 'identifier');
  return identifier;
};

/**
 * Refuses an identifier shorter than the minimum before the request counts as a scan (preValidation
 * runs before the rate limit's preHandler); the schema then checks the rest of the body.
 */
const minimumLength = async (request: { body: unknown }) => {
  const raw = (request.body as { identifier?: unknown } | null)?.identifier;
  if (typeof raw !== 'string' || !raw.trim()) return;
  if ([...raw.trim()].length < MIN_IDENTIFIER_LENGTH)
    throw badRequest(
      `identifier must have at least ${MIN_IDENTIFIER_LENGTH} characters: a shorter value matches unrelated records`,
      'identifier',
      'IDENTIFIER_TOO_SHORT',
    );
};

export async function dataSubjectRoutes(app: App, { services, audit, clock, secretBox, pluginConfig }: Context) {
  // One count per administrator across search, export and erase: each is a scan of every source.
  // Counted after validation (`preHandler`): a refused body scans nothing and costs no scan.
  const config = {
    permission: DATA_SUBJECT_MANAGE,
    rateLimit: {
      key: 'user' as const,
      hook: 'preHandler' as const,
      bucket: 'data-subject:scans',
      windowMs: 60_000,
      limit: pluginConfig.DATA_SUBJECT_RATE_LIMIT_PER_MINUTE,
      message: 'Too many data-subject scans; try again later',
    },
  };
  // The audit target, made before any work: without the key (production, unset) the request answers
  // 503 naming it before a source is asked, so no scan or erase ever runs that could not be audited.
  const targetOf = (identifier: string) => {
    if (!secretBox.hasKey(FINGERPRINT_KEY))
      throw unavailable(
        `${FINGERPRINT_KEY} is not set: data-subject requests are audited with a keyed fingerprint of the identifier and cannot run without it`,
        'SECRET_KEY_MISSING',
      );
    return { targetType: 'data_subject', targetId: secretBox.fingerprint(FINGERPRINT_KEY, identifier.toLowerCase()) };
  };

  app.post(
    `${DATA_SUBJECT_PREFIX}/search`,
    { config, preValidation: minimumLength, schema: { body: SearchBody, response: { 200: SearchAnswer } } },
    async (request) => {
      const identifier = subject(request.body.identifier);
      const target = targetOf(identifier);
      const options: DataSubjectOptions = request.body.options ?? {};
      const answer = await services.requests.search(identifier, options);
      await audit.record(requestContext(request), {
        action: 'data_subject.search',
        ...target,
        after: { counts: answer.counts, options: { ...options } },
      });
      return answer;
    },
  );

  app.post(
    `${DATA_SUBJECT_PREFIX}/export`,
    { config, preValidation: minimumLength, schema: { body: SearchBody, response: { 200: ExportAnswer } } },
    async (request, reply) => {
      const identifier = subject(request.body.identifier);
      const target = targetOf(identifier);
      const options: DataSubjectOptions = request.body.options ?? {};
      const chunks = services.requests.exportChunks(identifier, options, clock.now());
      // The first piece is made before the headers go, so a failing source still answers with an error body.
      const first = await chunks.next();
      // Audited before the first record leaves: a client that stops reading half-way still left a row.
      await audit.record(requestContext(request), {
        action: 'data_subject.export',
        ...target,
        after: { options: { ...options } },
      });
      async function* body() {
        if (!first.done) yield first.value;
        yield* chunks;
      }
      return reply
        .header('content-type', 'application/json; charset=utf-8')
        .header('content-disposition', `attachment; filename="${exportFileName()}"`)
        .header('cache-control', 'no-store')
        .send(Readable.from(body()));
    },
  );

  app.post(
    `${DATA_SUBJECT_PREFIX}/erase`,
    { config, preValidation: minimumLength, schema: { body: EraseBody, response: { 200: EraseAnswer } } },
    async (request) => {
      const identifier = subject(request.body.identifier);
      const dryRun = request.body.dryRun !== false;
      if (!dryRun && request.body.confirm?.trim() !== identifier)
        throw badRequest('confirm must repeat the identifier to erase for real', 'confirm', 'CONFIRMATION_REQUIRED');
      const target = targetOf(identifier);
      const options: DataSubjectOptions = request.body.options ?? {};
      const ctx = requestContext(request);
      const outcome = (answer: Awaited<ReturnType<typeof services.requests.erase>>) => ({
        dryRun,
        erased: answer.erased,
        kept: answer.kept.length,
        reported: answer.reported.length,
        complete: answer.complete,
      });
      // A dry run changes nothing and runs beside anything.
      if (dryRun) {
        const answer = await services.requests.erase(identifier, options, true, request.actor);
        await audit.record(ctx, { action: 'data_subject.erase', ...target, after: outcome(answer) });
        return answer;
      }
      // A real run is alone for its subject, and audited from before its first deletion (a started
      // row) to its end; a run whose process died is completed, and named, by the next one.
      return services.eraseLock.run(target.targetId, async () => {
        let run: { id: string; resumes: string[] } | undefined;
        const answer = await services.requests.erase(identifier, options, false, request.actor, async (found) => {
          run = await services.eraseRuns.start(ctx, target, found, { ...options });
        });
        await services.eraseRuns.finish(ctx, target, run!, outcome(answer));
        return answer;
      });
    },
  );
}
