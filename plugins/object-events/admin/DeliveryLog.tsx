import { Badge, Button, Group, Paper, Select, Stack, Text, Title } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { DataTable } from 'mantine-datatable';
import {
  api,
  confirmDestructive,
  ErrorState,
  showSaved,
  showSaveError,
  unwrap,
  useUrlState,
} from '../../admin-ui/app/src/sdk/index.ts';
import {
  type Delivery,
  type DeliveryStatus,
  EVENT_TYPES,
  type EventType,
  STATUS_LABELS,
  type Subscription,
} from './model.ts';

const PAGE_SIZE = 25;
const when = (at: string | null) => (at ? new Date(at).toLocaleString() : '—');

/** The delivery log of a subscription: status, attempts, next try, the last answer's problem; retry. */
export function DeliveryLog({ subscription }: { subscription: Subscription }) {
  const client = useQueryClient();
  const url = useUrlState(['status', 'type']);
  const { status, type } = url.values;
  const key = ['object-events', 'deliveries', subscription.id];
  const log = useQuery({
    queryKey: [...key, status, type],
    queryFn: async () =>
      unwrap(
        await api.GET('/object-event-subscriptions/{id}/deliveries', {
          params: {
            path: { id: subscription.id },
            query: {
              limit: 200,
              ...(status ? { status: status as DeliveryStatus } : {}),
              ...(type ? { type: type as EventType } : {}),
            },
          },
        }),
      ).deliveries,
    placeholderData: (previous) => previous,
    // Waiting rows change on their own: look again while some are not finished.
    refetchInterval: (q) =>
      q.state.data?.some((d) => d.status === 'pending' || d.status === 'retrying') ? 3000 : false,
  });
  const refresh = () => client.invalidateQueries({ queryKey: key });
  const retry = async (d: Delivery) => {
    try {
      unwrap(await api.POST('/object-event-deliveries/{id}/retry', { params: { path: { id: d.id } } }));
      showSaved('Sent again: the delivery is waiting');
      await refresh();
    } catch (err) {
      showSaveError(err);
    }
  };
  const clear = async (finished: 'delivered' | 'dead' | 'stopped') => {
    const count = log.data?.filter((d) => d.status === finished).length ?? 0;
    const ok = await confirmDestructive({
      title: `Clear the ${STATUS_LABELS[finished].label} rows?`,
      removes: `every “${STATUS_LABELS[finished].label}” row of this subscription's delivery log (${count}${count === 200 ? ' or more' : ''} shown). Waiting and retrying deliveries stay.`,
      confirmLabel: 'Clear rows',
    });
    if (!ok) return;
    try {
      const { deleted } = unwrap(
        await api.DELETE('/object-event-subscriptions/{id}/deliveries', {
          params: { path: { id: subscription.id } },
          body: { status: finished },
        }),
      );
      showSaved(`${deleted} rows cleared`);
      await refresh();
    } catch (err) {
      showSaveError(err);
    }
  };
  const rows = log.data ?? [];
  return (
    <Paper withBorder p="lg">
      <Stack>
        <Group justify="space-between" wrap="wrap">
          <Title order={2} size="h4">
            Delivery log
          </Title>
          <Group gap="xs">
            <Button size="xs" variant="default" onClick={() => void refresh()} loading={log.isFetching}>
              Refresh
            </Button>
            <Button size="xs" variant="subtle" color="red" onClick={() => void clear('delivered')}>
              Clear delivered
            </Button>
            <Button size="xs" variant="subtle" color="red" onClick={() => void clear('dead')}>
              Clear gave up
            </Button>
          </Group>
        </Group>
        <Group align="flex-end" role="search" aria-label="Filter the delivery log">
          <Select
            label="Status"
            data={Object.entries(STATUS_LABELS).map(([value, s]) => ({ value, label: s.label }))}
            value={status || null}
            onChange={(v) => url.set({ status: v ?? '' })}
            clearable
            clearButtonProps={{ 'aria-label': 'Clear status' }}
          />
          <Select
            label="Event"
            data={[...EVENT_TYPES]}
            value={type || null}
            onChange={(v) => url.set({ type: v ?? '' })}
            clearable
            clearButtonProps={{ 'aria-label': 'Clear event' }}
          />
        </Group>
        <Text size="xs" c="dimmed">
          The log keeps no event content and no answer body: the last problem names what went wrong (for example the
          receiver's HTTP status). Newest first, up to 200 rows.
        </Text>
        {log.error ? (
          <ErrorState error={log.error} onRetry={() => log.refetch()} />
        ) : (
          <DataTable<Delivery>
            aria-label="Deliveries"
            minHeight={rows.length ? undefined : 150}
            withTableBorder={false}
            striped
            fetching={log.isFetching && !log.data}
            idAccessor="id"
            records={rows.slice((url.page - 1) * PAGE_SIZE, url.page * PAGE_SIZE)}
            totalRecords={rows.length}
            recordsPerPage={PAGE_SIZE}
            page={url.page}
            onPageChange={(p) => url.set({ page: String(p) })}
            noRecordsText={log.isPending ? 'Loading' : 'No deliveries yet: send a test event, or change a record'}
            columns={[
              { accessor: 'createdAt', title: 'Queued', render: (d) => when(d.createdAt) },
              { accessor: 'type', title: 'Event' },
              {
                accessor: 'status',
                render: (d) => (
                  <Badge variant="light" color={STATUS_LABELS[d.status].color}>
                    {STATUS_LABELS[d.status].label}
                  </Badge>
                ),
              },
              { accessor: 'attempts' },
              { accessor: 'lastAttemptAt', title: 'Last try', render: (d) => when(d.lastAttemptAt) },
              {
                accessor: 'nextAttemptAt',
                title: 'Next try',
                render: (d) => (d.status === 'retrying' ? when(d.nextAttemptAt) : '—'),
              },
              {
                accessor: 'lastProblem',
                title: 'Answer',
                render: (d) => d.lastProblem ?? (d.status === 'delivered' ? 'accepted (2xx)' : '—'),
              },
              {
                accessor: 'actions',
                title: 'Action',
                render: (d) =>
                  d.status === 'dead' ? (
                    <Button size="compact-xs" variant="light" onClick={() => void retry(d)}>
                      Retry
                    </Button>
                  ) : null,
              },
            ]}
          />
        )}
      </Stack>
    </Paper>
  );
}
