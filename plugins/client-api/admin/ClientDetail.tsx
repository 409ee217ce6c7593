import { Badge, Button, Group, Paper, Stack, Table, Text, Title } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { IconPlus } from '@tabler/icons-react';
import { useState } from 'react';
import { useParams } from 'react-router';
import {
  type ApiBody,
  api,
  EmptyState,
  RecordPage,
  SavedSwitch,
  Section,
  showSaved,
  showSaveError,
  unwrap,
  useRemoveRecord,
} from '../../admin-ui/app/src/sdk/index.ts';
import { ClientForm } from './ClientForm.tsx';
import { NewKeyModal } from './NewKey.tsx';
import { type ApiClient, CLIENTS_KEY, type ClientKey, liveKeys } from './model.ts';

function Keys({ client, onChanged }: { client: ApiClient; onChanged: () => Promise<unknown> }) {
  const [newKey, setNewKey] = useState<string>();
  const revoke = useRemoveRecord<ClientKey>({
    confirm: (k) => ({
      title: `Revoke the key ${k.prefix}…?`,
      removes: `the key ${k.prefix}… of ${client.name}: every caller using it gets 401 from its next request.`,
      confirmLabel: 'Revoke key',
    }),
    run: async (k) =>
      unwrap(
        await api.DELETE('/api/v1/gateway/clients/{id}/keys/{keyId}', {
          params: { path: { id: client.id, keyId: k.id } },
        }),
      ),
    saved: (k) => `Key ${k.prefix}… revoked`,
    invalidate: CLIENTS_KEY,
  });
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
                );
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
  const query = useQueryClient();
  const key = [...CLIENTS_KEY, id];
  const client = useQuery({
    queryKey: key,
    queryFn: async () => unwrap(await api.GET('/api/v1/gateway/clients/{id}', { params: { path: { id } } })),
  });
  const refresh = () => query.invalidateQueries({ queryKey: CLIENTS_KEY });
  const patch = async (c: ApiClient, body: ApiBody<'/api/v1/gateway/clients/{id}', 'patch'>) => {
    const saved = unwrap(await api.PATCH('/api/v1/gateway/clients/{id}', { params: { path: { id: c.id } }, body }));
    query.setQueryData(key, saved);
    await refresh();
  };
  return (
    <RecordPage
      query={client}
      maw={900}
      title={(c) => c.name}
      description={(c) =>
        c.authMode === 'key' ? 'Calls with an API key. ' : `Calls with tokens of ${c.jwt?.issuer}. `
      }
      back={{ to: '/admin/gateway/clients', label: 'All clients' }}
      remove={{
        label: 'Delete client',
        confirm: (c) => {
          const keys = liveKeys(c).length;
          return {
            title: `Delete the client ${c.name}?`,
            removes: `the client ${c.name}${c.authMode === 'key' ? ` and its ${keys} valid ${keys === 1 ? 'key' : 'keys'}` : ''}: its callers get 401 from their next request.`,
            confirmLabel: 'Delete client',
          };
        },
        run: async (c) => unwrap(await api.DELETE('/api/v1/gateway/clients/{id}', { params: { path: { id: c.id } } })),
        saved: (c) => `Client ${c.name} deleted`,
        invalidate: CLIENTS_KEY,
        goTo: '/admin/gateway/clients',
      }}
    >
      {(c) => (
        <>
          <SavedSwitch
            checked={c.status === 'active'}
            label={(active) => (active ? 'Active: its calls are served' : 'Suspended: its calls answer 403')}
            save={(active) => patch(c, { status: active ? 'active' : 'suspended' })}
            saved={(active) => (active ? `${c.name} is active` : `${c.name} is suspended`)}
          />
          {c.authMode === 'key' && <Keys client={c} onChanged={refresh} />}
          <Section title="Settings">
            <ClientForm
              key={c.updatedAt}
              client={c}
              submitLabel="Save settings"
              onSubmit={async (body) => {
                await patch(c, { ...body, jwt: body.jwt ?? null });
                showSaved('Client saved');
              }}
            />
          </Section>
        </>
      )}
    </RecordPage>
  );
}
