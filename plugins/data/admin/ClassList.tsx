import { Badge, Button } from '@mantine/core';
import { IconPlus } from '@tabler/icons-react';
import { useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate } from 'react-router';
import { api, ListPage, type ListQuery, PageHeader, unwrap, useCan } from '../../admin-ui/app/src/sdk/index.ts';
import { type DataClass, keys } from './model.ts';

type Row = DataClass & { fieldCount: number; workflow?: unknown };

/** Sorts and pages the (small) class list in the browser, by the URL's filter and sort. */
function pageOf(classes: DataClass[], q: ListQuery): { records: Row[]; total: number } {
  const text = (q.filters.q ?? '').toLowerCase();
  let rows: Row[] = classes
    .filter((c) => !text || c.name.toLowerCase().includes(text) || c.label.toLowerCase().includes(text))
    .map((c) => ({ ...c, fieldCount: c.fields.length }));
  if (q.sort) {
    const { column, direction } = q.sort;
    const value = (r: Row) => (r as unknown as Record<string, unknown>)[column] ?? '';
    rows = rows.sort((a, b) => {
      const x = value(a);
      const y = value(b);
      const c = typeof x === 'number' && typeof y === 'number' ? x - y : String(x).localeCompare(String(y));
      return direction === 'desc' ? -c : c;
    });
  }
  const from = (q.page - 1) * q.pageSize;
  return { records: rows.slice(from, from + q.pageSize), total: rows.length };
}

/** `/admin/data/classes`: every class, filtered and sorted in the URL. */
export default function ClassList() {
  const can = useCan();
  const navigate = useNavigate();
  const client = useQueryClient();
  return (
    <>
      <PageHeader
        title="Data classes"
        description="The structures of your data: their fields, translations, workflow and retention."
        actions={
          can('data_classes:manage') && (
            <Button component={Link} to="/admin/data/classes/new" leftSection={<IconPlus size={16} />}>
              New class
            </Button>
          )
        }
      />
      <ListPage<Row>
        label="Data classes"
        queryKey={[...keys.classes, 'list']}
        rowKey="id"
        defaultSort={{ column: 'name', direction: 'asc' }}
        filters={[{ name: 'q', label: 'Name or label', type: 'text', placeholder: 'article' }]}
        empty={{ title: 'No classes yet' }}
        fetchPage={async (q) => {
          const { classes } = unwrap(await api.GET('/data-classes'));
          client.setQueryData(keys.classes, classes);
          return pageOf(classes, q);
        }}
        onRowClick={(c) => navigate(`/admin/data/classes/${c.id}`)}
        columns={[
          {
            accessor: 'label',
            title: 'Class',
            sortable: true,
            render: (c) => (
              <Link to={`/admin/data/classes/${c.id}`} onClick={(e) => e.stopPropagation()}>
                {c.label || c.name}
              </Link>
            ),
          },
          { accessor: 'name', sortable: true },
          { accessor: 'fieldCount', title: 'Fields', sortable: true },
          {
            accessor: 'retentionDays',
            title: 'Retention',
            render: (c) => (c.retentionDays ? `${c.retentionDays} days` : <Badge variant="light">Kept</Badge>),
          },
          {
            accessor: 'objects',
            title: '',
            render: (c) => (
              <Link
                to={`/admin/data/objects?class=${encodeURIComponent(c.name)}`}
                aria-label={`Objects of ${c.label || c.name}`}
                onClick={(e) => e.stopPropagation()}
              >
                Objects
              </Link>
            ),
          },
        ]}
      />
    </>
  );
}
