import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { emptyAnswer, type App, isHttpError, requestContext } from '../../../kernel/index.ts';
import type { IdentityServices } from '../services/index.ts';
import { PENDING_TTL_MS } from '../services/oidc-sign-in.ts';
import { clientMeta, setSessionCookie, STRICT } from './shared.ts';

/** Binds a started sign-in to the browser that started it (login CSRF): the callback needs it. */
const STATE_COOKIE = 'cms_oidc_state';
const CALLBACK_PATH = '/auth/oidc/callback';
const START_PATH = '/auth/oidc/start';

const LocalLoginField = Type.Union([Type.Literal('all'), Type.Literal('admins'), Type.Literal('none')]);
const RoleNames = Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 50 });
const RoleMapping = Type.Record(Type.String({ minLength: 1, maxLength: 200 }), RoleNames, { maxProperties: 200 });
// RFC 6749 scope-token characters.
const Scope = Type.String({ minLength: 1, maxLength: 100, pattern: '^[\\x21\\x23-\\x5B\\x5D-\\x7E]+$' });

const SettingsBody = Type.Object({
  enabled: Type.Boolean(),
  issuer: Type.String(),
  clientId: Type.String(),
  clientSecretSet: Type.Boolean(),
  scopes: Type.Array(Type.String()),
  roleClaim: Type.String(),
  roleMapping: Type.Record(Type.String(), Type.Array(Type.String())),
  provisionUsers: Type.Boolean(),
  defaultRoles: Type.Array(Type.String()),
  localLogin: LocalLoginField,
  buttonLabel: Type.String(),
  dashboard_url: Type.String(),
  redirectUri: Type.String(),
});

const UpdateBody = Type.Object(
  {
    enabled: Type.Optional(Type.Boolean()),
    issuer: Type.Optional(Type.String({ maxLength: 500 })),
    clientId: Type.Optional(Type.String({ maxLength: 255 })),
    // A blank secret keeps the stored one; null removes it (a public client, PKCE only).
    clientSecret: Type.Optional(Type.Union([Type.String({ maxLength: 2000 }), Type.Null()])),
    scopes: Type.Optional(Type.Array(Scope, { minItems: 1, maxItems: 20 })),
    roleClaim: Type.Optional(Type.String({ maxLength: 200, pattern: '^[^.]*(\\.[^.]+){0,9}$' })),
    roleMapping: Type.Optional(RoleMapping),
    provisionUsers: Type.Optional(Type.Boolean()),
    defaultRoles: Type.Optional(RoleNames),
    localLogin: Type.Optional(LocalLoginField),
    buttonLabel: Type.Optional(Type.String({ minLength: 1, maxLength: 80 })),
    dashboard_url: Type.Optional(Type.String({ minLength: 1, maxLength: 2000 })),
  },
  STRICT,
);

const PublicBody = Type.Object({
  enabled: Type.Boolean(),
  buttonLabel: Type.String(),
  startUrl: Type.String(),
  localLogin: LocalLoginField,
});

const QueryText = Type.String({ maxLength: 4096 });
const CallbackQuery = Type.Object(
  {
    code: Type.Optional(QueryText),
    state: Type.Optional(Type.String({ maxLength: 512 })),
    iss: Type.Optional(QueryText),
    error: Type.Optional(QueryText),
    error_description: Type.Optional(QueryText),
  },
  // Providers add their own parameters (Keycloak's session_state); openid-client reads them all.
  { additionalProperties: QueryText, maxProperties: 20 },
);

/**
 * Single sign-on: `GET /auth/oidc` (what a sign-in page shows), `GET /auth/oidc/start` (302 to the
 * provider), `GET /auth/oidc/callback` (the redirect URI: the session cookie and a 302 onwards), and
 * the settings `GET, PUT /oidc-settings` (`users:manage`; saving needs `*`). The settings routes carry
 * the tag `sso-settings` for profiles that switch them off.
 */
export async function oidcRoutes(app: App, s: IdentityServices): Promise<void> {
  const production = s.config.production;

  app.get(
    '/auth/oidc',
    { config: { public: true }, schema: { tags: ['auth'], response: { 200: PublicBody } } },
    async () => {
      const settings = await s.oidcSettings.read();
      return {
        enabled: settings.enabled,
        buttonLabel: settings.buttonLabel,
        startUrl: START_PATH,
        localLogin: settings.enabled ? settings.localLogin : ('all' as const),
      };
    },
  );

  app.get(
    START_PATH,
    {
      config: { public: true, rateLimit: s.addressLimits.oidcStart },
      schema: {
        tags: ['auth'],
        querystring: Type.Object({ returnTo: Type.Optional(Type.String({ maxLength: 2000 })) }, STRICT),
        response: { 302: emptyAnswer("To the provider's sign-in page") },
      },
    },
    async (request, reply) =>
      answerForBrowser(request, reply, async () => {
        const { location, state } = await s.oidcSignIn.start(request.query.returnTo);
        reply.setCookie(STATE_COOKIE, state, {
          httpOnly: true,
          sameSite: 'lax', // sent on the provider's top-level redirect back to the callback
          path: CALLBACK_PATH,
          secure: production,
          maxAge: PENDING_TTL_MS / 1000,
        });
        return reply.header('cache-control', 'no-store').redirect(location, 302);
      }),
  );

  app.get(
    CALLBACK_PATH,
    {
      config: { public: true },
      schema: {
        tags: ['auth'],
        querystring: CallbackQuery,
        response: { 302: emptyAnswer('Signed in (the session cookie is set), onwards to the dashboard') },
      },
    },
    async (request, reply) =>
      answerForBrowser(request, reply, async () => {
        reply.clearCookie(STATE_COOKIE, { path: CALLBACK_PATH, httpOnly: true, sameSite: 'lax', secure: production });
        const started = await s.oidcSignIn.finish(
          request.query as Record<string, string | undefined>,
          request.cookies[STATE_COOKIE],
          { ...clientMeta(request), requestId: request.id },
        );
        setSessionCookie(reply, started, production);
        return reply.header('cache-control', 'no-store').redirect(started.location, 302);
      }),
  );

  // The public sandbox profile never shows or changes the single sign-on settings.
  const settingsAccess = { permission: 'users:manage', sandbox: 'block' } as const;
  app.get(
    '/oidc-settings',
    { config: settingsAccess, schema: { tags: ['sso-settings'], response: { 200: SettingsBody } } },
    async () => ({ ...(await s.oidcSettings.view()), redirectUri: s.oidcSignIn.redirectUri }),
  );

  app.put(
    '/oidc-settings',
    {
      config: settingsAccess,
      schema: { tags: ['sso-settings'], body: UpdateBody, response: { 200: SettingsBody } },
    },
    async (request) => ({
      ...(await s.oidcSettings.update(requestContext(request), request.body)),
      redirectUri: s.oidcSignIn.redirectUri,
    }),
  );
}

/**
 * The start and the callback are browser navigations: a refusal is a short HTML page with the same
 * status (and the error's code) when the browser asks for HTML, the usual JSON error body otherwise.
 */
async function answerForBrowser(
  request: FastifyRequest,
  reply: FastifyReply,
  work: () => Promise<FastifyReply>,
): Promise<FastifyReply> {
  try {
    return await work();
  } catch (err) {
    if (!isHttpError(err) || !(request.headers.accept ?? '').includes('text/html')) throw err;
    if (err.headers) reply.headers(err.headers);
    return reply
      .code(err.statusCode)
      .type('text/html; charset=utf-8')
      .header('cache-control', 'no-store')
      .send(errorPage(err.message, err.code, request.id));
  }
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function errorPage(message: string, code: string, requestId: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Sign-in failed</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body><main><h1>Sign-in failed</h1><p>${escapeHtml(message)}</p>
<p><small>Code ${escapeHtml(code)}, request ${escapeHtml(requestId)}</small></p>
<p><a href="/">Back to the sign-in page</a></p></main></body></html>
`;
}
