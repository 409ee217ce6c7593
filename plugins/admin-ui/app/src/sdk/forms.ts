import { notifications } from '@mantine/notifications';
import { ApiError } from '../api/client';

/** A name for the notification's close button (axe: every button needs one). */
const CLOSE = { 'aria-label': 'Close the message' };

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
  notifications.show({ color: 'red', title: 'Not saved', message, closeButtonProps: CLOSE });
  return message;
}

/** A short confirmation after a successful change. */
export function showSaved(message: string): void {
  notifications.show({ color: 'green', message, closeButtonProps: CLOSE });
}
