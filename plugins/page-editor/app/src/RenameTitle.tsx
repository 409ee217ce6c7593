import { ActionIcon, Button, Group, Text, TextInput, Title } from '@mantine/core';
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { ApiError } from '../../../admin-ui/app/src/sdk/index.ts';

/** A pencil, drawn inline (the editor loads no icon set). */
function PencilIcon() {
  return (
    <svg
      width="16"
      height="16"
      viewBox="0 0 24 24"
      fill="none"
      stroke="currentColor"
      strokeWidth="2"
      aria-hidden="true"
    >
      <path d="M12 20h9" />
      <path d="M16.5 3.5a2.1 2.1 0 0 1 3 3L7 19l-4 1 1-4Z" />
    </svg>
  );
}

/**
 * The editor bar's heading, "Editing template: Hero", and for a user who may change the record an
 * edit button beside it that opens a small form: Enter stores the new name at once (`If-Match`),
 * Escape or Cancel closes it. A rename refused with 412 says so in the form and offers to rename
 * anyway (`If-Match: *`); another refusal shows the API's message at the field.
 */
export function RenameTitle(props: {
  /** "template", "kit"… */
  what: string;
  name: string;
  mayEdit: boolean;
  /** Stores the name; `over`: over a change made elsewhere. Throws the API's error. */
  onRename(name: string, over: boolean): Promise<void>;
}) {
  const [open, setOpen] = useState(false);
  const [value, setValue] = useState(props.name);
  const [error, setError] = useState<string | null>(null);
  const [conflict, setConflict] = useState(false);
  const [busy, setBusy] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  const wasOpen = useRef(false);
  // Closing gives the focus back to the edit button.
  useEffect(() => {
    if (wasOpen.current && !open) button.current?.focus();
    wasOpen.current = open;
  }, [open]);

  const close = () => {
    setOpen(false);
    setError(null);
    setConflict(false);
  };
  const store = async (over: boolean) => {
    const name = value.trim();
    if (!name) {
      setError('A name is required');
      return;
    }
    setBusy(true);
    try {
      await props.onRename(name, over);
      close();
    } catch (err) {
      const stale = err instanceof ApiError && err.status === 412;
      setConflict(stale);
      setError(
        stale
          ? `This ${props.what} was changed elsewhere since you opened it: nothing was renamed.`
          : (err as Error).message,
      );
    } finally {
      setBusy(false);
    }
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void store(false);
  };

  return (
    <>
      <Group gap={4} wrap="nowrap" style={{ marginRight: 'auto', minWidth: 0 }}>
        <Title order={1} size="h4" style={{ overflowWrap: 'anywhere' }}>
          Editing {props.what}: {props.name || '(untitled)'}
        </Title>
        {props.mayEdit && !open && (
          <ActionIcon
            ref={button}
            variant="subtle"
            color="gray"
            aria-label={`Rename the ${props.what}`}
            onClick={() => {
              setValue(props.name);
              setOpen(true);
            }}
          >
            <PencilIcon />
          </ActionIcon>
        )}
      </Group>
      {open && (
        <form
          className="cms-rename"
          aria-label={`Rename the ${props.what}`}
          onSubmit={submit}
          onKeyDown={(event) => {
            if (event.key === 'Escape') {
              event.preventDefault();
              close();
            }
          }}
        >
          <TextInput
            size="xs"
            label={`New name of the ${props.what}`}
            value={value}
            error={error}
            data-autofocus
            autoFocus
            maxLength={200}
            onChange={(e) => {
              setValue(e.currentTarget.value);
              setError(null);
              setConflict(false);
            }}
          />
          <Group gap="xs" mt={4}>
            <Button size="compact-sm" type="submit" loading={busy}>
              Save the name
            </Button>
            {conflict && (
              <Button size="compact-sm" color="red" variant="light" onClick={() => void store(true)}>
                Rename anyway
              </Button>
            )}
            <Button size="compact-sm" variant="default" onClick={close}>
              Cancel
            </Button>
          </Group>
          <Text size="xs" c="dimmed" mt={2}>
            Enter saves, Escape cancels.
          </Text>
        </form>
      )}
    </>
  );
}
