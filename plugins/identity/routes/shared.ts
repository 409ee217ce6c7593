import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type UserActor, unauthorized, SESSION_COOKIE } from '../../../kernel/index.ts';
import type { ClientMeta, StartedSession } from '../services/sign-in.ts';

/** The signed-in user (GET /auth/me and the answers that start a session). */
export const MeBody = Type.Object({
  id: Type.String(),
  email: Type.String(),
  displayName: Type.String(),
  roles: Type.Array(Type.String()),
  permissions: Type.Array(Type.String()),
});

export const SignedInBody = Type.Object({ user: MeBody });

/** Path ids are plain strings: a malformed id is simply not found (404), like an unknown one. */
/** Request bodies refuse unknown properties (400 naming it): a misspelt field is never silently ignored. */
export const STRICT = { additionalProperties: false } as const;

export const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });

/** Route hook for POSTs whose body is optional: an absent body is validated as `{}`. */
export async function emptyBodyIfAbsent(request: FastifyRequest): Promise<void> {
  request.body ??= {};
}

/** Passwords are capped far above the policy's 128 so scrypt never runs on a huge input. */
export const PasswordField = Type.String({ maxLength: 1024 });

export const clientMeta = (request: FastifyRequest): ClientMeta => ({
  ip: request.ip,
  userAgent: request.headers['user-agent'],
});

/** Sets `cms_session`: HttpOnly, SameSite=Lax, Path=/, Secure in production, expiring with the session. */
export function setSessionCookie(
  reply: FastifyReply,
  session: Pick<StartedSession, 'token' | 'expiresAt'>,
  production: boolean,
): void {
  reply.setCookie(SESSION_COOKIE, session.token, {
    httpOnly: true,
    sameSite: 'lax',
    path: '/',
    secure: production,
    expires: session.expiresAt,
  });
}

export function clearSessionCookie(reply: FastifyReply, production: boolean): void {
  reply.clearCookie(SESSION_COOKIE, { httpOnly: true, sameSite: 'lax', path: '/', secure: production });
}

/** The user behind a route declared `session` or `permission` (the kernel hook has resolved it). */
export function signedInUser(request: FastifyRequest): UserActor {
  if (request.actor.type !== 'user') throw unauthorized();
  return request.actor;
}
