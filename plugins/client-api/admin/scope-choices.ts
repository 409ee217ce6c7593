import { useQuery } from '@tanstack/react-query';
import { api, unwrap, useCan } from '../../admin-ui/app/src/sdk/index.ts';

/**
 * The scopes this installation can grant, for the scope input to suggest: data reads and writes of
 * each class (exactly as the class is spelled: names are case-sensitive) and calls of each gateway
 * endpoint. A list the person may not read (no `objects:read`) is left out; typing stays possible.
 */
export function useScopeChoices(): string[] {
  const canReadClasses = useCan()('objects:read');
  const classes = useQuery({
    queryKey: ['client-api', 'scope-classes'],
    enabled: canReadClasses,
    queryFn: async () => unwrap(await api.GET('/data-classes')).classes.map((c) => c.name),
  });
  const endpoints = useQuery({
    queryKey: ['client-api', 'scope-endpoints'],
    queryFn: async () => {
      // A product without the gateway plugin has no endpoints to offer.
      const result = await api.GET('/api/v1/gateway/endpoints');
      return result.response.ok && result.data ? result.data.items.map((e) => e.name) : [];
    },
  });
  return [
    'data:read:*',
    ...(classes.data ?? []).flatMap((name) => [`data:read:${name}`, `data:write:${name}`]),
    ...(endpoints.data ?? []).flatMap((name) => [`gateway:call:${name}`, `automation:run:${name}:*`]),
  ];
}
