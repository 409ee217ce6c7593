import { Anchor, Badge, Button, Group, Paper, Stack, Switch, Table, Text, Title } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { IconPlus } from '@tabler/icons-react';
import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import {
  api,
  confirmDestructive,
  EmptyState,
  PageHeader,
  QueryState,
  showSaved,
  showSaveError,
  unwrap,
} from '../../admin-ui/app/src/sdk/index.ts';
import { ClientForm } from './ClientForm.tsx';
import { NewKeyModal } from './NewKey.tsx';
import { type ApiClient, CLIENTS_KEY, type ClientKey, liveKeys } from './types.ts';

function Keys({ client, onChanged }: { client: ApiClient; onChanged: () => Promise<unknown> }) {
  const [newKey, setNewKey] = useState<string>();
  const revoke = async (k: ClientKey) => {
    const ok = await confirmDestructive({
      title: `Revoke the key ${k.prefix}…?`,
      removes: `the key ${k.prefix}… of ${client.name}: every caller using it gets 401 from its next request.`,
      confirmLabel: 'Revoke key',
    });
    if (!ok) return;
    try {
      unwrap(
        await api.DELETE('/api/v1/gateway/clients/{id}/keys/{keyId}', {
          params: { path: { id: client.id, keyId: k.id } },
        }),
      );
      showSaved(`Key ${k.prefix}… revoked`);
      await onChanged();
    } catch (err) {
      showSaveError(err);
    }
  };
  return (
    <Paper withBorder p="lg">
      <Stack>
        <Group justify="space-between">
          <Title order={2} size="h4">
            Keys
          </Title>
          <Button
            variant="light"
            leftSection={<IconPlus size={16} aria-hidden />}
            onClick={async () => {
              try {
                const answer = unwrap(
                  await api.POST('/api/v1/gateway/clients/{id}/keys', { params: { path: { id: client.id } } }),
                ) as unknown as ClientKey & { key: string };
                setNewKey(answer.key);
                await onChanged();
              } catch (err) {
                showSaveError(err);
              }
            }}
          >
            Add a key
          </Button>
        </Group>
        <Text size="sm" c="dimmed">
          To rotate: add a key, switch the callers to it, then revoke the old one.
        </Text>
        {client.keys.length === 0 ? (
          <EmptyState title="No keys: callers cannot sign in as this client" />
        ) : (
          <Table.ScrollContainer minWidth={420}>
            <Table aria-label="Keys">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Key</Table.Th>
                  <Table.Th>Created</Table.Th>
                  <Table.Th>State</Table.Th>
                  <Table.Th>Action</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {client.keys.map((k) => (
                  <Table.Tr key={k.id}>
                    <Table.Td>
                      <code>{k.prefix}…</code>
                    </Table.Td>
                    <Table.Td>{new Date(k.createdAt).toLocaleString()}</Table.Td>
                    <Table.Td>
                      {k.revokedAt ? (
                        <Badge color="gray" variant="light">
                          revoked {new Date(k.revokedAt).toLocaleDateString()}
                        </Badge>
                      ) : (
                        <Badge color="green" variant="light">
                          valid
                        </Badge>
                      )}
                    </Table.Td>
                    <Table.Td>
                      {!k.revokedAt && (
                        <Button
                          size="compact-sm"
                          color="red"
                          variant="subtle"
                          aria-label={`Revoke key ${k.prefix}`}
                          onClick={() => void revoke(k)}
                        >
                          Revoke
                        </Button>
                      )}
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        )}
      </Stack>
      <NewKeyModal apiKey={newKey} client={client.name} onClose={() => setNewKey(undefined)} />
    </Paper>
  );
}

/** `/admin/gateway/clients/:id`: one client, its status, settings and keys. */
export default function ClientDetail() {
  const { id = '' } = useParams();
  const navigate = useNavigate();
  const query = useQueryClient();
  const key = [...CLIENTS_KEY, id];
  const client = useQuery({
    queryKey: key,
    queryFn: async () =>
      unwrap(await api.GET('/api/v1/gateway/clients/{id}', { params: { path: { id } } })) as unknown as ApiClient,
  });
  const refresh = () => query.invalidateQueries({ queryKey: CLIENTS_KEY });
  const patch = async (c: ApiClient, body: Record<string, unknown>) => {
    const saved = unwrap(
      await api.PATCH('/api/v1/gateway/clients/{id}', { params: { path: { id: c.id } }, body }),
    ) as unknown as ApiClient;
    query.setQueryData(key, saved);
    await refresh();
  };
  const remove = async (c: ApiClient) => {
    const keys = liveKeys(c).length;
    const ok = await confirmDestructive({
      title: `Delete the client ${c.name}?`,
      removes: `the client ${c.name}${c.authMode === 'key' ? ` and its ${keys} valid ${keys === 1 ? 'key' : 'keys'}` : ''}: its callers get 401 from their next request.`,
      confirmLabel: 'Delete client',
    });
    if (!ok) return;
    try {
      unwrap(await api.DELETE('/api/v1/gateway/clients/{id}', { params: { path: { id: c.id } } }));
      showSaved(`Client ${c.name} deleted`);
      await refresh();
      await navigate('/admin/gateway/clients', { replace: true });
    } catch (err) {
      showSaveError(err);
    }
  };
  return (
    <QueryState query={client}>
      {(c) => (
        <Stack maw={900}>
          <PageHeader
            title={c.name}
            description={
              <>
                {c.authMode === 'key' ? 'Calls with an API key. ' : `Calls with tokens of ${c.jwt?.issuer}. `}
                <Anchor underline="always" component={Link} to="/admin/gateway/clients">
                  All clients
                </Anchor>
              </>
            }
            actions={
              <Button color="red" variant="light" onClick={() => void remove(c)}>
                Delete client
              </Button>
            }
          />
          <Paper withBorder p="lg">
            <Switch
              label={c.status === 'active' ? 'Active: its calls are served' : 'Suspended: its calls answer 403'}
              checked={c.status === 'active'}
              onChange={async (e) => {
                const status = e.currentTarget.checked ? 'active' : 'suspended';
                try {
                  await patch(c, { status });
                  showSaved(status === 'active' ? `${c.name} is active` : `${c.name} is suspended`);
                } catch (err) {
                  showSaveError(err);
                }
              }}
            />
          </Paper>
          {c.authMode === 'key' && <Keys client={c} onChanged={refresh} />}
          <Paper withBorder p="lg">
            <Title order={2} size="h4" mb="md">
              Settings
            </Title>
            <ClientForm
              key={c.updatedAt}
              client={c}
              submitLabel="Save settings"
              onSubmit={async (body) => {
                await patch(c, { ...body, jwt: body.jwt ?? null });
                showSaved('Client saved');
              }}
            />
          </Paper>
        </Stack>
      )}
    </QueryState>
  );
}
