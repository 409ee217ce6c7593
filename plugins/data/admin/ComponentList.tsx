import { Button } from '@mantine/core';
import { IconPlus } from '@tabler/icons-react';
import { Link, useNavigate } from 'react-router';
import { api, ListPage, PageHeader, unwrap, useCan } from '../../admin-ui/app/src/sdk/index.ts';
import { type DataComponent, keys } from './model.ts';

type Row = DataComponent & { fieldCount: number };

/** `/admin/data/components`: reusable groups of fields that classes use as a field type. */
export default function ComponentList() {
  const can = useCan();
  const navigate = useNavigate();
  return (
    <>
      <PageHeader
        title="Components"
        description="Reusable groups of fields (for example an address or SEO settings) that classes use as one field."
        actions={
          can('data_classes:manage') && (
            <Button component={Link} to="/admin/data/components/new" leftSection={<IconPlus size={16} />}>
              New component
            </Button>
          )
        }
      />
      <ListPage<Row>
        label="Components"
        queryKey={[...keys.components, 'list']}
        rowKey="id"
        empty={{ title: 'No components yet' }}
        filters={[{ name: 'q', label: 'Name or label', type: 'text' }]}
        fetchPage={async (q) => {
          const { components } = unwrap(await api.GET('/data-components'));
          const text = (q.filters.q ?? '').toLowerCase();
          const rows = components
            .filter((c) => !text || `${c.name} ${c.label}`.toLowerCase().includes(text))
            .map((c) => ({ ...c, fieldCount: c.fields.length }));
          const from = (q.page - 1) * q.pageSize;
          return { records: rows.slice(from, from + q.pageSize), total: rows.length };
        }}
        onRowClick={(c) => navigate(`/admin/data/components/${c.id}`)}
        columns={[
          {
            accessor: 'label',
            title: 'Component',
            render: (c) => (
              <Link to={`/admin/data/components/${c.id}`} onClick={(e) => e.stopPropagation()}>
                {c.label || c.name}
              </Link>
            ),
          },
          { accessor: 'name' },
          { accessor: 'fieldCount', title: 'Fields' },
        ]}
      />
    </>
  );
}
