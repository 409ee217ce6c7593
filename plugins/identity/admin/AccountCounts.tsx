import { Anchor, Group, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { api, QueryState, unwrap } from '../../admin-ui/app/src/sdk/index.ts';

/** Home widget: how many users and roles there are. */
export default function AccountCounts() {
  const counts = useQuery({
    queryKey: ['identity', 'counts'],
    queryFn: async () => {
      const [users, roles] = await Promise.all([
        api.GET('/auth/users', { params: { query: { limit: 1, offset: 0 } } }),
        api.GET('/auth/roles'),
      ]);
      return { users: unwrap(users).total, roles: unwrap(roles).roles.length };
    },
  });
  return (
    <Stack gap="xs">
      <Title order={2} size="h4">
        Accounts
      </Title>
      <QueryState query={counts}>
        {(c) => (
          <SimpleGrid cols={2}>
            {(
              [
                ['Users', c.users, '/admin/users'],
                ['Roles', c.roles, '/admin/roles'],
              ] as const
            ).map(([label, n, to]) => (
              <Group key={label} gap="xs" align="baseline">
                <Text fw={700} size="xl">
                  {n}
                </Text>
                <Anchor component={Link} to={to}>
                  {label}
                </Anchor>
              </Group>
            ))}
          </SimpleGrid>
        )}
      </QueryState>
    </Stack>
  );
}
