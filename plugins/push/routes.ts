import { ECDH } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import { type App, badRequest, HttpError, notFound, type PluginContext } from '../../kernel/index.ts';
import type { PushConfig } from './config.ts';
import { type PushService, sendDto } from './services.ts';

type Context = PluginContext<
  'db' | 'clock' | 'config' | 'secretBox' | 'outboundGuard' | 'jobs',
  'outboundFetch' | 'websiteUploadRules',
  typeof PushConfig,
  PushService
>;

// base64url of a 65-byte uncompressed P-256 point (87 characters) and of a 16-byte secret (22 characters).
const P256DH = '^[A-Za-z0-9_-]{87}=?$';
const AUTH = '^[A-Za-z0-9_-]{22}(==)?$';

const Subscribe = Type.Object(
  {
    websiteId: Type.String({ format: 'uuid' }),
    subscription: Type.Object(
      {
        endpoint: Type.String({ minLength: 8, maxLength: 2000 }),
        expirationTime: Type.Optional(Type.Union([Type.Null(), Type.Integer({ minimum: 0 })])),
        keys: Type.Object(
          {
            p256dh: Type.String({ pattern: P256DH, maxLength: 88 }),
            auth: Type.String({ pattern: AUTH, maxLength: 24 }),
          },
          { additionalProperties: false },
        ),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);

const Send = Type.Object(
  {
    websiteId: Type.String({ format: 'uuid' }),
    title: Type.String({ minLength: 1, maxLength: 200 }),
    body: Type.Optional(Type.String({ maxLength: 1000 })),
    // Opened when the notification is clicked: a page of the site or a web address, never a script URL.
    url: Type.Optional(Type.String({ maxLength: 2000, pattern: '^(https?://|/)' })),
    ttlSeconds: Type.Optional(Type.Integer({ minimum: 0, maximum: 28 * 24 * 3600 })),
  },
  { additionalProperties: false },
);

/** A send: queued by `POST /pwa/send` (202), read back by `GET /pwa/send/:id` until it ends. */
const SendAnswer = Type.Object({
  id: Type.String({ format: 'uuid' }),
  websiteId: Type.String({ format: 'uuid' }),
  status: Type.Union(
    ['queued', 'sending', 'done', 'over_budget', 'interrupted', 'failed'].map((s) => Type.Literal(s)),
    { description: 'done, over_budget (the budget ran out: `unsent` were not tried), interrupted, failed: ended' },
  ),
  total: Type.Integer({ description: 'subscribers when the send started' }),
  sent: Type.Integer(),
  removed: Type.Integer({ description: 'expired subscriptions (404, 410) removed' }),
  failed: Type.Integer(),
  unsent: Type.Integer({ description: 'subscribers not tried before the budget ran out' }),
  problem: Type.Union([Type.Null(), Type.String()]),
  createdAt: Type.String({ format: 'date-time' }),
  startedAt: Type.Union([Type.Null(), Type.String({ format: 'date-time' })]),
  finishedAt: Type.Union([Type.Null(), Type.String({ format: 'date-time' })]),
  outcome: Type.String({ description: 'where to read the outcome: GET /pwa/send/:id' }),
});

/**
 * The endpoint is the browser's push service: https only. Outside production a loopback http
 * endpoint is accepted so a local push service can stand in (development, tests); the outbound
 * policy still decides at send time.
 */
function checkEndpoint(endpoint: string, production: boolean): string {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw badRequest('subscription.endpoint is not an absolute URL', 'subscription.endpoint');
  }
  const loopback = ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback && !production))
    throw badRequest('subscription.endpoint must be an https URL', 'subscription.endpoint');
  if (url.username || url.password)
    throw badRequest('subscription.endpoint must not carry credentials', 'subscription.endpoint');
  return url.href;
}

/** The browser's key must be a point of P-256: a stored key that is not one could never be encrypted to. */
function checkP256dh(p256dh: string): void {
  try {
    ECDH.convertKey(Buffer.from(p256dh, 'base64url'), 'prime256v1');
  } catch {
    throw badRequest('subscription.keys.p256dh is not a P-256 public key', 'subscription.keys.p256dh');
  }
}

/**
 * The outbound policy at subscribe time, so an endpoint no message could ever be sent to is never
 * stored: the kernel's outbound guard (the sandbox profile refuses every host: 403 `OUTBOUND_REFUSED`),
 * then the gateway's address policy on what the host resolves to, 400 `ENDPOINT_REFUSED` naming the
 * field. In production an anonymous visitor's endpoint must be on a public address (`publicOnly`:
 * loopback, private, link-local, metadata and reserved refused whatever OUTBOUND_ALLOW_PRIVATE and
 * OUTBOUND_ALLOW_HOSTS say); elsewhere the gateway's own rules apply, so a local push service can
 * stand in. Sending checks again, since a name can resolve elsewhere later.
 */
async function checkEndpointPolicy(endpoint: string, ctx: Pick<Context, 'outboundGuard' | 'outboundFetch' | 'config'>) {
  const host = new URL(endpoint).hostname;
  const guarded = ctx.outboundGuard.refusal(host);
  if (guarded !== undefined)
    throw new HttpError(403, 'OUTBOUND_REFUSED', `subscription.endpoint refused: ${guarded}`, 'subscription.endpoint');
  const refused = await ctx.outboundFetch?.refusal(endpoint, { publicOnly: ctx.config.production });
  if (refused !== undefined)
    throw badRequest(
      `subscription.endpoint refused by the outbound policy: ${refused}`,
      'subscription.endpoint',
      'ENDPOINT_REFUSED',
    );
}

export async function pushRoutes(app: App, ctx: Context): Promise<void> {
  const { services: push, pluginConfig, config } = ctx;
  app.get(
    '/pwa/vapid-public-key',
    {
      config: { public: true },
      schema: { response: { 200: Type.Object({ publicKey: Type.String() }) } },
    },
    async () => ({ publicKey: push.publicKey }),
  );

  app.post(
    '/pwa/subscribe',
    {
      config: {
        public: true,
        rateLimit: { key: 'address', windowMs: 60_000, limit: pluginConfig.PUSH_SUBSCRIBES_PER_MINUTE },
      },
      schema: { body: Subscribe, response: { 201: Type.Object({ id: Type.String({ format: 'uuid' }) }) } },
    },
    async (request, reply) => {
      const { websiteId, subscription } = request.body;
      const endpoint = checkEndpoint(subscription.endpoint, config.production);
      checkP256dh(subscription.keys.p256dh);
      if (!(await push.websiteExists(websiteId))) throw notFound('Website not found', 'WEBSITE_NOT_FOUND');
      await checkEndpointPolicy(endpoint, ctx);
      const id = await push.store.subscribe(
        websiteId,
        { endpoint, ...subscription.keys },
        pluginConfig.PUSH_MAX_SUBSCRIPTIONS_PER_WEBSITE,
      );
      if (id === undefined)
        throw new HttpError(
          409,
          'PUSH_SUBSCRIPTIONS_FULL',
          `This website keeps at most ${pluginConfig.PUSH_MAX_SUBSCRIPTIONS_PER_WEBSITE} push subscriptions`,
          'websiteId',
        );
      return reply.code(201).send({ id });
    },
  );

  app.get(
    '/pwa/subscribers',
    {
      config: { permission: 'push:send' },
      schema: {
        querystring: Type.Object({ websiteId: Type.String({ format: 'uuid' }) }, { additionalProperties: false }),
        response: { 200: Type.Object({ websiteId: Type.String(), subscribers: Type.Integer() }) },
      },
    },
    async (request) => {
      const { websiteId } = request.query;
      if (!(await push.websiteExists(websiteId))) throw notFound('Website not found', 'WEBSITE_NOT_FOUND');
      return { websiteId, subscribers: await push.store.subscriberCount(websiteId) };
    },
  );

  app.post(
    '/pwa/send',
    {
      config: { permission: 'push:send' },
      schema: {
        body: Send,
        response: { 202: SendAnswer },
      },
    },
    async (request, reply) => {
      const { websiteId, ttlSeconds, ...message } = request.body;
      if (!(await push.websiteExists(websiteId))) throw notFound('Website not found', 'WEBSITE_NOT_FOUND');
      const send = await push.queueSend({
        websiteId,
        payload: JSON.stringify(message),
        ttlSeconds: ttlSeconds ?? 24 * 3600,
        createdBy: request.actor.type === 'user' ? request.actor.id : null,
      });
      return reply.code(202).header('location', `/pwa/send/${send.id}`).send(sendDto(send));
    },
  );

  app.get(
    '/pwa/send/:id',
    {
      config: { permission: 'push:send' },
      schema: {
        params: Type.Object({ id: Type.String({ format: 'uuid' }) }),
        response: { 200: SendAnswer },
      },
    },
    async (request) => {
      const send = await push.store.findSend(request.params.id);
      if (!send) throw notFound('Send not found', 'SEND_NOT_FOUND');
      return sendDto(send);
    },
  );
}
