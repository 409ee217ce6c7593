import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../admin-ui/app/src/sdk/index.ts';

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
