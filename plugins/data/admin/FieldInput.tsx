import { Fieldset, JsonInput, NumberInput, Select, Stack, Switch, TagsInput, Textarea, TextInput } from '@mantine/core';
import { DateInput, DateTimePicker } from '@mantine/dates';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { queryObjects } from './data-api.ts';
import { type DataComponent, type FieldDef, titleOf } from './model.ts';

export interface FieldInputProps {
  field: FieldDef;
  value: unknown;
  onChange: (value: unknown) => void;
  components: DataComponent[];
  error?: string;
  /** Said under the label (for example "shared by every language"). */
  description?: string;
  readOnly?: boolean;
  /** Errors of nested values, by attribute path (`seo.metaTitle`). */
  errorAt?: (path: string) => string | undefined;
  path?: string;
}

const labelOf = (f: FieldDef) => f.label || f.name;
const TAG_ITEMS = new Set(['text', 'slug', 'select', 'asset', 'markdown', 'richtext']);

/** A JSON value edited as text: the value changes when the text is valid JSON. */
function JsonField(props: FieldInputProps) {
  const [text, setText] = useState(() => (props.value === undefined ? '' : JSON.stringify(props.value, null, 2)));
  const [invalid, setInvalid] = useState(false);
  useEffect(() => {
    setText((current) => {
      try {
        if (current && JSON.stringify(JSON.parse(current)) === JSON.stringify(props.value)) return current;
      } catch {
        return current;
      }
      return props.value === undefined || props.value === null ? '' : JSON.stringify(props.value, null, 2);
    });
  }, [props.value]);
  return (
    <JsonInput
      label={labelOf(props.field)}
      description={props.description}
      required={props.field.required}
      readOnly={props.readOnly}
      autosize
      minRows={3}
      value={text}
      error={props.error ?? (invalid ? 'Not valid JSON' : undefined)}
      onChange={(t) => {
        setText(t);
        if (t.trim() === '') {
          setInvalid(false);
          props.onChange(null);
          return;
        }
        try {
          props.onChange(JSON.parse(t));
          setInvalid(false);
        } catch {
          setInvalid(true);
        }
      }}
    />
  );
}

/** A relation: an object of the related class, found by its title or key. */
function RelationField(props: FieldInputProps) {
  const target = props.field.relation?.class ?? '';
  const [search, setSearch] = useState('');
  const options = useQuery({
    queryKey: ['data', 'objects', 'relation-options', target, search],
    enabled: Boolean(target),
    queryFn: async () => {
      const page = await queryObjects({
        className: target,
        limit: 50,
        includeTotal: false,
        filters: search ? [{ field: 'key', op: 'startsWith', value: search }] : [],
      });
      return page.objects.map((o) => ({ value: o.id, label: `${titleOf(undefined, o)} (${o.locale})` }));
    },
    placeholderData: (previous) => previous,
  });
  const value = typeof props.value === 'string' ? props.value : null;
  const data = options.data ?? [];
  const withCurrent = value && !data.some((d) => d.value === value) ? [{ value, label: value }, ...data] : data;
  return (
    <Select
      label={labelOf(props.field)}
      description={props.description ?? `An object of ${target}; type the start of its key to search`}
      required={props.field.required}
      readOnly={props.readOnly}
      data={withCurrent}
      value={value}
      searchable
      searchValue={search}
      onSearchChange={setSearch}
      clearable
      error={props.error}
      onChange={(v) => props.onChange(v ?? null)}
    />
  );
}

/** The input of one attribute, by its field type; components nest their own fields. */
export function FieldInput(props: FieldInputProps) {
  const { field, value, onChange } = props;
  const common = {
    label: labelOf(field),
    description: props.description,
    required: field.required,
    readOnly: props.readOnly,
    error: props.error,
  };
  const text = typeof value === 'string' ? value : '';
  switch (field.type) {
    case 'text':
    case 'slug':
    case 'asset':
      return <TextInput {...common} value={text} onChange={(e) => onChange(e.currentTarget.value || null)} />;
    case 'markdown':
    case 'richtext':
      return (
        <Textarea
          {...common}
          description={common.description ?? (field.type === 'richtext' ? 'HTML' : 'Markdown')}
          autosize
          minRows={3}
          value={text}
          onChange={(e) => onChange(e.currentTarget.value || null)}
        />
      );
    case 'number':
      return (
        <NumberInput
          {...common}
          value={typeof value === 'number' ? value : ''}
          onChange={(v) => onChange(typeof v === 'number' ? v : null)}
        />
      );
    case 'boolean':
      return (
        <Switch
          label={common.label}
          description={common.description}
          disabled={props.readOnly}
          error={props.error}
          checked={value === true}
          onChange={(e) => onChange(e.currentTarget.checked)}
        />
      );
    case 'date':
      return (
        <DateInput
          {...common}
          valueFormat="YYYY-MM-DD"
          value={text || null}
          onChange={(v) => onChange(v || null)}
          clearable
        />
      );
    case 'datetime':
      // The field holds UTC instants; the picker shows and takes them in UTC.
      return (
        <DateTimePicker
          {...common}
          label={`${common.label} (UTC)`}
          valueFormat="YYYY-MM-DD HH:mm"
          value={text ? text.slice(0, 19).replace('T', ' ') : null}
          onChange={(v) => onChange(v ? `${v.replace(' ', 'T')}Z` : null)}
          clearable
        />
      );
    case 'select':
      return (
        <Select
          {...common}
          data={field.options ?? []}
          value={text || null}
          onChange={(v) => onChange(v ?? null)}
          clearable
        />
      );
    case 'relation':
      return <RelationField {...props} />;
    case 'array':
      if (TAG_ITEMS.has(field.of ?? 'text'))
        return (
          <TagsInput
            {...common}
            description={common.description ?? 'Press Enter after each item'}
            data={field.of === 'select' ? (field.options ?? []) : undefined}
            value={Array.isArray(value) ? value.map(String) : []}
            onChange={(items) => onChange(items)}
          />
        );
      return <JsonField {...props} description={props.description ?? `A JSON list of ${field.of}`} />;
    case 'component': {
      const component = props.components.find((c) => c.name === field.component);
      const object =
        value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
      if (!component) return <JsonField {...props} />;
      const path = props.path ?? field.name;
      return (
        <Fieldset legend={common.label}>
          <Stack gap="sm">
            {component.fields.map((f) => (
              <FieldInput
                key={f.name}
                field={f}
                value={object[f.name]}
                components={props.components}
                readOnly={props.readOnly}
                path={`${path}.${f.name}`}
                errorAt={props.errorAt}
                error={props.errorAt?.(`${path}.${f.name}`)}
                onChange={(v) => onChange({ ...object, [f.name]: v })}
              />
            ))}
          </Stack>
        </Fieldset>
      );
    }
    default:
      return <JsonField {...props} />;
  }
}
