import { notifications } from '@mantine/notifications';
import { useState } from 'react';
import { ApiError } from '../api/client';

/** The close button of a notification needs a name (axe: button-name). */
const DISMISS = { 'aria-label': 'Dismiss' };

/** The bits of a Mantine form (`useForm`) the helpers use. */
interface FormLike {
  setFieldError(path: string, error: string): void;
  values: object;
}

/**
 * Shows a failed save where it belongs: a 400 that names a field of the form lands on that field,
 * anything else becomes a notification. Returns the message shown.
 */
export function showSaveError(error: unknown, form?: FormLike): string {
  const message = error instanceof Error ? error.message : 'The change was not saved';
  if (form && error instanceof ApiError && error.field && Object.hasOwn(form.values, error.field)) {
    form.setFieldError(error.field, message);
    return message;
  }
  // Its text is its id: the same failure again (a retried save, a double click) is not a second toast.
  notifications.show({
    id: `not-saved:${message}`,
    color: 'red',
    title: 'Not saved',
    message,
    closeButtonProps: DISMISS,
  });
  return message;
}

/** A short confirmation after a successful change; the same one twice shows once. */
export function showSaved(message: string): void {
  notifications.show({ id: `saved:${message}`, color: 'green', message, closeButtonProps: DISMISS });
}

/**
 * The state of a hand-built form's save: `run(save)` marks it busy, and when `save` throws, a 400's
 * `field` becomes `error` (`errorOf('name')` gives the message for that input) and the failure is
 * also shown as a notification.
 */
export function useSaving() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<{ field: string; message: string }>();
  const run = async (save: () => Promise<void>) => {
    setBusy(true);
    setError(undefined);
    try {
      await save();
    } catch (err) {
      if (err instanceof ApiError && err.field) setError({ field: err.field, message: err.message });
      showSaveError(err);
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, errorOf: (field: string) => (error?.field === field ? error.message : undefined), run };
}
