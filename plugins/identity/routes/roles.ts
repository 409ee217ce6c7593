import { Type } from '@sinclair/typebox';
import { emptyAnswer, requestContext, type App } from '../../../kernel/index.ts';
import type { IdentityServices } from '../services/index.ts';
import { IdParams, STRICT } from './shared.ts';

const access = { permission: 'users:manage' };

const RoleBody = Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: Type.String(),
  permissions: Type.Array(Type.String()),
  builtin: Type.Boolean(),
  userCount: Type.Integer(),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
});

const Name = Type.String({ minLength: 1, maxLength: 64 });
const Description = Type.String({ maxLength: 500 });
const Keys = Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 500 });

/** /auth/roles: roles and their permission keys, permission `users:manage`. */
export async function roleRoutes(app: App, s: IdentityServices): Promise<void> {
  app.get(
    '/auth/roles',
    { config: access, schema: { tags: ['roles'], response: { 200: Type.Object({ roles: Type.Array(RoleBody) }) } } },
    async () => ({
      roles: await s.roles.list(),
    }),
  );

  app.post(
    '/auth/roles',
    {
      config: access,
      schema: {
        tags: ['roles'],
        body: Type.Object({ name: Name, description: Type.Optional(Description), permissions: Keys }, STRICT),
        response: { 201: RoleBody },
      },
    },
    async (request, reply) => reply.code(201).send(await s.roles.create(requestContext(request), request.body)),
  );

  app.get(
    '/auth/roles/:id',
    { config: access, schema: { tags: ['roles'], params: IdParams, response: { 200: RoleBody } } },
    async (request) => s.roles.get(request.params.id),
  );

  app.patch(
    '/auth/roles/:id',
    {
      config: access,
      schema: {
        tags: ['roles'],
        params: IdParams,
        body: Type.Object(
          { name: Type.Optional(Name), description: Type.Optional(Description), permissions: Type.Optional(Keys) },
          STRICT,
        ),
        response: { 200: RoleBody },
      },
    },
    async (request) => s.roles.update(requestContext(request), request.params.id, request.body),
  );

  app.delete(
    '/auth/roles/:id',
    { config: access, schema: { tags: ['roles'], params: IdParams, response: { 204: emptyAnswer('Deleted') } } },
    async (request, reply) => {
      await s.roles.remove(requestContext(request), request.params.id);
      return reply.code(204).send();
    },
  );
}
