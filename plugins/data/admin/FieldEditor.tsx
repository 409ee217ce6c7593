import {
  ActionIcon,
  Button,
  Checkbox,
  Group,
  NumberInput,
  Paper,
  Select,
  Stack,
  TagsInput,
  Text,
  TextInput,
} from '@mantine/core';
import { IconArrowDown, IconArrowUp, IconPlus, IconTrash } from '@tabler/icons-react';
import {
  FIELD_TYPE_LABELS,
  FIELD_TYPES,
  type FieldDef,
  type FieldType,
  ITEM_TYPES,
  TEXT_TYPES,
  UNIQUE_TYPES,
} from './model.ts';

interface FieldEditorProps {
  fields: FieldDef[];
  onChange: (fields: FieldDef[]) => void;
  /** Class names a relation may point at. */
  classNames: string[];
  /** Component names a component field (or list of components) may use. */
  componentNames: string[];
  /** Components cannot nest components or hold unique fields. */
  inComponent?: boolean;
  readOnly?: boolean;
  /** A 400's `field` (`fields.2.type`) and message, shown on that field's card. */
  error?: { field: string; message: string };
}

/** Drops options that do not apply to the field's type, so the API gets only what it accepts. */
function clean(field: FieldDef): FieldDef {
  const out: FieldDef = { name: field.name, type: field.type };
  if (field.label) out.label = field.label;
  if (field.required) out.required = true;
  if (field.unique && UNIQUE_TYPES.has(field.type)) out.unique = true;
  if (field.localized) out.localized = true;
  if (field.type === 'select' || (field.type === 'array' && field.of === 'select')) out.options = field.options ?? [];
  if (field.type === 'relation' || (field.type === 'array' && field.of === 'relation'))
    out.relation = { class: field.relation?.class ?? '' };
  if (field.type === 'component' || (field.type === 'array' && field.of === 'component'))
    out.component = field.component ?? '';
  if (field.type === 'array') out.of = field.of ?? 'text';
  const v = field.validation ?? {};
  const validation: FieldDef['validation'] = {};
  if (TEXT_TYPES.has(field.type) || field.type === 'array') {
    if (typeof v.minLength === 'number') validation.minLength = v.minLength;
    if (typeof v.maxLength === 'number') validation.maxLength = v.maxLength;
  }
  if (TEXT_TYPES.has(field.type) && v.pattern) validation.pattern = v.pattern;
  if (field.type === 'number') {
    if (typeof v.min === 'number') validation.min = v.min;
    if (typeof v.max === 'number') validation.max = v.max;
  }
  if (Object.keys(validation).length > 0) out.validation = validation;
  return out;
}

/** The field list as the API takes it. */
export function cleanFields(fields: FieldDef[]): FieldDef[] {
  return fields.map(clean);
}

const num = (v: string | number) => (typeof v === 'number' ? v : undefined);

function FieldCard(props: {
  field: FieldDef;
  index: number;
  count: number;
  set: (f: FieldDef) => void;
  move: (by: -1 | 1) => void;
  remove: () => void;
  error?: string;
  opts: FieldEditorProps;
}) {
  const { field, index, set, opts } = props;
  const ro = opts.readOnly;
  const title = field.name || `Field ${index + 1}`;
  const validation = field.validation ?? {};
  const setValidation = (v: Partial<NonNullable<FieldDef['validation']>>) =>
    set({ ...field, validation: { ...validation, ...v } });
  const types = opts.inComponent ? FIELD_TYPES.filter((t) => t !== 'component') : FIELD_TYPES;
  return (
    <Paper withBorder p="sm" component="fieldset" aria-label={`Field ${index + 1}: ${title}`} style={{ margin: 0 }}>
      <Group justify="space-between" mb="xs" wrap="nowrap">
        <Text fw={600} size="sm">
          {title}{' '}
          <Text span c="dimmed" size="xs">
            ({field.type})
          </Text>
        </Text>
        {!ro && (
          <Group gap={4} wrap="nowrap">
            <ActionIcon
              variant="subtle"
              aria-label={`Move ${title} up`}
              disabled={index === 0}
              onClick={() => props.move(-1)}
            >
              <IconArrowUp size={16} />
            </ActionIcon>
            <ActionIcon
              variant="subtle"
              aria-label={`Move ${title} down`}
              disabled={index === props.count - 1}
              onClick={() => props.move(1)}
            >
              <IconArrowDown size={16} />
            </ActionIcon>
            <ActionIcon variant="subtle" color="red" aria-label={`Remove field ${title}`} onClick={props.remove}>
              <IconTrash size={16} />
            </ActionIcon>
          </Group>
        )}
      </Group>
      {props.error && (
        <Text c="red.8" size="sm" role="alert" mb="xs">
          {props.error}
        </Text>
      )}
      <Group grow align="flex-start" wrap="wrap">
        <TextInput
          label="Name"
          description="Letters, digits and _; a letter first"
          required
          readOnly={ro}
          value={field.name}
          onChange={(e) => set({ ...field, name: e.currentTarget.value })}
          miw={180}
        />
        <TextInput
          label="Label"
          readOnly={ro}
          value={field.label ?? ''}
          onChange={(e) => set({ ...field, label: e.currentTarget.value })}
          miw={180}
        />
        <Select
          label="Type"
          readOnly={ro}
          data={types.map((t) => ({ value: t, label: FIELD_TYPE_LABELS[t] }))}
          value={field.type}
          allowDeselect={false}
          onChange={(v) => v && set({ ...field, type: v as FieldType })}
          miw={220}
        />
      </Group>
      <Group mt="sm" gap="lg" wrap="wrap">
        <Checkbox
          label="Required"
          disabled={ro}
          checked={field.required === true}
          onChange={(e) => set({ ...field, required: e.currentTarget.checked })}
        />
        {!opts.inComponent && UNIQUE_TYPES.has(field.type) && (
          <Checkbox
            label="Unique"
            disabled={ro}
            checked={field.unique === true}
            onChange={(e) => set({ ...field, unique: e.currentTarget.checked })}
          />
        )}
        <Checkbox
          label="Translated (a value per language)"
          disabled={ro}
          checked={field.localized === true}
          onChange={(e) => set({ ...field, localized: e.currentTarget.checked })}
        />
      </Group>
      <Group mt="sm" grow align="flex-start" wrap="wrap">
        {(field.type === 'select' || (field.type === 'array' && field.of === 'select')) && (
          <TagsInput
            label="Choices"
            description="Press Enter after each"
            readOnly={ro}
            value={field.options ?? []}
            onChange={(options) => set({ ...field, options })}
          />
        )}
        {(field.type === 'relation' || (field.type === 'array' && field.of === 'relation')) && (
          <Select
            label="Related class"
            readOnly={ro}
            data={opts.classNames}
            value={field.relation?.class || null}
            onChange={(v) => set({ ...field, relation: { class: v ?? '' } })}
            searchable
          />
        )}
        {field.type === 'array' && (
          <Select
            label="Items"
            readOnly={ro}
            data={ITEM_TYPES.filter((t) => !(opts.inComponent && t === 'component')).map((t) => ({
              value: t,
              label: FIELD_TYPE_LABELS[t],
            }))}
            value={field.of ?? 'text'}
            allowDeselect={false}
            onChange={(v) => set({ ...field, of: v ?? 'text' })}
          />
        )}
        {(field.type === 'component' || (field.type === 'array' && field.of === 'component')) && (
          <Select
            label="Component"
            readOnly={ro}
            data={opts.componentNames}
            value={field.component || null}
            onChange={(v) => set({ ...field, component: v ?? '' })}
            nothingFoundMessage="No component yet: create one under Components"
            searchable
          />
        )}
        {(TEXT_TYPES.has(field.type) || field.type === 'array') && (
          <>
            <NumberInput
              label={field.type === 'array' ? 'At least (items)' : 'Shortest'}
              readOnly={ro}
              min={0}
              value={validation.minLength ?? ''}
              onChange={(v) => setValidation({ minLength: num(v) })}
            />
            <NumberInput
              label={field.type === 'array' ? 'At most (items)' : 'Longest'}
              readOnly={ro}
              min={0}
              value={validation.maxLength ?? ''}
              onChange={(v) => setValidation({ maxLength: num(v) })}
            />
          </>
        )}
        {TEXT_TYPES.has(field.type) && (
          <TextInput
            label="Pattern"
            description="A regular expression, without lookaround or backreferences"
            readOnly={ro}
            value={validation.pattern ?? ''}
            onChange={(e) => setValidation({ pattern: e.currentTarget.value || undefined })}
          />
        )}
        {field.type === 'number' && (
          <>
            <NumberInput
              label="Smallest"
              readOnly={ro}
              value={validation.min ?? ''}
              onChange={(v) => setValidation({ min: num(v) })}
            />
            <NumberInput
              label="Largest"
              readOnly={ro}
              value={validation.max ?? ''}
              onChange={(v) => setValidation({ max: num(v) })}
            />
          </>
        )}
      </Group>
    </Paper>
  );
}

/**
 * The field list of a class or component: every type the data plugin supports with its options
 * (choices, related class, component, list items, lengths, pattern, range), required, unique and
 * translated, in order.
 */
export function FieldEditor(props: FieldEditorProps) {
  const { fields, onChange } = props;
  const errorAt = (i: number) => {
    const e = props.error;
    if (!e || !(e.field === `fields.${i}` || e.field.startsWith(`fields.${i}.`))) return undefined;
    return e.message;
  };
  return (
    <Stack gap="sm">
      {fields.length === 0 && (
        <Text c="dimmed" size="sm">
          No fields yet.
        </Text>
      )}
      {fields.map((field, i) => (
        <FieldCard
          // Fields have no id before they are saved; their position is their identity here.
          // biome-ignore lint/suspicious/noArrayIndexKey: the position is the field's identity while editing
          key={i}
          field={field}
          index={i}
          count={fields.length}
          opts={props}
          error={errorAt(i)}
          set={(f) => onChange(fields.map((x, j) => (j === i ? f : x)))}
          remove={() => onChange(fields.filter((_, j) => j !== i))}
          move={(by) => {
            const next = fields.slice();
            [next[i], next[i + by]] = [next[i + by], next[i]];
            onChange(next);
          }}
        />
      ))}
      {!props.readOnly && (
        <Group>
          <Button
            variant="light"
            leftSection={<IconPlus size={16} />}
            onClick={() => onChange([...fields, { name: '', type: 'text' }])}
          >
            Add a field
          </Button>
        </Group>
      )}
    </Stack>
  );
}
