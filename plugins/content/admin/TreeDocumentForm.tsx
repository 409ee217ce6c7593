import { Button, Group, Stack, TextInput } from '@mantine/core';
import { type ReactNode, useState } from 'react';
import { ApiError, showSaved, showSaveError } from '../../admin-ui/app/src/sdk/index.ts';
import { type Answer, ConflictNotice, useStoredVersion } from './edit-conflict.tsx';
import { parseTree, TreeInput } from './tree-input.tsx';

/** A form's values: text, switches and tag lists; the node-tree fields hold their JSON text. */
export type DocumentValues = Record<string, string | boolean | string[]>;

/** A node-tree field of the form (JSON text in the form, parsed before saving). */
export interface TreeField<V> {
  name: keyof V & string;
  label: string;
  description?: string;
}

/** What the form hands the screen's own fields. */
export interface DocumentFields<V extends DocumentValues> {
  values: V;
  set: <K extends keyof V>(field: K, value: V[K]) => void;
  errors: Partial<Record<keyof V, string>>;
  readOnly: boolean;
}

/** The record's name, the first field of every such screen. */
export function NameField<V extends DocumentValues & { name: string }>({
  values,
  set,
  errors,
  readOnly,
}: DocumentFields<V>) {
  return (
    <TextInput
      label="Name"
      required
      readOnly={readOnly}
      value={values.name}
      error={errors.name}
      onChange={(e) => set('name', e.currentTarget.value as V['name'])}
      miw={220}
    />
  );
}

/**
 * The dashboard's form of a record with node trees (snippet, page template, website layout): the
 * screen's own fields (`fields`), the trees as JSON, and the save, which sends `If-Match` with the
 * version the form was loaded from (`useStoredVersion`): a record changed elsewhere since is not
 * overwritten, the form says so and offers the stored version. A 400 naming a field lands on it (an
 * unknown or nested field on the first tree).
 */
export function TreeDocumentForm<R extends { updatedAt: string; name: string }, V extends DocumentValues>(props: {
  record: R;
  /** `snippet`, `template`, `layout`: the save button and the messages name it. */
  what: string;
  canEdit: boolean;
  valuesOf: (record: R) => V;
  trees: TreeField<V>[];
  /** Problems found before asking the API, by field. */
  check?: (values: V) => Partial<Record<keyof V, string>>;
  /** The write (`PATCH`) of the values, the trees parsed, with `If-Match`. */
  write: (values: V, trees: Record<string, unknown>, ifMatch: string) => Promise<Answer<R>>;
  /** The read (`GET`) of the stored record. */
  read: () => Promise<Answer<R>>;
  /** Puts a record saved or loaded into the screen's query cache. */
  store: (record: R) => void;
  /** After a successful save (lists to refresh). */
  onSaved?: (record: R) => Promise<void>;
  fields?: (form: DocumentFields<V>) => ReactNode;
}) {
  const { what, canEdit, trees } = props;
  const [values, setValues] = useState(() => props.valuesOf(props.record));
  const [errors, setErrors] = useState<Partial<Record<keyof V, string>>>({});
  const stored = useStoredVersion({
    record: props.record,
    valuesOf: props.valuesOf,
    values,
    setValues,
    read: props.read,
    store: props.store,
  });
  const set = <K extends keyof V>(field: K, value: V[K]) => setValues((v) => ({ ...v, [field]: value }));

  const save = async () => {
    const found = { ...props.check?.(values) } as Partial<Record<keyof V, string>>;
    const parsed: Record<string, unknown> = {};
    for (const tree of trees) {
      const r = parseTree(values[tree.name] as string);
      if (r.error) found[tree.name] = r.error;
      else parsed[tree.name] = r.value;
    }
    setErrors(found);
    if (Object.values(found).some(Boolean)) return;
    try {
      const saved = await stored.save((ifMatch) => props.write(values, parsed, ifMatch));
      if (!saved) return;
      showSaved(`${saved.name} saved`);
      await props.onSaved?.(saved);
    } catch (err) {
      if (err instanceof ApiError && err.field) {
        const first = err.field.split('.')[0];
        const field = Object.hasOwn(values, first) ? first : trees[0]?.name;
        if (field) setErrors({ [field]: err.message } as Partial<Record<keyof V, string>>);
      }
      showSaveError(err);
    }
  };

  const readOnly = !canEdit;
  return (
    <form
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
    >
      <Stack>
        {props.fields?.({ values, set, errors, readOnly })}
        {trees.map((tree) => (
          <TreeInput
            key={tree.name}
            label={tree.label}
            description={tree.description}
            value={values[tree.name] as string}
            error={errors[tree.name]}
            readOnly={readOnly}
            onChange={(text) => set(tree.name, text as V[typeof tree.name])}
          />
        ))}
        <ConflictNotice what={what} state={stored} />
        {canEdit && (
          <Group>
            <Button type="submit" loading={stored.busy}>
              Save the {what}
            </Button>
          </Group>
        )}
      </Stack>
    </form>
  );
}
