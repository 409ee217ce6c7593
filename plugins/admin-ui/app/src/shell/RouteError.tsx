import { Anchor, Button, Center, Stack, Text, Title } from '@mantine/core';
import { Link, useRouteError } from 'react-router';
import { ErrorState } from '../sdk/page';

/** A screen that threw while rendering: the rest of the dashboard keeps working. */
export function RouteError() {
  const error = useRouteError();
  return (
    <Stack p="lg" maw={640}>
      <Title order={1} size="h2">
        This screen failed
      </Title>
      <ErrorState error={error} />
      <Button variant="light" onClick={() => window.location.reload()} w="fit-content">
        Reload
      </Button>
    </Stack>
  );
}

/** No screen at this address. */
export function NotFound() {
  return (
    <Center p="xl">
      <Stack align="center">
        <Title order={1} size="h2">
          Page not found
        </Title>
        <Text c="dimmed">Nothing lives at this address.</Text>
        <Anchor component={Link} to="/admin">
          Go to the dashboard
        </Anchor>
      </Stack>
    </Center>
  );
}
