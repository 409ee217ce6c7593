import { Alert, Badge, Button, Code, Group, Modal, Paper, Select, Stack, Table, Text } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { IconAlertTriangle, IconFileText, IconPlayerStop, IconRefresh, IconWorldUpload } from '@tabler/icons-react';
import { useState } from 'react';
import {
  api,
  ListPage,
  PageHeader,
  QueryState,
  showSaved,
  showSaveError,
  unwrap,
  useCan,
  type paths,
} from '../../admin-ui/app/src/sdk/index.ts';

type Job = paths['/publish/jobs/{id}']['get']['responses'][200]['content']['application/json'];
/** A website as GET /cms-one/websites lists it (the route declares no answer schema yet). */
type Website = { id: string; name: string; rootPath: string };

const KEY = ['publish', 'jobs'] as const;
const STATES = ['queued', 'running', 'cancelling', 'succeeded', 'failed', 'cancelled'] as const;
const COLORS: Record<Job['state'], string> = {
  queued: 'blue',
  running: 'cyan',
  cancelling: 'orange',
  succeeded: 'green',
  failed: 'red',
  cancelled: 'gray',
};
const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : '—');

/** Picks a website and queues a static build of it. */
function QueueBuild() {
  const client = useQueryClient();
  const [websiteId, setWebsiteId] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const websites = useQuery({
    queryKey: ['publish', 'websites'],
    queryFn: async () => unwrap(await api.GET('/cms-one/websites')) as unknown as Website[],
  });
  return (
    <Paper withBorder p="md" mb="md">
      <QueryState query={websites}>
        {(list) => (
          <Group align="end">
            <Select
              label="Website"
              placeholder="Choose a website"
              data={list.map((w) => ({ value: w.id, label: `${w.name} (${w.rootPath})` }))}
              value={websiteId}
              onChange={setWebsiteId}
              searchable
              w={{ base: '100%', sm: 360 }}
            />
            <Button
              leftSection={<IconWorldUpload size={16} aria-hidden />}
              disabled={!websiteId}
              loading={busy}
              onClick={async () => {
                setBusy(true);
                try {
                  unwrap(await api.POST('/publish/jobs', { body: { websiteId: websiteId! } }));
                  showSaved('Build queued: a runner will pick it up');
                  await client.invalidateQueries({ queryKey: KEY });
                } catch (err) {
                  showSaveError(err);
                } finally {
                  setBusy(false);
                }
              }}
            >
              Build the website
            </Button>
          </Group>
        )}
      </QueryState>
    </Paper>
  );
}

/** A runner silent this long while builds wait is taken as not connected (runners poll every few seconds). */
const RUNNER_SILENT_MS = 10 * 60_000;

/**
 * Says so when builds are queued and no runner has claimed one recently: without a runner
 * (`cms publish-runner`) queued builds wait forever. The jobs list answers when a runner last claimed.
 */
function NoRunnerNotice() {
  const queued = useQuery({
    queryKey: [...KEY, 'runner'],
    queryFn: async () =>
      unwrap(await api.GET('/publish/jobs', { params: { query: { state: 'queued', limit: 1, offset: 0 } } })),
    refetchInterval: 15_000,
  });
  if (!queued.data || queued.data.total === 0) return null;
  const seen = queued.data.runner.lastSeenAt;
  if (seen && Date.now() - new Date(seen).getTime() < RUNNER_SILENT_MS) return null;
  return (
    <Alert color="yellow" mb="md" icon={<IconAlertTriangle aria-hidden />} title="No publish runner has connected">
      <Text size="sm">
        {queued.data.total === 1 ? '1 build is' : `${queued.data.total} builds are`} queued, but no runner has claimed a
        build {seen ? `since ${when(seen)}` : 'yet'}. Builds wait until a runner picks them up: start{' '}
        <Code>cms publish-runner</Code> with <Code>PUBLISH_API_URL</Code> pointing at this server and the same{' '}
        <Code>PUBLISH_RUNNER_TOKEN</Code> as the server (set it on the server too: without it the runner routes are
        off).
      </Text>
    </Alert>
  );
}

/** The log lines of one job, oldest first. */
function JobLog({ job }: { job: Job }) {
  const lines = useQuery({
    queryKey: [...KEY, job.id, 'log'],
    queryFn: async () =>
      unwrap(
        await api.GET('/publish/jobs/{id}/logs', {
          params: { path: { id: job.id }, query: { after: 0, limit: 1000 } },
        }),
      ).lines,
  });
  return (
    <QueryState query={lines}>
      {(list) =>
        list.length === 0 ? (
          <Text size="sm">No log lines yet.</Text>
        ) : (
          <Table.ScrollContainer minWidth={480}>
            <Table striped>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Run</Table.Th>
                  <Table.Th>Level</Table.Th>
                  <Table.Th>Message</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {list.map((l) => (
                  <Table.Tr key={l.id}>
                    <Table.Td>{l.attempt}</Table.Td>
                    <Table.Td>{l.level}</Table.Td>
                    <Table.Td>
                      <Text size="sm" title={when(l.at)}>
                        {l.message}
                      </Text>
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        )
      }
    </QueryState>
  );
}

/** `/admin/publish`: static builds of the websites, newest first; queue, cancel, retry, read the log. */
export default function PublishJobs() {
  const can = useCan();
  const client = useQueryClient();
  const [logOf, setLogOf] = useState<Job | null>(null);
  const act = async (job: Job, action: 'cancel' | 'retry') => {
    try {
      const params = { params: { path: { id: job.id } } };
      const next = unwrap(
        action === 'cancel'
          ? await api.POST('/publish/jobs/{id}/cancel', params)
          : await api.POST('/publish/jobs/{id}/retry', params),
      );
      showSaved(
        action === 'cancel' ? `Build of ${job.websiteName}: ${next.state}` : `Build of ${job.websiteName} queued again`,
      );
      await client.invalidateQueries({ queryKey: KEY });
    } catch (err) {
      showSaveError(err);
    }
  };
  return (
    <>
      <PageHeader
        title="Static builds"
        description="A build renders every published page of a website and the public files they use into a folder or a bucket. A runner (cms publish-runner) carries queued builds out."
      />
      <NoRunnerNotice />
      {can('websites:publish') && <QueueBuild />}
      <ListPage<Job>
        label="Static builds"
        queryKey={KEY}
        rowKey="id"
        pageSize={25}
        empty={{ title: 'No build yet' }}
        filters={[
          { name: 'state', label: 'State', type: 'select', options: STATES.map((s) => ({ value: s, label: s })) },
        ]}
        fetchPage={async (q) => {
          const state = q.filters.state as Job['state'] | undefined;
          const { jobs, total } = unwrap(
            await api.GET('/publish/jobs', {
              params: {
                query: {
                  limit: q.pageSize,
                  offset: (q.page - 1) * q.pageSize,
                  ...(state && STATES.includes(state) ? { state } : {}),
                },
              },
            }),
          );
          return { records: jobs, total };
        }}
        columns={[
          { accessor: 'websiteName', title: 'Website' },
          {
            accessor: 'state',
            title: 'State',
            render: (j) => (
              <Badge color={COLORS[j.state]} variant="light">
                {j.state}
              </Badge>
            ),
          },
          {
            accessor: 'progress',
            title: 'Progress',
            render: (j) => (j.progress.total ? `${j.progress.done} of ${j.progress.total}` : '—'),
          },
          { accessor: 'requestedAt', title: 'Requested', render: (j) => when(j.requestedAt) },
          { accessor: 'finishedAt', title: 'Finished', render: (j) => when(j.finishedAt) },
          {
            accessor: 'output',
            title: 'Result',
            render: (j) =>
              j.error ? (
                <Text size="sm" c="red.9">
                  {j.error}
                </Text>
              ) : j.output ? (
                <Code>{j.output}</Code>
              ) : (
                '—'
              ),
          },
          {
            accessor: 'actions',
            title: 'Actions',
            render: (j) => (
              <Group gap="xs" wrap="nowrap">
                <Button
                  size="xs"
                  variant="default"
                  leftSection={<IconFileText size={14} aria-hidden />}
                  aria-label={`Log of the build of ${j.websiteName}`}
                  onClick={() => setLogOf(j)}
                >
                  Log
                </Button>
                {can('websites:publish') && (j.state === 'queued' || j.state === 'running') && (
                  <Button
                    size="xs"
                    color="red"
                    variant="light"
                    leftSection={<IconPlayerStop size={14} aria-hidden />}
                    aria-label={`Cancel the build of ${j.websiteName}`}
                    onClick={() => act(j, 'cancel')}
                  >
                    Cancel
                  </Button>
                )}
                {can('websites:publish') && (j.state === 'failed' || j.state === 'cancelled') && (
                  <Button
                    size="xs"
                    variant="light"
                    leftSection={<IconRefresh size={14} aria-hidden />}
                    aria-label={`Retry the build of ${j.websiteName}`}
                    onClick={() => act(j, 'retry')}
                  >
                    Retry
                  </Button>
                )}
              </Group>
            ),
          },
        ]}
      />
      <Modal
        closeButtonProps={{ 'aria-label': 'Close the log' }}
        opened={logOf !== null}
        onClose={() => setLogOf(null)}
        title={`Log: ${logOf?.websiteName ?? ''}`}
        size="xl"
      >
        {logOf && (
          <Stack>
            <JobLog job={logOf} />
          </Stack>
        )}
      </Modal>
    </>
  );
}
