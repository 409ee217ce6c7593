import { Group, Paper, Select, TextInput } from '@mantine/core';
import { DateInput } from '@mantine/dates';
import { useQuery } from '@tanstack/react-query';
import { DataTable, type DataTableColumn, type DataTableSortStatus } from 'mantine-datatable';
import { useEffect, useRef, useState } from 'react';
import { ErrorState } from './page';
import { useUrlState } from './url-state';

const NO_SORT = { columnAccessor: '', direction: 'asc' } as const;

/** A filter above a list: free text, a choice, or a date (`YYYY-MM-DD` in the URL). */
export type ListFilter =
  | { name: string; label: string; type: 'text'; placeholder?: string }
  | { name: string; label: string; type: 'select'; options: { value: string; label: string }[] }
  | { name: string; label: string; type: 'date' };

export interface ListQuery {
  page: number;
  pageSize: number;
  sort?: { column: string; direction: 'asc' | 'desc' };
  filters: Record<string, string>;
}

export interface ListPageProps<T> {
  /** Query key prefix: the plugin id first (`['audit', 'log']`). */
  queryKey: readonly unknown[];
  fetchPage: (query: ListQuery) => Promise<{ records: T[]; total: number }>;
  columns: DataTableColumn<T>[];
  filters?: ListFilter[];
  rowKey: keyof T & string;
  pageSize?: number;
  /** Sort used when the URL names none. */
  defaultSort?: { column: string; direction: 'asc' | 'desc' };
  /** What an empty list says. */
  empty: { title: string };
  /** The table's accessible name. */
  label: string;
  onRowClick?: (record: T) => void;
  /**
   * Tick boxes for a bulk action the screen offers above the list: the screen keeps the ticked
   * records; `noun` names one in the boxes' labels ("Select this mail").
   */
  selection?: {
    selected: T[];
    onChange: (records: T[]) => void;
    isSelectable?: (record: T) => boolean;
    noun: string;
  };
}

function TextFilter(props: { label: string; value: string; placeholder?: string; onChange: (v: string) => void }) {
  // Typing updates the URL once the user pauses (the back button then skips single keystrokes).
  // Between a keystroke and that update the field shows what was typed (the draft); otherwise it
  // shows the URL's value, so the back button or a link always shows what the list is filtered by.
  const [draft, setDraft] = useState<string | null>(null);
  const onChange = useRef(props.onChange);
  onChange.current = props.onChange;
  useEffect(() => {
    if (draft === null) return;
    const timer = setTimeout(() => {
      onChange.current(draft);
      setDraft(null);
    }, 350);
    return () => clearTimeout(timer);
  }, [draft]);
  return (
    <TextInput
      label={props.label}
      placeholder={props.placeholder}
      value={draft ?? props.value}
      onChange={(e) => setDraft(e.currentTarget.value)}
    />
  );
}

/**
 * A list screen's body: filters, a sortable, paged table and its loading, empty and error states,
 * with filters, sort and page in the URL.
 */
export function ListPage<T>(props: ListPageProps<T>) {
  const filters = props.filters ?? [];
  const pageSize = props.pageSize ?? 25;
  const url = useUrlState(filters.map((f) => f.name));
  const sort = url.sort ?? props.defaultSort;
  const query: ListQuery = { page: url.page, pageSize, sort, filters: url.values };
  const result = useQuery({
    queryKey: [...props.queryKey, query],
    queryFn: () => props.fetchPage(query),
    placeholderData: (previous) => previous,
  });
  return (
    <Paper withBorder p="md" radius="md">
      {filters.length > 0 && (
        <Group mb="md" align="flex-end" wrap="wrap" role="search" aria-label={`Filter ${props.label}`}>
          {filters.map((f) => {
            const value = url.values[f.name];
            const onChange = (v: string) => url.set({ [f.name]: v });
            if (f.type === 'select')
              return (
                <Select
                  key={f.name}
                  label={f.label}
                  data={f.options}
                  value={value || null}
                  onChange={(v) => onChange(v ?? '')}
                  clearable
                />
              );
            if (f.type === 'date')
              return (
                <DateInput
                  key={f.name}
                  label={f.label}
                  value={value || null}
                  onChange={(v) => onChange(v ?? '')}
                  valueFormat="YYYY-MM-DD"
                  clearable
                />
              );
            return (
              <TextFilter key={f.name} label={f.label} value={value} placeholder={f.placeholder} onChange={onChange} />
            );
          })}
        </Group>
      )}
      {result.error ? (
        <ErrorState error={result.error} onRetry={() => result.refetch()} />
      ) : (
        <DataTable<T>
          aria-label={props.label}
          aria-busy={result.isFetching}
          // A table wider than a phone scrolls: keyboard users reach it too.
          scrollAreaProps={{
            viewportProps: { tabIndex: 0, role: 'region', 'aria-label': `${props.label}, scrollable` },
          }}
          minHeight={result.data?.records.length ? undefined : 180}
          withTableBorder={false}
          striped
          highlightOnHover
          fetching={result.isFetching}
          idAccessor={props.rowKey}
          columns={props.columns}
          records={result.data?.records ?? []}
          totalRecords={result.data?.total ?? 0}
          recordsPerPage={pageSize}
          page={url.page}
          onPageChange={(p) => url.set({ page: String(p) })}
          sortStatus={sort ? { columnAccessor: sort.column, direction: sort.direction } : NO_SORT}
          onSortStatusChange={(s: DataTableSortStatus<T>) =>
            url.set({ sort: `${s.direction === 'desc' ? '-' : ''}${String(s.columnAccessor)}` })
          }
          onRowClick={({ record }) => props.onRowClick?.(record)}
          noRecordsText={result.isPending ? 'Loading' : props.empty.title}
          selectedRecords={props.selection?.selected}
          onSelectedRecordsChange={props.selection?.onChange}
          isRecordSelectable={props.selection?.isSelectable}
          selectionCheckboxProps={props.selection && { 'aria-label': `Select this ${props.selection.noun}` }}
          allRecordsSelectionCheckboxProps={
            props.selection && { 'aria-label': `Select every ${props.selection.noun} of this page` }
          }
        />
      )}
    </Paper>
  );
}
