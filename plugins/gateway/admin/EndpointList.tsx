import { Badge, Button, Text } from '@mantine/core';
import { IconPlus } from '@tabler/icons-react';
import { Link, useNavigate } from 'react-router';
import { api, ListPage, PageHeader, unwrap } from '../../admin-ui/app/src/sdk/index.ts';
import { AUTH_TYPES } from './auth.tsx';
import type { Endpoint } from './model.ts';

const authLabel = (type: string) => AUTH_TYPES.find((t) => t.value === type)?.label ?? type;

/** `/admin/gateway/endpoints`: the upstream APIs the gateway calls. */
export default function EndpointList() {
  const navigate = useNavigate();
  return (
    <>
      <PageHeader
        title="Gateway endpoints"
        description="Third-party APIs the gateway calls with their stored credentials: for sites, API clients and event deliveries."
        actions={
          <Button component={Link} to="/admin/gateway/endpoints/new" leftSection={<IconPlus size={16} aria-hidden />}>
            New endpoint
          </Button>
        }
      />
      <ListPage<Endpoint>
        label="Gateway endpoints"
        queryKey={['gateway', 'endpoints']}
        rowKey="id"
        defaultSort={{ column: 'name', direction: 'asc' }}
        filters={[{ name: 'q', label: 'Name or URL contains', type: 'text' }]}
        empty={{ title: 'No endpoints yet: add one from a vendor preset or an OpenAPI document' }}
        fetchPage={async ({ page, pageSize, sort, filters }) => {
          const { items } = unwrap(await api.GET('/api/v1/gateway/endpoints'));
          const q = filters.q?.toLowerCase() ?? '';
          const found = items.filter(
            (e) => !q || e.name.toLowerCase().includes(q) || e.baseUrl.toLowerCase().includes(q),
          );
          const column = (sort?.column ?? 'name') as 'name' | 'baseUrl' | 'updatedAt';
          found.sort(
            (a, b) => String(a[column]).localeCompare(String(b[column])) * (sort?.direction === 'desc' ? -1 : 1),
          );
          return { records: found.slice((page - 1) * pageSize, page * pageSize), total: found.length };
        }}
        onRowClick={(e) => navigate(`/admin/gateway/endpoints/${e.id}`)}
        columns={[
          {
            accessor: 'name',
            sortable: true,
            render: (e) => (
              <Link to={`/admin/gateway/endpoints/${e.id}`} onClick={(ev) => ev.stopPropagation()}>
                {e.name}
              </Link>
            ),
          },
          {
            accessor: 'baseUrl',
            title: 'Base URL',
            sortable: true,
            render: (e) => (
              <Text size="sm" style={{ wordBreak: 'break-all' }}>
                {e.baseUrl}
              </Text>
            ),
          },
          { accessor: 'auth', title: 'Authentication', render: (e) => authLabel(e.auth.type) },
          {
            accessor: 'presetId',
            title: 'Preset',
            render: (e) => (e.presetId ? <Badge variant="light">{e.presetId}</Badge> : ''),
          },
          {
            accessor: 'updatedAt',
            title: 'Changed',
            sortable: true,
            render: (e) => new Date(e.updatedAt).toLocaleString(),
          },
        ]}
      />
    </>
  );
}
