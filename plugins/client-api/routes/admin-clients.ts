import { Type } from '@sinclair/typebox';
import { emptyAnswer, type App } from '../../../kernel/index.ts';
import { MAX_ADDRESSES } from '../services/addresses.ts';
import type { ClientApiServices } from '../services/index.ts';
import { MAX_SCOPES } from '../services/scopes.ts';

const config = { permission: 'gateway:manage' };
const tags = ['gateway-clients'];
const Id = Type.String({ format: 'uuid' });

const Name = Type.String({ minLength: 1, maxLength: 200 });
const AuthMode = Type.Union([Type.Literal('key'), Type.Literal('jwt')]);
const Scopes = Type.Array(Type.String({ minLength: 1, maxLength: 300 }), { maxItems: MAX_SCOPES, uniqueItems: true });
const Limits = Type.Object(
  { requestsPerMinute: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })) },
  { additionalProperties: false },
);
const Addresses = Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { maxItems: MAX_ADDRESSES });
const ExpiresAt = Type.Union([Type.String({ format: 'date-time', maxLength: 40 }), Type.Null()]);
const Jwt = Type.Union([
  Type.Object(
    {
      issuer: Type.String({ minLength: 1, maxLength: 500 }),
      audience: Type.String({ minLength: 1, maxLength: 500 }),
      scopeClaim: Type.Optional(Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9_.:-]+$' })),
      clockSkewSeconds: Type.Optional(Type.Integer({ minimum: 0, maximum: 300 })),
      maxTokenLifetimeSeconds: Type.Optional(Type.Integer({ minimum: 60, maximum: 86_400 })),
    },
    { additionalProperties: false },
  ),
  Type.Null(),
]);

const CreateBody = Type.Object(
  {
    name: Name,
    authMode: AuthMode,
    scopes: Type.Optional(Scopes),
    limits: Type.Optional(Limits),
    allowedAddresses: Type.Optional(Addresses),
    expiresAt: Type.Optional(ExpiresAt),
    jwt: Type.Optional(Jwt),
  },
  { additionalProperties: false },
);

const PatchBody = Type.Object(
  {
    name: Type.Optional(Name),
    authMode: Type.Optional(AuthMode),
    status: Type.Optional(Type.Union([Type.Literal('active'), Type.Literal('suspended')])),
    scopes: Type.Optional(Scopes),
    limits: Type.Optional(Limits),
    allowedAddresses: Type.Optional(Addresses),
    expiresAt: Type.Optional(ExpiresAt),
    jwt: Type.Optional(Jwt),
  },
  { additionalProperties: false },
);

const Time = Type.String({ format: 'date-time' });
/** A key as the API shows it: its prefix (enough to recognise it, never to use it), never the key. */
const KeyView = Type.Object({
  id: Id,
  prefix: Type.String(),
  createdAt: Time,
  revokedAt: Type.Union([Time, Type.Null()]),
});
/** A new key: the only answer that carries the key itself. */
const NewKeyView = Type.Composite([KeyView, Type.Object({ key: Type.String() })]);
/** A client as the API answers it (`toClientDto`). */
const ClientView = Type.Object({
  id: Id,
  name: Type.String(),
  authMode: AuthMode,
  status: Type.Union([Type.Literal('active'), Type.Literal('suspended')]),
  scopes: Type.Array(Type.String()),
  limits: Type.Object({ requestsPerMinute: Type.Optional(Type.Integer()) }),
  allowedAddresses: Type.Array(Type.String()),
  expiresAt: Type.Union([Time, Type.Null()]),
  jwt: Type.Union([
    Type.Object({
      issuer: Type.String(),
      audience: Type.String(),
      scopeClaim: Type.Optional(Type.String()),
      clockSkewSeconds: Type.Optional(Type.Integer()),
      maxTokenLifetimeSeconds: Type.Optional(Type.Integer()),
    }),
    Type.Null(),
  ]),
  keys: Type.Array(KeyView),
  createdAt: Time,
  updatedAt: Time,
});
/** A new client; a key client's first key comes once, here. */
const NewClientView = Type.Composite([ClientView, Type.Object({ key: Type.Optional(Type.String()) })]);

/** GET/POST /api/v1/gateway/clients, GET/PATCH/DELETE .../:id, POST .../:id/keys, DELETE .../:id/keys/:keyId. */
export async function adminClientRoutes(app: App, services: ClientApiServices): Promise<void> {
  const { admin } = services;
  const base = '/api/v1/gateway/clients';

  app.get(
    base,
    {
      config,
      schema: {
        tags,
        querystring: Type.Object({
          limit: Type.Integer({ minimum: 1, maximum: 500, default: 100 }),
          offset: Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0 }),
        }),
        response: { 200: Type.Object({ clients: Type.Array(ClientView) }) },
      },
    },
    async (request) => ({ clients: await admin.list(request.query.limit, request.query.offset) }),
  );

  app.post(
    base,
    { config, schema: { tags, body: CreateBody, response: { 201: NewClientView } } },
    async (request, reply) => reply.code(201).send(await admin.create(request.body)),
  );

  app.get(
    `${base}/:id`,
    { config, schema: { tags, params: Type.Object({ id: Id }), response: { 200: ClientView } } },
    async (request) => admin.get(request.params.id),
  );

  app.patch(
    `${base}/:id`,
    { config, schema: { tags, params: Type.Object({ id: Id }), body: PatchBody, response: { 200: ClientView } } },
    async (request) => admin.patch(request.params.id, request.body),
  );

  app.delete(
    `${base}/:id`,
    { config, schema: { tags, params: Type.Object({ id: Id }), response: { 204: emptyAnswer('Deleted') } } },
    async (request, reply) => {
      await admin.remove(request.params.id);
      return reply.code(204).send();
    },
  );

  app.post(
    `${base}/:id/keys`,
    { config, schema: { tags, params: Type.Object({ id: Id }), response: { 201: NewKeyView } } },
    async (request, reply) => reply.code(201).send(await admin.addKey(request.params.id)),
  );

  app.delete(
    `${base}/:id/keys/:keyId`,
    { config, schema: { tags, params: Type.Object({ id: Id, keyId: Id }), response: { 200: KeyView } } },
    async (request) => admin.revokeKey(request.params.id, request.params.keyId),
  );
}
