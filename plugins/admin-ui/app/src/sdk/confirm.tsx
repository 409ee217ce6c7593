import { Text } from '@mantine/core';
import { modals } from '@mantine/modals';
import type { ReactNode } from 'react';

/**
 * Asks before a destructive action, saying exactly what it removes. Resolves true when confirmed.
 * `removes` is the sentence the dialog shows ("The user ada@example.com and their 3 sessions.").
 */
export function confirmDestructive(opts: {
  title: string;
  removes: ReactNode;
  confirmLabel: string;
}): Promise<boolean> {
  return new Promise((resolve) => {
    modals.openConfirmModal({
      title: opts.title,
      // The dialog's close button has only an icon: it needs a name (axe: button-name).
      closeButtonProps: { 'aria-label': 'Close' },
      children: <Text size="sm">This removes: {opts.removes} It cannot be undone.</Text>,
      labels: { confirm: opts.confirmLabel, cancel: 'Cancel' },
      confirmProps: { color: 'red' },
      onConfirm: () => resolve(true),
      onCancel: () => resolve(false),
      onClose: () => resolve(false),
    });
  });
}
