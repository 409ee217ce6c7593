import { useQuery } from '@tanstack/react-query';
import { type ApiAnswer, api, unwrap } from '../../admin-ui/app/src/sdk/index.ts';

/** A role as `GET /auth/roles` lists it. */
export type Role = ApiAnswer<'/auth/roles', 'get'>['roles'][number];
/** A staff account as `GET /auth/users/:id` reads it. */
export type User = ApiAnswer<'/auth/users/{id}', 'get'>;
/** A permission key with its description and the plugin that declares it (`GET /auth/permissions`). */
export type Permission = ApiAnswer<'/auth/permissions', 'get'>['permissions'][number];

/** Query keys of this plugin's screens (mutations invalidate `['identity']`). */
export const KEYS = {
  users: ['identity', 'users'] as const,
  user: (id: string) => ['identity', 'users', id] as const,
  roles: ['identity', 'roles'] as const,
  permissions: ['identity', 'permissions'] as const,
  settings: ['identity', 'security-settings'] as const,
  sso: ['identity', 'oidc-settings'] as const,
};

/** Every role (for pickers and the role list). */
export function useRoles() {
  return useQuery({ queryKey: KEYS.roles, queryFn: async () => unwrap(await api.GET('/auth/roles')).roles });
}
