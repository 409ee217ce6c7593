import { Alert } from '@mantine/core';
import { IconLock } from '@tabler/icons-react';
import { type ComponentType, lazy, Suspense } from 'react';
import { LoadingState, PageHeader } from '../sdk/page';
import { type AdminScreen, mayOpen } from '../sdk/screens';
import { useMe } from './session';

const components = new Map<string, ComponentType>();

/** One lazy component per screen, made once (React.lazy must not be recreated on render). */
function componentOf(screen: AdminScreen): ComponentType {
  let c = components.get(screen.id);
  if (!c) {
    c = lazy(screen.load);
    components.set(screen.id, c);
  }
  return c;
}

/** Shown instead of a screen the user's keys do not open (a deep link, a bookmark). */
export function Forbidden({ title }: { title: string }) {
  return (
    <>
      <PageHeader title={title} />
      <Alert color="orange" icon={<IconLock />} title="Not allowed" role="alert">
        Your account does not have the permission this screen needs. Ask an administrator if you should have it.
      </Alert>
    </>
  );
}

/** A plugin's screen, guarded by its permission and loaded on first visit. */
export function ScreenRoute({ screen }: { screen: AdminScreen }) {
  const me = useMe();
  if (!me.data) return <LoadingState />;
  if (!mayOpen(screen, me.data.permissions)) return <Forbidden title={screen.label} />;
  const Screen = componentOf(screen);
  return (
    <Suspense fallback={<LoadingState label={`Loading ${screen.label}`} />}>
      <Screen />
    </Suspense>
  );
}
