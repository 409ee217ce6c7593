import { modals } from '@mantine/modals';
import { Text } from '@mantine/core';
import { useEffect, useRef } from 'react';
import { useBlocker } from 'react-router';
import { discardUnsavedChanges, hasUnsavedChanges, watchForms } from '../sdk/unsaved-changes';

/** Asks whether to leave a screen whose form holds unsaved changes. Resolves true to leave (the changes go). */
export function confirmLeavingUnsaved(): Promise<boolean> {
  if (!hasUnsavedChanges()) return Promise.resolve(true);
  return new Promise((resolve) => {
    modals.openConfirmModal({
      title: 'Leave without saving?',
      children: (
        <Text size="sm">The changes you made on this screen are not saved. If you leave now, they are lost.</Text>
      ),
      labels: { confirm: 'Leave and discard the changes', cancel: 'Stay on this screen' },
      confirmProps: { color: 'red' },
      // Staying is the safe answer, and the one a stray Enter gives.
      cancelProps: { 'data-autofocus': true },
      onConfirm: () => {
        discardUnsavedChanges();
        resolve(true);
      },
      onCancel: () => resolve(false),
      onClose: () => resolve(false),
    });
  });
}

/**
 * The dashboard's unsaved-changes guard (`sdk/unsaved-changes.ts`): a navigation inside the app to
 * another screen asks first, a reload or a closed tab gets the browser's own warning.
 */
export function LeaveGuard() {
  useEffect(() => watchForms(), []);
  const blocker = useBlocker(
    ({ currentLocation, nextLocation }) => currentLocation.pathname !== nextLocation.pathname && hasUnsavedChanges(),
  );
  const current = useRef(blocker);
  current.current = blocker;
  useEffect(() => {
    if (blocker.state !== 'blocked') return;
    void confirmLeavingUnsaved().then((leave) => (leave ? current.current.proceed?.() : current.current.reset?.()));
  }, [blocker.state]);
  useEffect(() => {
    const warn = (event: BeforeUnloadEvent) => {
      if (hasUnsavedChanges()) event.preventDefault();
    };
    window.addEventListener('beforeunload', warn);
    return () => window.removeEventListener('beforeunload', warn);
  }, []);
  return null;
}
