import { Card, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { type ComponentType, lazy, Suspense } from 'react';
import { Link } from 'react-router';
import { menuFor, WIDGETS } from '../screens';
import { EmptyState, LoadingState, PageHeader } from '../sdk/page';
import { type AdminWidget, mayOpen } from '../sdk/screens';
import { useMe } from './session';

const widgetComponents = new Map<string, ComponentType>();
function widgetOf(w: AdminWidget): ComponentType {
  let c = widgetComponents.get(w.id);
  if (!c) {
    c = lazy(w.load);
    widgetComponents.set(w.id, c);
  }
  return c;
}

/** `/admin`: the plugins' home widgets (counts, recent activity) and the screens this user may open. */
export function Home() {
  const { data: me } = useMe();
  const permissions = me?.permissions ?? [];
  const groups = menuFor(permissions);
  const widgets = WIDGETS.filter((w) => mayOpen(w, permissions));
  return (
    <Stack>
      <PageHeader title="Dashboard" description={`Signed in as ${me?.displayName || me?.email}`} />
      {widgets.length > 0 && (
        <SimpleGrid cols={{ base: 1, md: 2 }}>
          {widgets.map((w) => {
            const Widget = widgetOf(w);
            return (
              <Card withBorder key={w.id} padding="md">
                <Suspense fallback={<LoadingState />}>
                  <Widget />
                </Suspense>
              </Card>
            );
          })}
        </SimpleGrid>
      )}
      {groups.length === 0 && (
        <EmptyState title="Nothing to manage yet">
          Your account has no permission that opens a screen. Ask an administrator for a role.
        </EmptyState>
      )}
      {groups.map(({ group, screens }) => (
        <section key={group} aria-labelledby={`home-${group}`}>
          <Title order={2} size="h4" mb="xs" id={`home-${group}`}>
            {group}
          </Title>
          <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }}>
            {screens.map((s) => {
              const Icon = s.menu?.icon;
              return (
                <Card
                  key={s.id}
                  withBorder
                  component={Link}
                  to={`/admin/${s.path}`}
                  padding="md"
                  style={{ display: 'flex', gap: 12, alignItems: 'center', flexDirection: 'row' }}
                >
                  {Icon && <Icon size={24} stroke={1.5} aria-hidden />}
                  <Text fw={600}>{s.menu?.label ?? s.label}</Text>
                </Card>
              );
            })}
          </SimpleGrid>
        </section>
      ))}
    </Stack>
  );
}
