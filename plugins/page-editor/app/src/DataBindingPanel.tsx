import { ActionIcon, Button, Group, NumberInput, Select, Stack, Text, TextInput, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useCan } from '../../../admin-ui/app/src/sdk/index.ts';
import {
  type BindingFilter,
  bindingOf,
  DEFAULT_LIMIT,
  type DataBinding,
  type DataClass,
  filterableFields,
  listDataClasses,
  MAX_FILTERS,
  MAX_LIMIT,
  OPERATORS,
  sortableFields,
  starterTemplate,
  typedValue,
  valueText,
  withField,
} from './dataBinding.ts';
import { type ContentNode, isContainer } from './tree.ts';

interface Props {
  node: ContentNode;
  onChange(change: (node: ContentNode) => ContentNode, field: string): void;
}

/** Sort choices besides the class's fields: the built-ins every object has. */
const BUILT_IN_ORDER = [
  { value: '', label: 'Newest first (default)' },
  { value: 'key', label: 'Key' },
  { value: 'createdAt', label: 'Created' },
  { value: 'updatedAt', label: 'Last changed' },
];

/**
 * "Data binding": binds a block (a section, a list, a table body) to a class of structured data, so
 * the page shows the class's published objects, the block's content repeated for each one with
 * `{{field}}` filled in. Offered on blocks that hold others, to users whose keys read classes (the
 * API's 403 stays the authority). Each change redraws the canvas with the bound items.
 */
export function DataBindingPanel({ node, onChange }: Props) {
  const can = useCan();
  const allowed = can('data_classes:read');
  const applies = node.type !== 'text' && isContainer(node);
  const classes = useQuery({
    queryKey: ['page-editor', 'data-classes'],
    queryFn: listDataClasses,
    enabled: allowed && applies,
  });
  if (!allowed || !applies) return null;
  const binding = bindingOf(node);
  const cls = binding ? classes.data?.find((c) => c.id === binding.classId) : undefined;

  const setBinding = (next: DataBinding | null, field = 'dataBinding') =>
    onChange((n) => {
      const { dataBinding: _, ...rest } = n.props ?? {};
      return { ...n, props: next ? { ...rest, dataBinding: next } : rest };
    }, field);
  const update = (patch: Partial<DataBinding>, field: string) => {
    if (!binding) return;
    const next: DataBinding = { ...binding, ...patch };
    for (const key of Object.keys(patch) as Array<keyof DataBinding>) if (next[key] === undefined) delete next[key];
    setBinding(next, `dataBinding.${field}`);
  };
  const choose = (classId: string | null) => {
    const chosen = classes.data?.find((c) => c.id === classId);
    if (!chosen) return setBinding(null);
    onChange(
      (n) => ({
        ...n,
        props: { ...(n.props ?? {}), dataBinding: { classId: chosen.id, limit: DEFAULT_LIMIT } },
        // An empty block gets a first item to start from; an existing one becomes the template.
        children: n.children?.length ? n.children : starterTemplate(n, chosen),
      }),
      'dataBinding',
    );
  };
  const addField = (name: string) => onChange((n) => withField(n, name), 'children');

  return (
    <Stack gap="xs" component="section" aria-labelledby="cms-data-binding-title" className="cms-data-binding">
      <Title order={3} size="h6" id="cms-data-binding-title">
        Data binding
      </Title>
      {classes.isError && (
        <Text size="sm" c="red.8">
          The data classes could not be read: {(classes.error as Error).message}
        </Text>
      )}
      <Select
        label="Show objects of the class"
        placeholder={classes.isLoading ? 'Loading classes…' : 'Not bound'}
        searchable
        clearable
        data={(classes.data ?? []).map((c) => ({ value: c.id, label: c.label || c.name }))}
        value={binding?.classId ?? null}
        onChange={choose}
      />
      {!binding && (
        <Text size="sm" c="dimmed">
          Bound, this block repeats its content once for each published object of the class.
        </Text>
      )}
      {binding && cls && <BindingFields binding={binding} cls={cls} update={update} addField={addField} />}
      {binding && classes.data && !cls && (
        <Text size="sm" c="red.8">
          The bound class no longer exists: the block shows nothing. Choose another class or clear the binding.
        </Text>
      )}
    </Stack>
  );
}

function BindingFields(props: {
  binding: DataBinding;
  cls: DataClass;
  update(patch: Partial<DataBinding>, field: string): void;
  addField(name: string): void;
}) {
  const { binding, cls, update } = props;
  const filters = binding.filter ?? [];
  const filterable = filterableFields(cls);
  const setFilter = (i: number, patch: Partial<BindingFilter> & { text?: string }) => {
    const current = filters[i];
    const next = { ...current, ...patch };
    const field = cls.fields.find((f) => f.name === next.field);
    const text = patch.text ?? valueText(current.value);
    delete (next as { text?: string }).text;
    next.value = typedValue(field, next.op, text);
    update({ filter: filters.map((f, j) => (j === i ? next : f)) }, `filter.${i}`);
  };
  return (
    <>
      <Text size="sm">
        Each object fills the block's content: write <code>{'{{field}}'}</code> in a text, a link or image address, an
        alternative text or a CSS class inside it. The canvas and the website show published objects only.
      </Text>
      <Group gap={4} aria-label="Fields of the class" role="group">
        {cls.fields.map((f) => (
          <Button key={f.name} size="compact-xs" variant="default" onClick={() => props.addField(f.name)}>
            {`Add {{${f.name}}}`}
          </Button>
        ))}
      </Group>
      {filters.map((f, i) => (
        <Stack key={i} gap={4} className="cms-binding-filter">
          <Group gap={4} align="end" wrap="nowrap">
            <Select
              style={{ flex: 1 }}
              label={`Condition ${i + 1}: field`}
              data={filterable.map((x) => ({ value: x.name, label: x.label || x.name }))}
              value={f.field}
              allowDeselect={false}
              onChange={(value) => value && setFilter(i, { field: value })}
            />
            <ActionIcon
              variant="default"
              aria-label={`Remove condition ${i + 1}`}
              onClick={() => update({ filter: filters.filter((_, j) => j !== i) }, 'filter')}
            >
              ×
            </ActionIcon>
          </Group>
          <Select
            label={`Condition ${i + 1}: test`}
            data={OPERATORS}
            value={f.op}
            allowDeselect={false}
            onChange={(value) => value && setFilter(i, { op: value })}
          />
          <TextInput
            label={`Condition ${i + 1}: value`}
            value={valueText(f.value)}
            onChange={(e) => setFilter(i, { text: e.currentTarget.value })}
          />
        </Stack>
      ))}
      {filters.length < MAX_FILTERS && filterable.length > 0 && (
        <Button
          size="xs"
          variant="light"
          onClick={() => update({ filter: [...filters, { field: filterable[0].name, op: 'eq', value: '' }] }, 'filter')}
        >
          Add a condition
        </Button>
      )}
      <Select
        label="Order by"
        data={[...BUILT_IN_ORDER, ...sortableFields(cls).map((f) => ({ value: f.name, label: f.label || f.name }))]}
        value={binding.orderBy ?? ''}
        allowDeselect={false}
        onChange={(value) =>
          update({ orderBy: value || undefined, dir: value ? (binding.dir ?? 'asc') : undefined }, 'order')
        }
      />
      {binding.orderBy && (
        <Select
          label="Direction"
          data={[
            { value: 'asc', label: 'Ascending (A to Z, 1 to 9)' },
            { value: 'desc', label: 'Descending (Z to A, 9 to 1)' },
          ]}
          value={binding.dir ?? 'asc'}
          allowDeselect={false}
          onChange={(value) => update({ dir: value === 'desc' ? 'desc' : 'asc' }, 'dir')}
        />
      )}
      <NumberInput
        label="Number of objects"
        description={`1 to ${MAX_LIMIT}`}
        min={1}
        max={MAX_LIMIT}
        allowDecimal={false}
        value={binding.limit ?? DEFAULT_LIMIT}
        onChange={(value) =>
          typeof value === 'number' && update({ limit: Math.min(MAX_LIMIT, Math.max(1, value)) }, 'limit')
        }
      />
      <TextInput
        label="Language"
        description="Empty: the page's language"
        value={binding.locale ?? ''}
        onChange={(e) => update({ locale: e.currentTarget.value.trim() || undefined }, 'locale')}
      />
    </>
  );
}
