import { Alert, Button, Group } from '@mantine/core';
import type { ReactNode } from 'react';

/**
 * A write refused with 412: the record changed elsewhere since it was read, nothing was written.
 * The editor's state stays until the user decides: save theirs over (`If-Match: *`) or load theirs.
 */
export function ConflictAlert(props: {
  what: string;
  children?: ReactNode;
  onSaveMine(): void;
  onLoadTheirs(): void;
  loadTheirsLabel?: string;
}) {
  return (
    <Alert color="red" title={`This ${props.what} was changed elsewhere`} m="xs">
      {props.children ??
        'Someone (or another tab) saved it after you opened it, so your change was not stored and nothing was overwritten.'}
      <Group gap="xs" mt={4}>
        <Button size="compact-sm" color="red" onClick={props.onSaveMine}>
          Save mine over theirs
        </Button>
        <Button size="compact-sm" variant="default" onClick={props.onLoadTheirs}>
          {props.loadTheirsLabel ?? 'Load their version'}
        </Button>
      </Group>
    </Alert>
  );
}
