import { Type } from '@sinclair/typebox';
import type { App } from '../../../kernel/index.ts';
import type { IdentityServices } from '../services/index.ts';

const PermissionBody = Type.Object({
  key: Type.String(),
  description: Type.String(),
  owner: Type.String(),
  grantedBy: Type.Array(Type.String()),
});

/**
 * GET /auth/permissions: every key the kernel and the loaded plugins declare. It serves the role
 * editor, so it needs `users:manage` like the rest of role management.
 */
export async function permissionRoutes(app: App, s: IdentityServices): Promise<void> {
  app.get(
    '/auth/permissions',
    {
      config: { permission: 'users:manage' },
      schema: { tags: ['roles'], response: { 200: Type.Object({ permissions: Type.Array(PermissionBody) }) } },
    },
    async () => ({
      permissions: s.permissions
        .list()
        .map((p) => ({ key: p.key, description: p.description, owner: p.owner, grantedBy: p.grantedBy ?? [] })),
    }),
  );
}
