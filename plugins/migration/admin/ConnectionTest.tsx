import { Alert, Button, List, Stack, Text } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { IconPlugConnected } from '@tabler/icons-react';
import { api, ErrorState, Section, unwrap } from '../../admin-ui/app/src/sdk/index.ts';
import type { Source, TestReport } from './model.ts';

function Report({ report }: { report: TestReport }) {
  return (
    <Alert
      color={report.ok ? 'green' : 'orange'}
      title={report.ok ? 'Connection works' : 'The source has problems'}
      role="status"
    >
      <Stack gap="xs">
        <List size="sm" aria-label="What the source holds">
          <List.Item>Server: {report.server ?? 'not reached'}</List.Item>
          <List.Item>Classes: {report.classes}</List.Item>
          <List.Item>Objects: {report.objects}</List.Item>
          <List.Item>Documents: {report.documents}</List.Item>
        </List>
        {report.problems.length > 0 && (
          <>
            <Text size="sm" fw={600}>
              Problems
            </Text>
            <List size="sm" aria-label="Problems">
              {report.problems.map((p) => (
                <List.Item key={p}>{p}</List.Item>
              ))}
            </List>
          </>
        )}
      </Stack>
    </Alert>
  );
}

/** "Test connection": reaches the database and the class folder, and says what they hold. */
export function ConnectionTest({ source }: { source: Source }) {
  const test = useMutation({
    mutationFn: async () =>
      unwrap(await api.POST('/migration-sources/{id}/test', { params: { path: { id: source.id } } })),
  });
  return (
    <Section title="Connection test">
      <Stack align="flex-start">
        <Text size="sm" c="dimmed">
          Connects to the database with the stored password and reads the class folder. Nothing is written.
        </Text>
        <Button
          variant="light"
          leftSection={<IconPlugConnected size={16} aria-hidden />}
          loading={test.isPending}
          onClick={() => test.mutate()}
        >
          Test connection
        </Button>
        {test.data && <Report report={test.data} />}
        {test.error && <ErrorState error={test.error} />}
      </Stack>
    </Section>
  );
}
