import { Card, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { Link } from 'react-router';
import { menuFor } from '../screens';
import { EmptyState, PageHeader } from '../sdk/page';
import { useMe } from './session';

/** `/admin`: a greeting and the screens this user may open, by group. */
export function Home() {
  const { data: me } = useMe();
  const groups = menuFor(me?.permissions ?? []);
  return (
    <Stack>
      <PageHeader title="Dashboard" description={`Signed in as ${me?.displayName || me?.email}`} />
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
                  {Icon && <Icon size={24} stroke={1.5} />}
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
