import { Type } from '@sinclair/typebox';
import { emptyAnswer, requestContext, type App } from '../../../kernel/index.ts';
import type { IdentityServices } from '../services/index.ts';
import { emptyBodyIfAbsent, IdParams, PasswordField, STRICT } from './shared.ts';

const access = { permission: 'users:manage' };

const UserBody = Type.Object({
  id: Type.String(),
  email: Type.String(),
  displayName: Type.String(),
  active: Type.Boolean(),
  roles: Type.Array(Type.String()),
  mfaEnabled: Type.Boolean(),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
});

const Email = Type.String({ format: 'email', maxLength: 254 });
const DisplayName = Type.String({ maxLength: 200 });
const Roles = Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 100 });

const CreateBody = Type.Object(
  {
    email: Email,
    displayName: Type.Optional(DisplayName),
    password: Type.Optional(PasswordField),
    roles: Roles,
    active: Type.Optional(Type.Boolean()),
  },
  STRICT,
);

const PatchBody = Type.Object(
  {
    email: Type.Optional(Email),
    displayName: Type.Optional(DisplayName),
    active: Type.Optional(Type.Boolean()),
    roles: Type.Optional(Roles),
    password: Type.Optional(PasswordField),
  },
  STRICT,
);

const ListQuery = Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: 200, default: 50 }),
  offset: Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0 }),
  q: Type.Optional(Type.String({ maxLength: 200 })),
});

/** /auth/users: user management, permission `users:manage`. */
export async function userRoutes(app: App, s: IdentityServices): Promise<void> {
  app.get(
    '/auth/users',
    {
      config: access,
      schema: {
        tags: ['users'],
        querystring: ListQuery,
        response: {
          200: Type.Object({
            users: Type.Array(UserBody),
            total: Type.Integer(),
            limit: Type.Integer(),
            offset: Type.Integer(),
          }),
        },
      },
    },
    async (request) => {
      const { limit, offset, q } = request.query;
      return { ...(await s.users.list({ limit, offset, q: q?.trim() || undefined })), limit, offset };
    },
  );

  app.post(
    '/auth/users',
    { config: access, schema: { tags: ['users'], body: CreateBody, response: { 201: UserBody } } },
    async (request, reply) => reply.code(201).send(await s.users.create(requestContext(request), request.body)),
  );

  app.get(
    '/auth/users/:id',
    { config: access, schema: { tags: ['users'], params: IdParams, response: { 200: UserBody } } },
    async (request) => s.users.get(request.params.id),
  );

  app.patch(
    '/auth/users/:id',
    { config: access, schema: { tags: ['users'], params: IdParams, body: PatchBody, response: { 200: UserBody } } },
    async (request) => s.users.update(requestContext(request), request.params.id, request.body),
  );

  app.delete(
    '/auth/users/:id',
    { config: access, schema: { tags: ['users'], params: IdParams, response: { 204: emptyAnswer('Deleted') } } },
    async (request, reply) => {
      await s.users.remove(requestContext(request), request.params.id);
      return reply.code(204).send();
    },
  );

  app.post(
    '/auth/users/:id/reset-password',
    {
      config: access,
      preValidation: emptyBodyIfAbsent,
      schema: {
        tags: ['users'],
        params: IdParams,
        body: Type.Object({ password: Type.Optional(PasswordField) }, STRICT),
        response: {
          200: Type.Object({
            method: Type.Union([Type.Literal('password'), Type.Literal('email')]),
            mailSent: Type.Optional(Type.Boolean()),
          }),
        },
      },
    },
    async (request) => s.users.forceReset(requestContext(request), request.params.id, request.body.password),
  );
}
