import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { emptyAnswer, unauthorized, type App, SESSION_COOKIE } from '../../../kernel/index.ts';
import type { IdentityServices } from '../services/index.ts';
import {
  clientMeta,
  emptyBodyIfAbsent,
  MeBody,
  PasswordField,
  setSessionCookie,
  signedInUser,
  SignedInBody,
  STRICT,
} from './shared.ts';

const Code = Type.String({ minLength: 1, maxLength: 32 });
const Token = Type.String({ minLength: 1, maxLength: 128 });

const StatusBody = Type.Object({
  enabled: Type.Boolean(),
  required: Type.Boolean(),
  recoveryCodesRemaining: Type.Integer(),
});
const SetupBody = Type.Object({ secret: Type.String(), otpauthUrl: Type.String(), qrCodeDataUrl: Type.String() });
const VerifySetupAnswer = Type.Object({ recoveryCodes: Type.Array(Type.String()), user: Type.Optional(MeBody) });

/**
 * Who is enrolling: the holder of an `enrollmentToken` (a user whose role requires 2FA, signing in
 * without a session yet) or the signed-in user. These two routes therefore authenticate in the
 * handler and are declared public to the kernel's session hook.
 */
async function enrolling(request: FastifyRequest, s: IdentityServices, enrollmentToken: string | undefined) {
  if (enrollmentToken !== undefined) {
    const enrolee = await s.signIn.enrolee(enrollmentToken);
    if (!enrolee) throw unauthorized('The sign-in expired or is unknown; sign in again', 'ENROLLMENT_TOKEN_INVALID');
    return { ...enrolee, enrollmentToken };
  }
  const cookie = request.cookies[SESSION_COOKIE];
  const actor = cookie ? await s.sessions.resolve(cookie) : null;
  if (!actor) throw unauthorized();
  request.actor = actor;
  return { userId: actor.id, email: actor.email, enrollmentToken: undefined };
}

/** Second factor: status, enrolment, sign-in challenge and disabling. None of it is audited (spec). */
export async function mfaRoutes(app: App, s: IdentityServices): Promise<void> {
  app.get(
    '/auth/mfa/status',
    { config: { session: true }, schema: { tags: ['auth'], response: { 200: StatusBody } } },
    async (request) => {
      const user = signedInUser(request);
      return s.mfa.status(user.id, user.roles);
    },
  );

  app.post(
    '/auth/mfa/setup',
    {
      config: { public: true },
      preValidation: emptyBodyIfAbsent,
      schema: {
        tags: ['auth'],
        body: Type.Object({ enrollmentToken: Type.Optional(Token) }, STRICT),
        response: { 200: SetupBody },
      },
    },
    async (request) => {
      const who = await enrolling(request, s, request.body.enrollmentToken);
      return s.mfa.setup({ id: who.userId, email: who.email });
    },
  );

  app.post(
    '/auth/mfa/verify-setup',
    {
      config: { public: true },
      schema: {
        tags: ['auth'],
        body: Type.Object({ code: Code, enrollmentToken: Type.Optional(Token) }, STRICT),
        response: { 200: VerifySetupAnswer },
      },
    },
    async (request, reply) => {
      const who = await enrolling(request, s, request.body.enrollmentToken);
      const recoveryCodes = await s.mfa.verifySetup(who.userId, request.body.code);
      if (who.enrollmentToken === undefined) return { recoveryCodes };
      const session = await s.signIn.finishEnrolment(who.enrollmentToken, clientMeta(request));
      setSessionCookie(reply, session, s.config.production);
      return { recoveryCodes, user: session.me };
    },
  );

  app.post(
    '/auth/mfa/challenge',
    {
      config: { public: true, rateLimit: s.addressLimits.challenge },
      schema: {
        tags: ['auth'],
        body: Type.Object({ mfaToken: Token, code: Code }, STRICT),
        response: { 200: SignedInBody },
      },
    },
    async (request, reply) => {
      const session = await s.signIn.challenge(request.body.mfaToken, request.body.code, clientMeta(request));
      setSessionCookie(reply, session, s.config.production);
      return { user: session.me };
    },
  );

  app.post(
    '/auth/mfa/disable',
    {
      config: { session: true },
      schema: {
        tags: ['auth'],
        body: Type.Object({ password: PasswordField }, STRICT),
        response: { 204: emptyAnswer('Two-factor sign-in is off') },
      },
    },
    async (request, reply) => {
      await s.mfa.disable(signedInUser(request), request.body.password);
      return reply.code(204).send();
    },
  );
}
