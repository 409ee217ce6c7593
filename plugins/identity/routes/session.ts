import { Type } from '@sinclair/typebox';
import { emptyAnswer, type App } from '../../../kernel/index.ts';
import type { IdentityServices } from '../services/index.ts';
import {
  clearSessionCookie,
  clientMeta,
  MeBody,
  setSessionCookie,
  signedInUser,
  SignedInBody,
  STRICT,
} from './shared.ts';

const LoginBody = Type.Object(
  {
    email: Type.String({ minLength: 1, maxLength: 254 }),
    password: Type.String({ minLength: 1, maxLength: 1024 }),
  },
  STRICT,
);

const LoginAnswer = Type.Union([
  SignedInBody,
  Type.Object({ mfaRequired: Type.Literal(true), mfaToken: Type.String() }),
  Type.Object({ mfaEnrollmentRequired: Type.Literal(true), enrollmentToken: Type.String() }),
]);

/** POST /auth/login, POST /auth/logout, GET /auth/me. */
export async function sessionRoutes(app: App, s: IdentityServices): Promise<void> {
  app.post(
    '/auth/login',
    {
      config: { public: true, rateLimit: s.addressLimits.login },
      schema: { tags: ['auth'], body: LoginBody, response: { 200: LoginAnswer } },
    },
    async (request, reply) => {
      const outcome = await s.signIn.login(request.body.email, request.body.password, clientMeta(request));
      if (outcome.kind === 'mfa') return { mfaRequired: true as const, mfaToken: outcome.mfaToken };
      if (outcome.kind === 'enrolment')
        return { mfaEnrollmentRequired: true as const, enrollmentToken: outcome.enrollmentToken };
      setSessionCookie(reply, outcome.session, s.config.production);
      return { user: outcome.session.me };
    },
  );

  const signedOut = { 204: emptyAnswer('Signed out: the session is revoked and its cookie cleared') };
  app.post(
    '/auth/logout',
    { config: { session: true }, schema: { tags: ['auth'], response: signedOut } },
    async (request, reply) => {
      const actor = signedInUser(request);
      if (actor.sessionId) await s.sessions.revoke(actor.sessionId);
      clearSessionCookie(reply, s.config.production);
      return reply.code(204).send();
    },
  );

  app.get(
    '/auth/me',
    { config: { session: true }, schema: { tags: ['auth'], response: { 200: MeBody } } },
    async (request) => s.signIn.me(signedInUser(request)),
  );
}
