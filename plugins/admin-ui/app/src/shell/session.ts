import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';
import { api, ApiError, unwrap } from '../api/client';

export type Me = { id: string; email: string; displayName: string; roles: string[]; permissions: string[] };

export const ME_KEY = ['admin-ui', 'me'] as const;

/** The signed-in user (`GET /auth/me`), or null when there is no session. */
export function useMe() {
  return useQuery({
    queryKey: ME_KEY,
    queryFn: async (): Promise<Me | null> => {
      try {
        return unwrap(await api.GET('/auth/me'));
      } catch (err) {
        if (err instanceof ApiError && err.status === 401) return null;
        throw err;
      }
    },
    staleTime: 60_000,
  });
}

/** `can('users:manage')`: whether the signed-in user holds a permission key (cosmetic; the API decides). */
export function useCan(): (permission: string) => boolean {
  const { data } = useMe();
  return useCallback((permission: string) => data?.permissions.includes(permission) ?? false, [data]);
}

/** Signs out: revokes the session and forgets everything cached for this user. */
export function useSignOut(): () => Promise<void> {
  const client = useQueryClient();
  return useCallback(async () => {
    await api.POST('/auth/logout').catch(() => undefined);
    client.clear();
    client.setQueryData(ME_KEY, null);
  }, [client]);
}
