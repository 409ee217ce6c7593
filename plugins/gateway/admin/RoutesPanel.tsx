import {
  Badge,
  Button,
  Code,
  Group,
  Paper,
  Select,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
  VisuallyHidden,
} from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { IconTrash } from '@tabler/icons-react';
import { useState } from 'react';
import {
  api,
  confirmDestructive,
  EmptyState,
  QueryState,
  showSaved,
  showSaveError,
  unwrap,
} from '../../admin-ui/app/src/sdk/index.ts';
import type { Route } from './model.ts';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] as const;

export const routesKey = (endpointId: string) => ['gateway', 'routes', endpointId];

function AddRoute({ endpointId }: { endpointId: string }) {
  const client = useQueryClient();
  const [method, setMethod] = useState<(typeof METHODS)[number]>('GET');
  const [path, setPath] = useState('');
  const [name, setName] = useState('');
  const [error, setError] = useState<string>();
  return (
    <form
      aria-label="Add a route"
      onSubmit={async (e) => {
        e.preventDefault();
        setError(undefined);
        try {
          const route = unwrap(
            await api.POST('/api/v1/gateway/endpoints/{id}/routes', {
              params: { path: { id: endpointId } },
              body: { method, path, ...(name ? { name } : {}) },
            }),
          );
          showSaved(`Route ${route.method} ${route.path} added`);
          setPath('');
          setName('');
          await client.invalidateQueries({ queryKey: routesKey(endpointId) });
        } catch (err) {
          setError(err instanceof Error ? err.message : 'Not added');
        }
      }}
    >
      <Group align="flex-start" wrap="wrap">
        <Select
          label="Method"
          data={[...METHODS]}
          value={method}
          onChange={(m) => m && setMethod(m as (typeof METHODS)[number])}
          allowDeselect={false}
          w={120}
        />
        <TextInput
          label="Path"
          placeholder="/users/{id}"
          description="Relative to the base URL; {name} for a parameter"
          value={path}
          onChange={(e) => setPath(e.currentTarget.value)}
          error={error}
          required
        />
        <TextInput label="Name (optional)" value={name} onChange={(e) => setName(e.currentTarget.value)} />
        <Button type="submit" mt={25} disabled={!path.startsWith('/')}>
          Add route
        </Button>
      </Group>
    </form>
  );
}

/** The routes of an endpoint: list, add, delete. */
export function RoutesPanel({ endpointId }: { endpointId: string }) {
  const client = useQueryClient();
  const routes = useQuery({
    queryKey: routesKey(endpointId),
    queryFn: async () =>
      unwrap(await api.GET('/api/v1/gateway/endpoints/{id}/routes', { params: { path: { id: endpointId } } })).items,
  });
  const remove = async (r: Route) => {
    const ok = await confirmDestructive({
      title: `Delete the route ${r.method} ${r.path}?`,
      removes: `the route ${r.method} ${r.path} and its inferred response schema. Page bindings, API client scopes and event subscriptions that use it stop working.`,
      confirmLabel: 'Delete route',
    });
    if (!ok) return;
    try {
      unwrap(await api.DELETE('/api/v1/gateway/routes/{id}', { params: { path: { id: r.id } } }));
      showSaved(`Route ${r.method} ${r.path} deleted`);
      await client.invalidateQueries({ queryKey: routesKey(endpointId) });
    } catch (err) {
      showSaveError(err);
    }
  };
  return (
    <Paper withBorder p="lg">
      <Stack>
        <Title order={2} size="h4">
          Routes
        </Title>
        <QueryState query={routes}>
          {(items) =>
            items.length === 0 ? (
              <EmptyState title="No routes yet">Add one below, or import an OpenAPI document.</EmptyState>
            ) : (
              <Table.ScrollContainer minWidth={480}>
                <Table striped aria-label="Routes">
                  <Table.Thead>
                    <Table.Tr>
                      <Table.Th>Method</Table.Th>
                      <Table.Th>Path</Table.Th>
                      <Table.Th>Name</Table.Th>
                      <Table.Th>Schema</Table.Th>
                      <Table.Th>
                        <VisuallyHidden>Actions</VisuallyHidden>
                      </Table.Th>
                    </Table.Tr>
                  </Table.Thead>
                  <Table.Tbody>
                    {items.map((r) => (
                      <Table.Tr key={r.id}>
                        <Table.Td>
                          <Badge variant="light">{r.method}</Badge>
                        </Table.Td>
                        <Table.Td>
                          <Code>{r.path}</Code>
                        </Table.Td>
                        <Table.Td>
                          <Text size="sm">{r.name ?? ''}</Text>
                          {r.description && (
                            <Text size="xs" c="dimmed">
                              {r.description}
                            </Text>
                          )}
                        </Table.Td>
                        <Table.Td>{r.hasSchema ? 'inferred' : '—'}</Table.Td>
                        <Table.Td>
                          <Button
                            size="compact-sm"
                            variant="subtle"
                            color="red"
                            aria-label={`Delete route ${r.method} ${r.path}`}
                            onClick={() => void remove(r)}
                          >
                            <IconTrash size={16} aria-hidden />
                          </Button>
                        </Table.Td>
                      </Table.Tr>
                    ))}
                  </Table.Tbody>
                </Table>
              </Table.ScrollContainer>
            )
          }
        </QueryState>
        <AddRoute endpointId={endpointId} />
      </Stack>
    </Paper>
  );
}
