import { Anchor, Group, Stack, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { api, EmptyState, QueryState, unwrap } from '../../admin-ui/app/src/sdk/index.ts';

/** Home widget: the last administrative actions. */
export default function RecentActivity() {
  const recent = useQuery({
    queryKey: ['audit', 'recent'],
    queryFn: async () => unwrap(await api.GET('/audit-log', { params: { query: { limit: 6, offset: 0 } } })),
  });
  return (
    <Stack gap="xs">
      <Group justify="space-between">
        <Title order={2} size="h4">
          Recent activity
        </Title>
        <Anchor component={Link} to="/admin/audit-log" size="sm">
          Audit log
        </Anchor>
      </Group>
      <QueryState query={recent}>
        {({ entries }) =>
          entries.length === 0 ? (
            <EmptyState title="No activity yet" />
          ) : (
            <Stack gap={4} component="ul" style={{ listStyle: 'none', padding: 0, margin: 0 }}>
              {entries.map((e) => (
                <Text component="li" size="sm" key={e.id}>
                  <b>{e.action}</b> by {e.actor_label ?? e.actor_type}
                  {e.target_label ? ` on ${e.target_label}` : ''} · {new Date(e.at).toLocaleString()}
                </Text>
              ))}
            </Stack>
          )
        }
      </QueryState>
    </Stack>
  );
}
