import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';
import { api, ApiError, unwrap } from '../api/client';
import { signedInAs } from '../api/session-expiry';

export type Me = { id: string; email: string; displayName: string; roles: string[]; permissions: string[] };

export const ME_KEY = ['admin-ui', 'me'] as const;

/** The signed-in user (`GET /auth/me`), or null when there is no session. */
export function useMe() {
  return useQuery({
    queryKey: ME_KEY,
    queryFn: async (): Promise<Me | null> => {
      try {
        const me = unwrap(await api.GET('/auth/me'));
        signedInAs(me);
        return me;
      } catch (err) {
        if (!(err instanceof ApiError && err.status === 401)) throw err;
        signedInAs(null);
        return null;
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
    // Signing out ends the session on purpose: a 401 after it is no ended session to renew.
    signedInAs(null);
    await api.POST('/auth/logout').catch(() => undefined);
    client.clear();
    client.setQueryData(ME_KEY, null);
  }, [client]);
}
