import { Button, Group, NumberInput, Stack, TextInput, Title } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useParams } from 'react-router';
import { api, RecordPage, Section, showSaved, showSaveError, unwrap } from '../../admin-ui/app/src/sdk/index.ts';
import { type AuthState, AuthFields, authBody, authStateOf, SECRET_FIELD } from './auth.tsx';
import { ImportOpenApi } from './ImportOpenApi.tsx';
import { RoutesPanel, routesKey } from './RoutesPanel.tsx';
import type { Endpoint } from './model.ts';

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
    <Section>
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
    </Section>
  );
}

/** `/admin/gateway/endpoints/:id`: settings, write-only credentials, routes, OpenAPI import. */
export default function EndpointDetail() {
  const { id = '' } = useParams();
  const client = useQueryClient();
  const endpoint = useQuery({
    queryKey: ['gateway', 'endpoint', id],
    queryFn: async () => unwrap(await api.GET('/api/v1/gateway/endpoints/{id}', { params: { path: { id } } })),
  });
  return (
    <RecordPage
      query={endpoint}
      maw={960}
      title={(e) => e.name}
      description={(e) => (e.presetId ? `From the ${e.presetId} preset. ` : '')}
      back={{ to: '/admin/gateway/endpoints', label: 'All endpoints' }}
      remove={{
        label: 'Delete endpoint',
        confirm: (e: Endpoint) => {
          const routes = client.getQueryData<unknown[]>(routesKey(e.id))?.length;
          return {
            title: `Delete the endpoint ${e.name}?`,
            removes: `the endpoint ${e.name}, its stored credentials and ${routes === undefined ? 'all its routes' : `its ${routes} routes`}. Sites, API clients and event subscriptions that call it stop working.`,
            confirmLabel: 'Delete endpoint',
          };
        },
        run: async (e) =>
          unwrap(await api.DELETE('/api/v1/gateway/endpoints/{id}', { params: { path: { id: e.id } } })),
        saved: (e) => `Endpoint ${e.name} deleted`,
        invalidate: ['gateway', 'endpoints'],
        goTo: '/admin/gateway/endpoints',
      }}
    >
      {(e) => (
        <>
          <Settings endpoint={e} />
          <RoutesPanel endpointId={e.id} />
          <ImportOpenApi endpointId={e.id} />
        </>
      )}
    </RecordPage>
  );
}
