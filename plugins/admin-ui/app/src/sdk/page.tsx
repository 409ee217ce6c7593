import { Alert, Button, Center, Group, Loader, Stack, Text, Title, VisuallyHidden } from '@mantine/core';
import { IconAlertTriangle, IconLock } from '@tabler/icons-react';
import { type ReactNode, useEffect, useRef } from 'react';
import { ApiError } from '../api/client';

/**
 * The top of every screen: its `h1` (focused when the screen opens, so keyboard and screen-reader
 * users land on it after navigating), a line of description and the screen's main actions.
 */
export function PageHeader(props: { title: string; description?: ReactNode; actions?: ReactNode }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${props.title} · Content platform`;
    heading.current?.focus();
  }, [props.title]);
  return (
    <Group justify="space-between" align="flex-start" mb="lg" wrap="wrap">
      <Stack gap={4}>
        <Title order={1} size="h2" ref={heading} tabIndex={-1} style={{ outline: 'none' }}>
          {props.title}
        </Title>
        {props.description && (
          <Text c="dimmed" size="sm">
            {props.description}
          </Text>
        )}
      </Stack>
      {props.actions && <Group gap="sm">{props.actions}</Group>}
    </Group>
  );
}

/** A failed request: 403 says the user may not do this; anything else says what failed, with a retry. */
export function ErrorState({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  if (error instanceof ApiError && error.status === 403)
    return (
      <Alert color="orange" icon={<IconLock />} title="Not allowed" role="alert">
        Your account does not have the permission this needs. Ask an administrator if you should have it.
      </Alert>
    );
  const message = error instanceof Error ? error.message : 'Something went wrong';
  return (
    <Alert color="red" icon={<IconAlertTriangle />} title="Could not load this" role="alert">
      <Stack gap="xs" align="flex-start">
        <Text size="sm">{message}</Text>
        {onRetry && (
          <Button size="xs" variant="light" color="red" onClick={onRetry}>
            Try again
          </Button>
        )}
      </Stack>
    </Alert>
  );
}

/** The loading state of a screen or a section. */
export function LoadingState({ label = 'Loading' }: { label?: string }) {
  return (
    <Center py="xl" role="status" aria-live="polite">
      <Loader size="sm" />
      <VisuallyHidden>{label}</VisuallyHidden>
    </Center>
  );
}

/** An empty list: what is missing and, when the user may, how to add the first one. */
export function EmptyState({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <Stack align="center" py="xl" gap="xs">
      <Text fw={600}>{title}</Text>
      {children && (
        <Text c="dimmed" size="sm" ta="center">
          {children}
        </Text>
      )}
    </Stack>
  );
}

/** Loading, error or the content of a query (TanStack Query's result). */
export function QueryState<T>(props: {
  query: { data: T | undefined; error: unknown; isPending: boolean; refetch: () => unknown };
  children: (data: T) => ReactNode;
}) {
  const { query } = props;
  if (query.isPending) return <LoadingState />;
  if (query.error) return <ErrorState error={query.error} onRetry={() => query.refetch()} />;
  return <>{props.children(query.data as T)}</>;
}
