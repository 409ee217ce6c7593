import { Badge, Button, Modal } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { IconPlus } from '@tabler/icons-react';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { api, ListPage, PageHeader, showSaved, unwrap } from '../../admin-ui/app/src/sdk/index.ts';
import { ClientForm } from './ClientForm.tsx';
import { NewKeyModal } from './NewKey.tsx';
import { type ApiClient, CLIENTS_KEY, liveKeys } from './model.ts';

/** `/admin/gateway/clients`: who may call `/client/v1`, with which scopes. */
export default function ClientList() {
  const navigate = useNavigate();
  const query = useQueryClient();
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<{ client: ApiClient; key?: string }>();
  return (
    <>
      <PageHeader
        title="API clients"
        description="Servers and apps that read published data and call gateway routes through /client/v1."
        actions={
          <Button leftSection={<IconPlus size={16} aria-hidden />} onClick={() => setCreating(true)}>
            New client
          </Button>
        }
      />
      <Modal
        closeButtonProps={{ 'aria-label': 'Close' }}
        opened={creating}
        onClose={() => setCreating(false)}
        title="New API client"
        size="lg"
      >
        <ClientForm
          submitLabel="Create client"
          onCancel={() => setCreating(false)}
          onSubmit={async (body) => {
            const answer = unwrap(
              await api.POST('/api/v1/gateway/clients', { body: { ...body, jwt: body.jwt ?? null } }),
            );
            const { key, ...client } = answer;
            setCreating(false);
            showSaved(`Client ${client.name} created`);
            await query.invalidateQueries({ queryKey: CLIENTS_KEY });
            if (key) setCreated({ client, key });
            else await navigate(`/admin/gateway/clients/${client.id}`);
          }}
        />
      </Modal>
      <NewKeyModal
        apiKey={created?.key}
        client={created?.client.name ?? ''}
        onClose={() => {
          const id = created?.client.id;
          setCreated(undefined);
          if (id) void navigate(`/admin/gateway/clients/${id}`);
        }}
      />
      <ListPage<ApiClient>
        label="API clients"
        queryKey={CLIENTS_KEY}
        rowKey="id"
        defaultSort={{ column: 'name', direction: 'asc' }}
        filters={[
          { name: 'q', label: 'Name contains', type: 'text' },
          {
            name: 'status',
            label: 'Status',
            type: 'select',
            options: [
              { value: 'active', label: 'Active' },
              { value: 'suspended', label: 'Suspended' },
            ],
          },
        ]}
        empty={{ title: 'No API clients yet' }}
        fetchPage={async ({ page, pageSize, sort, filters }) => {
          const { clients } = unwrap(
            await api.GET('/api/v1/gateway/clients', { params: { query: { limit: 500, offset: 0 } } }),
          );
          const q = filters.q?.toLowerCase() ?? '';
          const found = clients.filter(
            (c) => (!q || c.name.toLowerCase().includes(q)) && (!filters.status || c.status === filters.status),
          );
          const column = (sort?.column ?? 'name') as 'name' | 'createdAt' | 'status';
          found.sort((a, b) => a[column].localeCompare(b[column]) * (sort?.direction === 'desc' ? -1 : 1));
          return { records: found.slice((page - 1) * pageSize, page * pageSize), total: found.length };
        }}
        onRowClick={(c) => navigate(`/admin/gateway/clients/${c.id}`)}
        columns={[
          {
            accessor: 'name',
            sortable: true,
            render: (c) => (
              <Link to={`/admin/gateway/clients/${c.id}`} onClick={(e) => e.stopPropagation()}>
                {c.name}
              </Link>
            ),
          },
          { accessor: 'authMode', title: 'Kind', render: (c) => (c.authMode === 'key' ? 'API key' : 'Tokens') },
          {
            accessor: 'status',
            sortable: true,
            render: (c) => (
              <Badge variant="light" color={c.status === 'active' ? 'green' : 'gray'}>
                {c.status}
              </Badge>
            ),
          },
          { accessor: 'scopes', render: (c) => c.scopes.join(', ') || '—' },
          {
            accessor: 'keys',
            title: 'Keys',
            render: (c) =>
              c.authMode === 'key'
                ? liveKeys(c)
                    .map((k) => `${k.prefix}…`)
                    .join(', ') || 'none'
                : '—',
          },
          {
            accessor: 'createdAt',
            title: 'Created',
            sortable: true,
            render: (c) => new Date(c.createdAt).toLocaleDateString(),
          },
        ]}
      />
    </>
  );
}
