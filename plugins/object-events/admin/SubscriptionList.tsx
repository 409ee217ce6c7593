import { Badge, Button, Group, Modal } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { IconPlus } from '@tabler/icons-react';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { api, ListPage, PageHeader, showSaved, unwrap } from '../../admin-ui/app/src/sdk/index.ts';
import { SubscriptionForm } from './SubscriptionForm.tsx';
import { type Subscription, SUBSCRIPTIONS_KEY } from './model.ts';

/** `/admin/events/subscriptions`: who is told about which changes. */
export default function SubscriptionList() {
  const navigate = useNavigate();
  const client = useQueryClient();
  const [creating, setCreating] = useState(false);
  return (
    <>
      <PageHeader
        title="Event subscriptions"
        description="Changes of data objects, assets and pages sent to a gateway route, signed, with retries and a delivery log."
        actions={
          <Button leftSection={<IconPlus size={16} aria-hidden />} onClick={() => setCreating(true)}>
            New subscription
          </Button>
        }
      />
      <Modal
        closeButtonProps={{ 'aria-label': 'Close' }}
        opened={creating}
        onClose={() => setCreating(false)}
        title="New event subscription"
        size="lg"
      >
        <SubscriptionForm
          submitLabel="Create subscription"
          onCancel={() => setCreating(false)}
          onSubmit={async (body) => {
            const created = unwrap(await api.POST('/object-event-subscriptions', { body }));
            setCreating(false);
            showSaved(`Subscription ${created.name} created`);
            await client.invalidateQueries({ queryKey: SUBSCRIPTIONS_KEY });
            await navigate(`/admin/events/subscriptions/${created.id}`);
          }}
        />
      </Modal>
      <ListPage<Subscription>
        label="Event subscriptions"
        queryKey={SUBSCRIPTIONS_KEY}
        rowKey="id"
        defaultSort={{ column: 'name', direction: 'asc' }}
        filters={[
          { name: 'q', label: 'Name contains', type: 'text' },
          {
            name: 'state',
            label: 'State',
            type: 'select',
            options: [
              { value: 'enabled', label: 'Enabled' },
              { value: 'paused', label: 'Paused' },
            ],
          },
        ]}
        empty={{ title: 'No subscriptions yet' }}
        fetchPage={async ({ page, pageSize, sort, filters }) => {
          const { subscriptions } = unwrap(await api.GET('/object-event-subscriptions'));
          const q = filters.q?.toLowerCase() ?? '';
          const found = subscriptions.filter(
            (s) =>
              (!q || s.name.toLowerCase().includes(q)) &&
              (!filters.state || s.enabled === (filters.state === 'enabled')),
          );
          const column = (sort?.column ?? 'name') as 'name' | 'createdAt';
          found.sort((a, b) => a[column].localeCompare(b[column]) * (sort?.direction === 'desc' ? -1 : 1));
          return { records: found.slice((page - 1) * pageSize, page * pageSize), total: found.length };
        }}
        onRowClick={(s) => navigate(`/admin/events/subscriptions/${s.id}`)}
        columns={[
          {
            accessor: 'name',
            sortable: true,
            render: (s) => (
              <Link to={`/admin/events/subscriptions/${s.id}`} onClick={(e) => e.stopPropagation()}>
                {s.name}
              </Link>
            ),
          },
          {
            accessor: 'enabled',
            title: 'State',
            render: (s) => (
              <Group gap={4}>
                <Badge variant="light" color={s.enabled ? 'green' : 'gray'}>
                  {s.enabled ? 'enabled' : 'paused'}
                </Badge>
                {s.loopGuard.tripped && (
                  <Badge variant="light" color="orange">
                    loop guard
                  </Badge>
                )}
              </Group>
            ),
          },
          { accessor: 'events', render: (s) => s.events.join(', ') },
          { accessor: 'signingSecretRef', title: 'Signed', render: (s) => (s.signingSecretRef ? 'yes' : 'no') },
          {
            accessor: 'createdAt',
            title: 'Created',
            sortable: true,
            render: (s) => new Date(s.createdAt).toLocaleDateString(),
          },
        ]}
      />
    </>
  );
}
