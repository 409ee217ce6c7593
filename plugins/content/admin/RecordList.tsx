import { Anchor, Group } from '@mantine/core';
import { type QueryKey, useQueryClient } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { Link, useNavigate } from 'react-router';
import { type ListFilter, ListPage, type ListPageProps, pageInBrowser } from '../../admin-ui/app/src/sdk/index.ts';
import { shortDate } from './content-api.ts';

type Column<Row> = ListPageProps<Row>['columns'][number];

/**
 * A list screen's table of records the API answers all at once (up to `LIST_MAX`): kept for a few
 * seconds under `records.key` (its edit screens invalidate that key), then filtered by the `search`
 * fields, sorted and paged in the browser. `rows` adds what the table shows beyond the record; a
 * click on a row opens `open(row)`.
 */
export function RecordList<R extends { id: string }, Row extends { id: string } = R>(props: {
  label: string;
  records: { key: QueryKey; load: () => Promise<R[]> };
  rows?: (records: R[]) => Row[] | Promise<Row[]>;
  search: (keyof Row & string)[];
  open: (row: Row) => string;
  filters?: ListFilter[];
  empty: string;
  sortBy?: keyof Row & string;
  columns: Column<Row>[];
}) {
  const client = useQueryClient();
  const navigate = useNavigate();
  const { key, load } = props.records;
  return (
    <ListPage<Row>
      label={props.label}
      queryKey={[...key, 'list']}
      rowKey="id"
      defaultSort={{ column: props.sortBy ?? 'name', direction: 'asc' }}
      filters={props.filters}
      empty={{ title: props.empty }}
      fetchPage={async (q) => {
        const records = await client.fetchQuery({ queryKey: key, queryFn: load, staleTime: 5_000 });
        // Without `rows` a row is the record itself (`Row` defaults to `R`).
        const rows = props.rows ? await props.rows(records) : (records as unknown as Row[]);
        return pageInBrowser(rows, q, { text: props.search });
      }}
      onRowClick={(row) => navigate(props.open(row))}
      columns={props.columns}
    />
  );
}

/** The column naming a record: a link to its screen (what a click on the row opens), a badge beside. */
export function linkColumn<Row>(
  accessor: keyof Row & string,
  title: string,
  to: (row: Row) => string,
  badge?: (row: Row) => ReactNode,
): Column<Row> {
  const link = (row: Row) => (
    <Link to={to(row)} onClick={(e) => e.stopPropagation()}>
      {String(row[accessor])}
    </Link>
  );
  return {
    accessor,
    title,
    sortable: true,
    render: badge
      ? (row) => (
          <Group gap="xs">
            {link(row)}
            {badge(row)}
          </Group>
        )
      : link,
  };
}

/** When a record last changed. */
export function changedColumn<Row extends { updatedAt: string }>(): Column<Row> {
  return { accessor: 'updatedAt', title: 'Changed', sortable: true, render: (row) => shortDate(row.updatedAt) };
}

/** "Open in editor" for who may edit (`show`); its accessible name adds which record (`name`). */
export function editorColumn<Row>(show: boolean, href: (row: Row) => string, name: (row: Row) => string): Column<Row> {
  return {
    accessor: 'editor',
    title: '',
    render: (row) =>
      show && (
        <Anchor href={href(row)} aria-label={`Open in editor: ${name(row)}`} onClick={(e) => e.stopPropagation()}>
          Open in editor
        </Anchor>
      ),
  };
}
