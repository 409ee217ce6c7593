import { Anchor, Badge, Button, Code, Drawer, Stack, Table, Text } from '@mantine/core';
import { IconDownload } from '@tabler/icons-react';
import { useState } from 'react';
import { useSearchParams } from 'react-router';
import { api, type ListFilter, ListPage, PageHeader, unwrap } from '../../admin-ui/app/src/sdk/index.ts';

type Entry = {
  id: number;
  at: string;
  actor_type: string;
  actor_id: string | null;
  actor_label: string | null;
  ip: string | null;
  action: string;
  target_type: string | null;
  target_id: string | null;
  target_label: string | null;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  request_id: string | null;
};

/** The filters of GET /audit-log, by their query names (they go to the API as they are). */
const FILTERS: ListFilter[] = [
  { name: 'action', label: 'Action', type: 'text', placeholder: 'user.update or user.' },
  { name: 'actor', label: 'Actor', type: 'text', placeholder: 'e-mail or id' },
  { name: 'targetType', label: 'Target type', type: 'text', placeholder: 'user' },
  { name: 'targetId', label: 'Target id', type: 'text' },
  { name: 'from', label: 'From', type: 'date' },
  { name: 'to', label: 'To', type: 'date' },
];
const FILTER_NAMES = FILTERS.map((f) => f.name);

const when = (at: string) => new Date(at).toLocaleString();

function Details({ entry }: { entry: Entry }) {
  const rows: [string, string | null][] = [
    ['When', when(entry.at)],
    ['Action', entry.action],
    ['Actor', `${entry.actor_label ?? entry.actor_id ?? ''} (${entry.actor_type})`],
    ['Target', [entry.target_type, entry.target_label ?? entry.target_id].filter(Boolean).join(' ')],
    ['Address', entry.ip],
    ['Request id', entry.request_id],
  ];
  return (
    <Stack>
      <Table>
        <Table.Tbody>
          {rows.map(([label, value]) => (
            <Table.Tr key={label}>
              <Table.Th scope="row">{label}</Table.Th>
              <Table.Td>{value || '—'}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      {(['before', 'after'] as const).map((side) =>
        entry[side] ? (
          <div key={side}>
            <Text fw={600} size="sm" mb={4}>
              {side === 'before' ? 'Before' : 'After'}
            </Text>
            <Code block>{JSON.stringify(entry[side], null, 2)}</Code>
          </div>
        ) : null,
      )}
    </Stack>
  );
}

/** `/admin/audit-log`: every administrative action, newest first, filtered in the URL, as CSV too. */
export default function AuditLog() {
  const [params] = useSearchParams();
  const [open, setOpen] = useState<Entry>();
  // The CSV is the same query as the table (the filters in the URL), as a download.
  const csv = new URLSearchParams({ format: 'csv', limit: '5000' });
  for (const name of FILTER_NAMES) {
    const value = params.get(name);
    if (value) csv.set(name, value);
  }
  return (
    <>
      <PageHeader
        title="Audit log"
        description="Administrative actions, newest first. Entries cannot be changed or deleted."
        actions={
          <Button
            component="a"
            href={`/audit-log?${csv}`}
            download
            variant="light"
            leftSection={<IconDownload size={16} aria-hidden />}
          >
            Download CSV
          </Button>
        }
      />
      <ListPage<Entry>
        label="Audit log entries"
        queryKey={['audit', 'log']}
        rowKey="id"
        filters={FILTERS}
        pageSize={50}
        empty={{ title: 'No entries match these filters' }}
        fetchPage={async ({ page, pageSize, filters }) => {
          const query = Object.fromEntries(Object.entries(filters).filter(([, v]) => v));
          const answer = unwrap(
            await api.GET('/audit-log', {
              params: { query: { ...query, limit: pageSize, offset: (page - 1) * pageSize } },
            }),
          );
          return { records: answer.entries as Entry[], total: answer.total };
        }}
        onRowClick={setOpen}
        columns={[
          { accessor: 'at', title: 'When', render: (e) => when(e.at), noWrap: true },
          { accessor: 'action', title: 'Action', render: (e) => <Badge variant="light">{e.action}</Badge> },
          { accessor: 'actor_label', title: 'Actor', render: (e) => e.actor_label ?? e.actor_id ?? e.actor_type },
          {
            accessor: 'target_label',
            title: 'Target',
            render: (e) => [e.target_type, e.target_label ?? e.target_id].filter(Boolean).join(' '),
          },
          {
            accessor: 'details',
            title: 'Details',
            render: (e) => (
              <Anchor component="button" type="button" size="sm" onClick={() => setOpen(e)}>
                Show
              </Anchor>
            ),
          },
        ]}
      />
      <Drawer opened={!!open} onClose={() => setOpen(undefined)} title="Audit entry" position="right" size="lg">
        {open && <Details entry={open} />}
      </Drawer>
    </>
  );
}
