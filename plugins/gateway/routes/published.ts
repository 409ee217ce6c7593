import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { App, UserActor } from '../../../kernel/index.ts';
import type { GatewayServices } from '../services/index.ts';

/** Header a published site sends its website's site key in (our name; a `siteKey` body field works too). */
export const SITE_KEY_HEADER = 'x-cms-site-key';

const tags = ['gateway-public'];
const BindingId = Type.String({
  minLength: 1,
  maxLength: 100,
  description: 'server-assigned gatewayBindingId from the saved page',
});
const SiteKey = Type.Optional(Type.String({ minLength: 1, maxLength: 500 }));

/**
 * POST /api/v1/gateway/resolve and /submit: the only way a published site reads or sends third-party
 * data. Public (CORS without credentials), limited per client address; the binding decides endpoint,
 * route, parameters and result filter. Only bindings of published content answer there; previews of
 * unpublished pages use /preview/resolve and /preview/submit with a session.
 */
export async function publishedRoutes(app: App, { siteBindings, publicRateLimit }: GatewayServices): Promise<void> {
  const config = { public: true, rateLimit: publicRateLimit };
  const siteKeyOf = (headers: Record<string, unknown>, body: { siteKey?: string }) => {
    const header = headers[SITE_KEY_HEADER];
    return typeof header === 'string' && header !== '' ? header : body.siteKey;
  };

  const ResolveBody = Type.Object({ gatewayBindingId: BindingId, siteKey: SiteKey }, { additionalProperties: false });
  const SubmitBody = Type.Object(
    {
      gatewayBindingId: BindingId,
      siteKey: SiteKey,
      fields: Type.Optional(Type.Record(Type.String({ maxLength: 200 }), Type.Unknown(), { maxProperties: 200 })),
    },
    { additionalProperties: false },
  );
  const resolved = { 200: Type.Object({ data: Type.Unknown() }) };
  const submitted = {
    200: Type.Object({ success: Type.Boolean(), response: Type.Unknown(), outcome: Type.Optional(Type.String()) }),
  };

  app.post(
    '/api/v1/gateway/resolve',
    { config, schema: { tags, body: ResolveBody, response: resolved } },
    async (request) =>
      siteBindings.resolve(request.body.gatewayBindingId, { siteKey: siteKeyOf(request.headers, request.body) }),
  );

  app.post(
    '/api/v1/gateway/submit',
    { config, bodyLimit: 1024 * 1024, schema: { tags, body: SubmitBody, response: submitted } },
    async (request) =>
      siteBindings.submit(
        request.body.gatewayBindingId,
        { siteKey: siteKeyOf(request.headers, request.body) },
        request.body.fields ?? {},
      ),
  );

  // Previews of unpublished pages: a staff session (cookie, with the kernel's Origin check on these
  // writes), and the binding's source decides whether that user may see the content holding it. The
  // site key is not needed: the session is the credential.
  const preview = { session: true as const, rateLimit: publicRateLimit };
  const viewerOf = (request: FastifyRequest) => ({ viewer: request.actor as UserActor });

  app.post(
    '/api/v1/gateway/preview/resolve',
    { config: preview, schema: { tags, body: ResolveBody, response: resolved } },
    async (request) => siteBindings.resolve(request.body.gatewayBindingId, viewerOf(request)),
  );

  app.post(
    '/api/v1/gateway/preview/submit',
    { config: preview, bodyLimit: 1024 * 1024, schema: { tags, body: SubmitBody, response: submitted } },
    async (request) => siteBindings.submit(request.body.gatewayBindingId, viewerOf(request), request.body.fields ?? {}),
  );
}
