import { Button, Group, Modal, Stack } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { type QueryKey, useQueryClient } from '@tanstack/react-query';
import { IconPlus } from '@tabler/icons-react';
import type { ReactNode } from 'react';
import { useNavigate } from 'react-router';
import { showSaved, showSaveError } from './forms';

/**
 * A screen's "New …" button and the dialog it opens (titled like the button). `children` gets the
 * function that closes the dialog, for the form's Cancel and for after a save (`CreateForm`).
 */
export function CreateDialog(props: { label: string; children: (close: () => void) => ReactNode }) {
  const [opened, { open, close }] = useDisclosure();
  return (
    <>
      <Button leftSection={<IconPlus size={16} aria-hidden />} onClick={open}>
        {props.label}
      </Button>
      <Modal opened={opened} onClose={close} title={props.label}>
        {props.children(close)}
      </Modal>
    </>
  );
}

/** The bits of a Mantine form (`useForm`) `CreateForm` uses. */
interface CreateFormState<V> {
  onSubmit(handler: (values: V) => Promise<void>): (event?: React.FormEvent<HTMLFormElement>) => void;
  setFieldError(path: string, error: string): void;
  values: object;
  submitting: boolean;
}

/**
 * The form of a `CreateDialog`: its fields, Cancel and the submit button. On submit it runs
 * `create` with the form's values; on success it says `saved(record)`, invalidates `invalidate`,
 * closes the dialog and, with `goTo`, opens the new record. A 400 naming a field lands on that field.
 */
export function CreateForm<V, R>(props: {
  form: CreateFormState<V>;
  create: (values: V) => Promise<R>;
  saved: (record: R) => string;
  invalidate: QueryKey;
  goTo?: (record: R) => string;
  submitLabel: string;
  onClose: () => void;
  children: ReactNode;
}) {
  const client = useQueryClient();
  const navigate = useNavigate();
  const { form } = props;
  return (
    <form
      onSubmit={form.onSubmit(async (values) => {
        try {
          const record = await props.create(values);
          showSaved(props.saved(record));
          await client.invalidateQueries({ queryKey: props.invalidate });
          props.onClose();
          if (props.goTo) await navigate(props.goTo(record));
        } catch (err) {
          showSaveError(err, form);
        }
      })}
    >
      <Stack>
        {props.children}
        <Group justify="flex-end">
          <Button variant="default" onClick={props.onClose}>
            Cancel
          </Button>
          <Button type="submit" loading={form.submitting}>
            {props.submitLabel}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
