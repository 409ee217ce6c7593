import { Anchor, Badge, Button, Group, Paper, Select, Text, TextInput } from '@mantine/core';
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { IconChevronLeft, IconChevronRight, IconFileImport, IconPlus } from '@tabler/icons-react';
import { DataTable, type DataTableSortStatus } from 'mantine-datatable';
import { useCallback, useEffect, useMemo, useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import {
  api,
  confirmDestructive,
  EmptyState,
  ErrorState,
  LoadingState,
  PageHeader,
  showSaved,
  showSaveError,
  unwrap,
  useCan,
} from '../../admin-ui/app/src/sdk/index.ts';
import { CsvImport } from './CsvImport.tsx';
import { queryObjects, useClasses } from './data-api.ts';
import { type DataClass, type DataObject, keys, titleOf } from './model.ts';
import { filterableFields, type ObjectListState, OPERATORS, PARAM, queryOf, STATE_NAMES } from './object-filters.ts';

const PAGE_SIZE = 25;

/** The list's state in the URL; any change but paging goes back to the first page. */
function useListState() {
  const [params, setParams] = useSearchParams();
  const state = useMemo(
    () => Object.fromEntries(STATE_NAMES.map((n) => [n, params.get(PARAM[n]) ?? ''])) as unknown as ObjectListState,
    [params],
  );
  const set = useCallback(
    (changes: Partial<ObjectListState>) =>
      setParams((current) => {
        const next = new URLSearchParams(current);
        for (const [k, v] of Object.entries(changes) as [keyof ObjectListState, string][]) {
          if (v) next.set(PARAM[k], v);
          else next.delete(PARAM[k]);
        }
        if (!('pages' in changes)) next.delete(PARAM.pages);
        return next;
      }),
    [setParams],
  );
  return { state, set };
}

/** A text box that sets the URL once typing pauses, so the back button skips single keystrokes. */
function DebouncedInput(props: { label: string; value: string; onChange: (v: string) => void; placeholder?: string }) {
  const [text, setText] = useState(props.value);
  useEffect(() => setText(props.value), [props.value]);
  const { onChange, value } = props;
  useEffect(() => {
    if (text === value) return;
    const timer = setTimeout(() => onChange(text), 300);
    return () => clearTimeout(timer);
  }, [text, value, onChange]);
  return (
    <TextInput
      label={props.label}
      placeholder={props.placeholder}
      value={text}
      onChange={(e) => setText(e.currentTarget.value)}
      w={180}
    />
  );
}

function Filters({
  cls,
  state,
  set,
}: {
  cls: DataClass;
  state: ObjectListState;
  set: (c: Partial<ObjectListState>) => void;
}) {
  const fields = filterableFields(cls);
  const field = fields.find((f) => f.value === state.field);
  const choices =
    field?.type === 'boolean'
      ? ['true', 'false']
      : cls.fields.find((f) => f.name === state.field && f.type === 'select')?.options;
  return (
    <Group align="flex-end" wrap="wrap" role="search" aria-label="Filter the objects" mb="md">
      <DebouncedInput label="Language" placeholder="en" value={state.locale} onChange={(locale) => set({ locale })} />
      <Select
        label="Status"
        data={[
          { value: 'yes', label: 'Published' },
          { value: 'no', label: 'Drafts' },
        ]}
        value={state.published || null}
        onChange={(v) => set({ published: v ?? '' })}
        clearable
        w={150}
      />
      <Select
        label="Field"
        data={fields.map((f) => ({ value: f.value, label: f.label }))}
        value={state.field || null}
        onChange={(v) => set({ field: v ?? '', op: state.op || 'eq' })}
        clearable
        w={170}
      />
      <Select
        label="Condition"
        data={OPERATORS}
        value={state.op || 'eq'}
        onChange={(v) => set({ op: v ?? 'eq' })}
        allowDeselect={false}
        disabled={!state.field}
        w={170}
      />
      {choices || state.op === 'exists' ? (
        <Select
          label="Value"
          data={state.op === 'exists' ? ['true', 'false'] : choices}
          value={state.value || null}
          onChange={(v) => set({ value: v ?? '' })}
          disabled={!state.field}
          clearable
          w={170}
        />
      ) : (
        <DebouncedInput label="Value" value={state.value} onChange={(value) => set({ value })} />
      )}
    </Group>
  );
}

/** `/admin/data/objects?class=<name>`: a class's objects, filtered, sorted and paged by keyset. */
export default function ObjectList() {
  const { state, set } = useListState();
  const classes = useClasses();
  const can = useCan();
  const navigate = useNavigate();
  const client = useQueryClient();
  const [selected, setSelected] = useState<DataObject[]>([]);
  const [importing, setImporting] = useState(false);
  const cls = classes.data?.find((c) => c.name === state.className);
  const body = queryOf(cls, state, PAGE_SIZE);
  const page = useQuery({
    queryKey: [...keys.objects, 'page', body],
    enabled: Boolean(cls),
    queryFn: () => queryObjects(body),
    placeholderData: keepPreviousData,
  });
  // The count reads every match: asked for separately once the page is there, so the page never
  // waits for it nor shares the server with it.
  const countBody = { ...body, after: undefined, limit: 1, includeTotal: true };
  const count = useQuery({
    queryKey: [...keys.objects, 'count', countBody],
    enabled: Boolean(cls) && page.isSuccess && !page.isPlaceholderData,
    queryFn: async () => (await queryObjects(countBody)).total ?? 0,
  });
  // A new page, filter or class: the selection no longer shows.
  // biome-ignore lint/correctness/useExhaustiveDependencies: cleared whenever the query changes
  useEffect(() => setSelected([]), [JSON.stringify(body)]);
  const cursors = state.pages ? state.pages.split('.') : [];
  const sortable = new Set(
    filterableFields(cls)
      .map((f) => f.value)
      .concat(['locale', 'published']),
  );
  const titleField = cls?.fields.find((f) => f.type === 'text');
  // Besides the title, up to two short fields of the class are shown as columns.
  const shown = (cls?.fields ?? [])
    .filter((f) => ['number', 'select', 'date', 'datetime', 'boolean', 'slug'].includes(f.type))
    .slice(0, 2);

  const batch = async (action: 'publish' | 'unpublish' | 'delete') => {
    const ids = selected.map((o) => o.id);
    if (action === 'delete') {
      const ok = await confirmDestructive({
        title: `Delete ${ids.length} objects?`,
        removes: `${ids.length} selected objects of ${cls?.label || cls?.name} in the languages selected (${[
          ...new Set(selected.map((o) => o.locale)),
        ].join(', ')}), with their preview links. Other languages of the same records stay.`,
        confirmLabel: `Delete ${ids.length} objects`,
      });
      if (!ok) return;
    }
    try {
      const { results } = unwrap<unknown>(await api.POST('/data-objects/batch', { body: { ids, action } })) as {
        results: { id: string; status: string }[];
      };
      const done = results.filter((r) => r.status !== 'not_found' && r.status !== 'unchanged').length;
      showSaved(`${done} of ${ids.length} objects ${action === 'delete' ? 'deleted' : `${action}ed`}`);
      setSelected([]);
      await client.invalidateQueries({ queryKey: keys.objects });
    } catch (err) {
      showSaveError(err);
    }
  };

  const header = (
    <PageHeader
      title={cls ? `${cls.label || cls.name}: objects` : 'Objects'}
      description={
        cls ? (
          <>
            {count.data === undefined
              ? 'Counting…'
              : `${count.data.toLocaleString('en')} ${count.data === 1 ? 'object matches' : 'objects match'}`}{' '}
            ·{' '}
            <Anchor component={Link} to={`/admin/data/classes/${cls.id}`} underline="always">
              The class
            </Anchor>
          </>
        ) : (
          'Choose a class to see its objects.'
        )
      }
      actions={
        cls &&
        can('data_objects:write') && (
          <>
            <Button variant="default" leftSection={<IconFileImport size={16} />} onClick={() => setImporting(true)}>
              Import CSV
            </Button>
            <Button
              component={Link}
              to={`/admin/data/objects/new?class=${encodeURIComponent(cls.name)}`}
              leftSection={<IconPlus size={16} />}
            >
              New object
            </Button>
          </>
        )
      }
    />
  );
  if (classes.isPending) return <LoadingState label="Loading the classes" />;
  if (classes.error) return <ErrorState error={classes.error} onRetry={() => classes.refetch()} />;
  return (
    <>
      {header}
      <Select
        label="Class"
        data={(classes.data ?? []).map((c) => ({ value: c.name, label: c.label || c.name }))}
        value={cls ? cls.name : null}
        onChange={(v) => set({ className: v ?? '', field: '', op: '', value: '', sort: '' })}
        searchable
        maw={320}
        mb="md"
        nothingFoundMessage="No class of that name"
      />
      {!cls ? (
        <EmptyState title={classes.data?.length ? 'No class chosen' : 'No classes yet'}>
          {classes.data?.length ? 'Pick a class above.' : 'Create a class first under Data classes.'}
        </EmptyState>
      ) : (
        <Paper withBorder p="md" radius="md">
          <Filters cls={cls} state={state} set={set} />
          {selected.length > 0 && can('data_objects:write') && (
            <Group mb="sm" gap="xs" role="toolbar" aria-label="Actions on the selected objects">
              <Text size="sm">{selected.length} selected:</Text>
              {can('objects:publish') && (
                <>
                  <Button size="xs" onClick={() => batch('publish')}>
                    Publish
                  </Button>
                  <Button size="xs" variant="default" onClick={() => batch('unpublish')}>
                    Unpublish
                  </Button>
                </>
              )}
              <Button size="xs" color="red" variant="outline" onClick={() => batch('delete')}>
                Delete
              </Button>
            </Group>
          )}
          {page.error ? (
            <ErrorState error={page.error} onRetry={() => page.refetch()} />
          ) : (
            <DataTable<DataObject>
              aria-label={`Objects of ${cls.label || cls.name}`}
              aria-busy={page.isFetching}
              // A table wider than a phone scrolls: keyboard users reach it too.
              scrollAreaProps={{
                viewportProps: { tabIndex: 0, role: 'region', 'aria-label': 'Objects, scrollable' },
              }}
              minHeight={page.data?.objects.length ? undefined : 180}
              withTableBorder={false}
              striped
              highlightOnHover
              fetching={page.isFetching}
              idAccessor="id"
              records={page.data?.objects ?? []}
              noRecordsText={page.isPending ? 'Loading' : 'No objects match'}
              selectedRecords={can('data_objects:write') ? selected : undefined}
              onSelectedRecordsChange={can('data_objects:write') ? setSelected : undefined}
              selectionCheckboxProps={{ 'aria-label': 'Select this object' }}
              allRecordsSelectionCheckboxProps={{ 'aria-label': 'Select every object of this page' }}
              sortStatus={
                state.sort
                  ? {
                      columnAccessor: state.sort.replace(/^-/, ''),
                      direction: state.sort.startsWith('-') ? 'desc' : 'asc',
                    }
                  : { columnAccessor: 'createdAt', direction: 'desc' }
              }
              onSortStatusChange={(s: DataTableSortStatus<DataObject>) =>
                set({ sort: `${s.direction === 'desc' ? '-' : ''}${String(s.columnAccessor)}` })
              }
              onRowClick={({ record }) => navigate(`/admin/data/objects/${record.id}`)}
              columns={[
                {
                  accessor: titleField?.name ?? 'title',
                  title: titleField?.label || titleField?.name || 'Title',
                  sortable: Boolean(titleField),
                  render: (o) => (
                    <Link to={`/admin/data/objects/${o.id}`} onClick={(e) => e.stopPropagation()}>
                      {titleOf(cls, o)}
                    </Link>
                  ),
                },
                { accessor: 'key', sortable: true, render: (o) => o.key ?? '' },
                ...shown.map((f) => ({
                  accessor: f.name,
                  title: f.label || f.name,
                  sortable: sortable.has(f.name),
                  render: (o: DataObject) => String(o.attributes[f.name] ?? ''),
                })),
                { accessor: 'locale', title: 'Language', sortable: true },
                {
                  accessor: 'published',
                  title: 'Status',
                  sortable: true,
                  render: (o) => (
                    <Badge color={o.published ? 'green' : 'gray'} variant="light">
                      {o.published ? 'Published' : 'Draft'}
                    </Badge>
                  ),
                },
                { accessor: 'workflowState', title: 'Place', render: (o) => o.workflowState ?? '' },
                {
                  accessor: 'createdAt',
                  title: 'Created',
                  sortable: true,
                  render: (o) => new Date(o.createdAt).toLocaleString('en-GB'),
                },
              ]}
            />
          )}
          <Group justify="space-between" mt="sm">
            <Text size="sm" aria-live="polite">
              Page {cursors.length + 1}
            </Text>
            <Group gap="xs">
              <Button
                size="xs"
                variant="default"
                leftSection={<IconChevronLeft size={14} />}
                disabled={cursors.length === 0}
                onClick={() => set({ pages: cursors.slice(0, -1).join('.') })}
              >
                Previous page
              </Button>
              <Button
                size="xs"
                variant="default"
                rightSection={<IconChevronRight size={14} />}
                disabled={!page.data?.nextCursor || page.isPlaceholderData}
                onClick={() => set({ pages: [...cursors, page.data?.nextCursor ?? ''].join('.') })}
              >
                Next page
              </Button>
            </Group>
          </Group>
          {can('data_objects:write') && (
            <CsvImport
              cls={cls}
              opened={importing}
              onClose={() => setImporting(false)}
              onDone={() => void client.invalidateQueries({ queryKey: keys.objects })}
            />
          )}
        </Paper>
      )}
    </>
  );
}
