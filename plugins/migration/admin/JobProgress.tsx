import { Alert, Badge, Button, Group, List, Progress, Stack, Table, Text } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, QueryState, Section, showSaveError, unwrap } from '../../admin-ui/app/src/sdk/index.ts';
import { type ImportJob, jobIsLive, jobKey } from './model.ts';
import { ScrollTable } from './ScrollTable.tsx';

const STATE_COLOR = {
  queued: 'gray',
  running: 'blue',
  succeeded: 'green',
  failed: 'red',
  cancelled: 'orange',
} as const;
/** How often a live job is asked for its progress. */
const POLL_MS = 1000;

function FailedRecords({ failed }: { failed: ImportJob['failed'] }) {
  if (failed.length === 0) return null;
  return (
    <ScrollTable label="Failed records" minWidth={420}>
      <Table.Thead>
        <Table.Tr>
          <Table.Th>Pimcore id</Table.Th>
          <Table.Th>Reason</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {failed.map((f) => (
          <Table.Tr key={`${f.sourceId}:${f.reason}`}>
            <Table.Td>{f.sourceId}</Table.Td>
            <Table.Td>{f.reason}</Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </ScrollTable>
  );
}

function JobView({ job }: { job: ImportJob }) {
  const client = useQueryClient();
  const act = useMutation({
    mutationFn: async (action: 'cancel' | 'resume') => {
      const params = { params: { path: { jobId: job.id } } };
      return unwrap(
        action === 'cancel'
          ? await api.POST('/migration-sources/import-jobs/{jobId}/cancel', params)
          : await api.POST('/migration-sources/import-jobs/{jobId}/resume', params),
      );
    },
    onSuccess: (next) => client.setQueryData(jobKey(job.id), next),
    onError: (err) => showSaveError(err),
  });
  const { done, total } = job.progress;
  const percent = total > 0 ? Math.round((done / total) * 100) : job.state === 'succeeded' ? 100 : 0;
  return (
    <Stack>
      <Group>
        <Text size="sm">State</Text>
        <Badge variant="light" color={STATE_COLOR[job.state]}>
          {job.state}
        </Badge>
      </Group>
      <Progress.Root size="lg">
        <Progress.Section value={percent} aria-label="Objects imported" />
      </Progress.Root>
      <Text size="sm" role="status" aria-live="polite">
        {done} of {total} objects
      </Text>
      <List size="sm" aria-label="Counts">
        <List.Item>Created: {job.counts.created}</List.Item>
        <List.Item>Updated: {job.counts.updated}</List.Item>
        <List.Item>Skipped: {job.counts.skipped}</List.Item>
        <List.Item>Failed: {job.counts.failed}</List.Item>
      </List>
      {job.error && (
        <Alert color="red" title="The import stopped" role="alert">
          {job.error}
        </Alert>
      )}
      <FailedRecords failed={job.failed} />
      <Group>
        {jobIsLive(job) && (
          <Button color="red" variant="light" loading={act.isPending} onClick={() => act.mutate('cancel')}>
            Cancel import
          </Button>
        )}
        {(job.state === 'failed' || job.state === 'cancelled') && (
          <Button variant="light" loading={act.isPending} onClick={() => act.mutate('resume')}>
            Resume import
          </Button>
        )}
      </Group>
    </Stack>
  );
}

/** A background object import, asked again every second while it is queued or running. */
export function JobProgress({ jobId }: { jobId: string }) {
  const query = useQuery({
    queryKey: jobKey(jobId),
    queryFn: async () =>
      unwrap(await api.GET('/migration-sources/import-jobs/{jobId}', { params: { path: { jobId } } })),
    refetchInterval: (q) => (q.state.data && !jobIsLive(q.state.data) ? false : POLL_MS),
  });
  return (
    <Section title="Import job">
      <QueryState query={query}>{(job) => <JobView job={job} />}</QueryState>
    </Section>
  );
}
