import { Badge, Button, Group, Text } from '@mantine/core';
import { useQueries, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import {
  api,
  confirmDestructive,
  ListPage,
  PageHeader,
  showSaved,
  showSaveError,
  unwrap,
} from '../../admin-ui/app/src/sdk/index.ts';
import { KEYS, type LogEntry, type MailStatus, STATUS, statusOf, when } from './model.ts';

/** A `YYYY-MM-DD` of the date filter as the start of that day here, or of the next day (`until`). */
function dayStart(day: string | undefined, next = false): string | undefined {
  if (!day) return undefined;
  const at = new Date(`${day}T00:00:00`);
  if (Number.isNaN(at.getTime())) return undefined;
  if (next) at.setDate(at.getDate() + 1);
  return at.toISOString();
}

async function fetchLog(query: Record<string, string | number | undefined>) {
  return unwrap(await api.GET('/mail-log', { params: { query: query as never } }));
}

/** The outbox at a glance: how many mails wait, retry or failed (totals of the log's status filter). */
function OutboxState() {
  const statuses: MailStatus[] = ['queued', 'retrying', 'failed'];
  const counts = useQueries({
    queries: statuses.map((status) => ({
      queryKey: [...KEYS.log, 'count', status],
      queryFn: async () => (await fetchLog({ status, limit: 1 })).total,
      refetchInterval: 5000,
    })),
  });
  return (
    <Group gap="xs" role="status" aria-label="Outbox">
      <Text size="sm">Outbox:</Text>
      {statuses.map((s, i) => (
        <Badge key={s} color={STATUS[s].color} variant="light">
          {counts[i]?.data ?? '…'} {STATUS[s].label}
        </Badge>
      ))}
    </Group>
  );
}

/** `/admin/mail/log`: every mail the platform sent or will send, filters in the URL, newest first. */
export default function MailLog() {
  const navigate = useNavigate();
  const client = useQueryClient();
  const [selected, setSelected] = useState<LogEntry[]>([]);
  const remove = async () => {
    const ok = await confirmDestructive({
      title: `Delete ${selected.length} log ${selected.length === 1 ? 'entry' : 'entries'}?`,
      removes: `the selected sent or failed mails (${selected.length}) with their bodies, from the log.`,
      confirmLabel: 'Delete entries',
    });
    if (!ok) return;
    try {
      const { deleted } = unwrap(await api.POST('/mail-log/delete', { body: { ids: selected.map((m) => m.id) } }));
      showSaved(`${deleted} log ${deleted === 1 ? 'entry' : 'entries'} deleted`);
      setSelected([]);
      await client.invalidateQueries({ queryKey: KEYS.log });
    } catch (err) {
      showSaveError(err);
    }
  };
  return (
    <>
      <PageHeader
        title="Mail log"
        description="Every mail with its recipients, status and the provider's answer. Queued and retrying mails are the outbox."
        actions={
          <>
            <Button color="red" variant="light" disabled={!selected.length} onClick={() => void remove()}>
              Delete selected{selected.length ? ` (${selected.length})` : ''}
            </Button>
            <Button variant="default" onClick={() => void client.invalidateQueries({ queryKey: KEYS.log })}>
              Refresh
            </Button>
          </>
        }
      />
      <Group mb="md">
        <OutboxState />
      </Group>
      <ListPage<LogEntry>
        label="Mails"
        queryKey={KEYS.log}
        rowKey="id"
        filters={[
          {
            name: 'status',
            label: 'Status',
            type: 'select',
            options: (Object.keys(STATUS) as MailStatus[]).map((value) => ({ value, label: STATUS[value].label })),
          },
          { name: 'recipient', label: 'Recipient (to or cc)', type: 'text', placeholder: 'name@example.com' },
          { name: 'q', label: 'Subject contains', type: 'text' },
          { name: 'kind', label: 'Kind', type: 'text', placeholder: 'test, password-reset, …' },
          { name: 'since', label: 'From day', type: 'date' },
          { name: 'until', label: 'To day', type: 'date' },
        ]}
        empty={{ title: 'No mails match' }}
        fetchPage={async ({ page, pageSize, filters }) => {
          const { entries, total } = await fetchLog({
            limit: pageSize,
            offset: (page - 1) * pageSize,
            status: filters.status || undefined,
            recipient: filters.recipient?.trim() || undefined,
            q: filters.q?.trim() || undefined,
            kind: filters.kind?.trim() || undefined,
            since: dayStart(filters.since),
            until: dayStart(filters.until, true),
          });
          return { records: entries, total };
        }}
        onRowClick={(m) => navigate(`/admin/mail/log/${m.id}`)}
        selection={{
          selected,
          onChange: setSelected,
          // Queued and retrying mails are still to be sent: the API keeps them.
          isSelectable: (m) => m.status === 'sent' || m.status === 'failed',
          noun: 'mail',
        }}
        columns={[
          { accessor: 'createdAt', title: 'Queued', render: (m) => when(m.createdAt) },
          { accessor: 'to', title: 'To', render: (m) => [...m.to, ...m.cc].join(', ') },
          {
            accessor: 'subject',
            render: (m) => (
              <Link to={`/admin/mail/log/${m.id}`} onClick={(e) => e.stopPropagation()}>
                {m.subject || '(no subject)'}
              </Link>
            ),
          },
          { accessor: 'kind' },
          {
            accessor: 'status',
            render: (m) => (
              <Badge variant="light" color={statusOf(m).color}>
                {statusOf(m).label}
              </Badge>
            ),
          },
          { accessor: 'attempts', title: 'Tries' },
          {
            accessor: 'providerAnswer',
            title: 'Answer',
            render: (m) => m.error ?? m.providerAnswer ?? (m.nextAttemptAt ? `next try ${when(m.nextAttemptAt)}` : '—'),
          },
        ]}
      />
    </>
  );
}
