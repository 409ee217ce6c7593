import { Alert, Badge, Group, Paper, SimpleGrid, Stack, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { api, PageHeader, QueryState } from '../../admin-ui/app/src/sdk/index.ts';

type Health = { status: 'ok' | 'unavailable'; uptimeSeconds: number; database?: 'down'; audit?: 'degraded' };

function duration(seconds: number): string {
  const d = Math.floor(seconds / 86400);
  const h = Math.floor((seconds % 86400) / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  return [d && `${d} d`, (d || h) && `${h} h`, `${m} min`].filter(Boolean).join(' ');
}

function Fact({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <Paper withBorder p="md">
      <Text size="sm" c="dimmed">
        {label}
      </Text>
      <Text fw={600} size="lg" component="div">
        {children}
      </Text>
    </Paper>
  );
}

/** `/admin/health`: what GET /health says (503 is an answer here too), refreshed every 10 s. */
export default function HealthScreen() {
  const health = useQuery({
    queryKey: ['health', 'status'],
    queryFn: async (): Promise<Health> => {
      const { data, error } = await api.GET('/health');
      return (data ?? error) as Health;
    },
    refetchInterval: 10_000,
  });
  return (
    <Stack maw={860}>
      <PageHeader title="Health" description="The process answering this dashboard and its database." />
      <QueryState query={health}>
        {(h) => (
          <Stack>
            <SimpleGrid cols={{ base: 1, sm: 3 }}>
              <Fact label="Status">
                <Badge size="lg" color={h.status === 'ok' ? 'green' : 'red'} variant="light">
                  {h.status === 'ok' ? 'Ready' : 'Unavailable'}
                </Badge>
              </Fact>
              <Fact label="Database">{h.database === 'down' ? 'Not answering' : 'Answering'}</Fact>
              <Fact label="Running for">{duration(h.uptimeSeconds)}</Fact>
            </SimpleGrid>
            {h.audit === 'degraded' && (
              <Alert color="orange" title="Audit entries were lost" role="alert">
                At least one audit row could not be written since the process started; the metrics count them. Look at
                the database's health and the process log.
              </Alert>
            )}
            <Group>
              <Text size="sm" c="dimmed">
                Refreshed every 10 seconds.
              </Text>
            </Group>
          </Stack>
        )}
      </QueryState>
    </Stack>
  );
}
