import { Anchor, Button, Group, NumberInput, Paper, Stack, TextInput, Title } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import {
  api,
  confirmDestructive,
  PageHeader,
  QueryState,
  showSaved,
  showSaveError,
  unwrap,
} from '../../admin-ui/app/src/sdk/index.ts';
import { type AuthState, AuthFields, authBody, authStateOf, SECRET_FIELD } from './auth.tsx';
import { ImportOpenApi } from './ImportOpenApi.tsx';
import { RoutesPanel, routesKey } from './RoutesPanel.tsx';
import type { Endpoint } from './types.ts';

/** Whether the endpoint stores a secret for its auth type (read back as `{ set: true }`). */
function secretStored(endpoint: Endpoint): boolean {
  const field = SECRET_FIELD[endpoint.auth.type];
  const value = field ? (endpoint.auth as Record<string, unknown>)[field.name] : undefined;
  return typeof value === 'object' && value !== null && (value as { set?: boolean }).set === true;
}

function Settings({ endpoint }: { endpoint: Endpoint }) {
  const client = useQueryClient();
  const [baseUrl, setBaseUrl] = useState(endpoint.baseUrl);
  const [timeoutMs, setTimeoutMs] = useState<number | string>(endpoint.timeoutMs);
  const [rpm, setRpm] = useState<number | string>(endpoint.rateLimit?.requestsPerMinute ?? '');
  const [auth, setAuth] = useState<AuthState>(authStateOf(endpoint.auth));
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    setBaseUrl(endpoint.baseUrl);
    setTimeoutMs(endpoint.timeoutMs);
    setRpm(endpoint.rateLimit?.requestsPerMinute ?? '');
    setAuth(authStateOf(endpoint.auth));
  }, [endpoint]);
  // A secret of another auth type does not carry over: a new type needs its own.
  const stored = auth.type === endpoint.auth.type && secretStored(endpoint);
  return (
    <Paper withBorder p="lg">
      <form
        onSubmit={async (e) => {
          e.preventDefault();
          setBusy(true);
          try {
            const saved = unwrap(
              await api.PATCH('/api/v1/gateway/endpoints/{id}', {
                params: { path: { id: endpoint.id } },
                body: {
                  baseUrl,
                  auth: authBody(auth),
                  timeoutMs: Number(timeoutMs),
                  rateLimit: rpm === '' ? null : { ...endpoint.rateLimit, requestsPerMinute: Number(rpm) },
                },
              }),
            );
            client.setQueryData(['gateway', 'endpoint', endpoint.id], saved);
            await client.invalidateQueries({ queryKey: ['gateway', 'endpoints'] });
            showSaved('Endpoint saved');
          } catch (err) {
            showSaveError(err);
          } finally {
            setBusy(false);
          }
        }}
      >
        <Stack>
          <Title order={2} size="h4">
            Settings
          </Title>
          <TextInput label="Base URL" value={baseUrl} onChange={(e) => setBaseUrl(e.currentTarget.value)} required />
          <AuthFields value={auth} onChange={setAuth} stored={stored} />
          <Group grow align="flex-start">
            <NumberInput label="Timeout (ms)" min={100} max={300000} value={timeoutMs} onChange={setTimeoutMs} />
            <NumberInput label="Calls per minute" description="Empty: no limit" min={1} value={rpm} onChange={setRpm} />
          </Group>
          <Button type="submit" loading={busy} w="fit-content">
            Save settings
          </Button>
        </Stack>
      </form>
    </Paper>
  );
}

/** `/admin/gateway/endpoints/:id`: settings, write-only credentials, routes, OpenAPI import. */
export default function EndpointDetail() {
  const { id = '' } = useParams();
  const navigate = useNavigate();
  const client = useQueryClient();
  const endpoint = useQuery({
    queryKey: ['gateway', 'endpoint', id],
    queryFn: async () => unwrap(await api.GET('/api/v1/gateway/endpoints/{id}', { params: { path: { id } } })),
  });
  const remove = async (e: Endpoint) => {
    const routes = client.getQueryData<unknown[]>(routesKey(e.id))?.length;
    const ok = await confirmDestructive({
      title: `Delete the endpoint ${e.name}?`,
      removes: `the endpoint ${e.name}, its stored credentials and ${routes === undefined ? 'all its routes' : `its ${routes} routes`}. Sites, API clients and event subscriptions that call it stop working.`,
      confirmLabel: 'Delete endpoint',
    });
    if (!ok) return;
    try {
      unwrap(await api.DELETE('/api/v1/gateway/endpoints/{id}', { params: { path: { id: e.id } } }));
      showSaved(`Endpoint ${e.name} deleted`);
      await client.invalidateQueries({ queryKey: ['gateway', 'endpoints'] });
      await navigate('/admin/gateway/endpoints', { replace: true });
    } catch (err) {
      showSaveError(err);
    }
  };
  return (
    <QueryState query={endpoint}>
      {(e) => (
        <Stack maw={960}>
          <PageHeader
            title={e.name}
            description={
              <>
                {e.presetId ? `From the ${e.presetId} preset. ` : ''}
                <Anchor underline="always" component={Link} to="/admin/gateway/endpoints">
                  All endpoints
                </Anchor>
              </>
            }
            actions={
              <Button color="red" variant="light" onClick={() => void remove(e)}>
                Delete endpoint
              </Button>
            }
          />
          <Settings endpoint={e} />
          <RoutesPanel endpointId={e.id} />
          <ImportOpenApi endpointId={e.id} />
        </Stack>
      )}
    </QueryState>
  );
}
