import { Anchor, Button, Group, NumberInput, Paper, Select, Stack, Text, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { api, PageHeader, QueryState, showSaved, showSaveError, unwrap } from '../../admin-ui/app/src/sdk/index.ts';
import { type AuthState, AuthFields, authBody, authStateOf } from './auth.tsx';
import type { Preset } from './model.ts';

/** `/admin/gateway/endpoints/new`: register an upstream API, from a vendor preset or blank. */
export default function EndpointNew() {
  const navigate = useNavigate();
  const client = useQueryClient();
  const presets = useQuery({
    queryKey: ['gateway', 'presets'],
    queryFn: async () => unwrap(await api.GET('/api/v1/gateway/presets')).items,
  });
  const [presetId, setPresetId] = useState<string | null>(null);
  const [auth, setAuth] = useState<AuthState>(authStateOf(undefined));
  const form = useForm({
    initialValues: {
      name: '',
      baseUrl: '',
      timeoutMs: '' as number | string,
      requestsPerMinute: '' as number | string,
    },
    validate: {
      name: (v) => (/^[A-Za-z0-9_-]+$/.test(v) ? null : 'Letters, digits, _ and - only'),
      baseUrl: (v) => (v || presetId ? null : 'The address of the API, for example https://api.example.com/v2'),
    },
  });
  const choosePreset = (id: string | null, all: Preset[]) => {
    setPresetId(id);
    const preset = all.find((p) => p.id === id);
    setAuth(authStateOf(preset?.auth));
    if (preset) {
      if (!form.values.name) form.setFieldValue('name', preset.id);
      form.setFieldValue('baseUrl', '');
    }
  };
  const preset = presets.data?.find((p) => p.id === presetId);
  return (
    <Stack maw={720}>
      <PageHeader
        title="New gateway endpoint"
        description={
          <>
            A third-party API.{' '}
            <Anchor underline="always" component={Link} to="/admin/gateway/endpoints">
              Back to the endpoints
            </Anchor>
          </>
        }
      />
      <QueryState query={presets}>
        {(all) => (
          <Paper withBorder p="lg">
            <form
              noValidate
              onSubmit={form.onSubmit(async (values) => {
                try {
                  const created = unwrap(
                    await api.POST('/api/v1/gateway/endpoints', {
                      body: {
                        name: values.name,
                        ...(values.baseUrl ? { baseUrl: values.baseUrl } : {}),
                        ...(presetId ? { preset: presetId } : {}),
                        auth: authBody(auth),
                        ...(values.timeoutMs !== '' ? { timeoutMs: Number(values.timeoutMs) } : {}),
                        ...(values.requestsPerMinute !== ''
                          ? { rateLimit: { requestsPerMinute: Number(values.requestsPerMinute) } }
                          : {}),
                      },
                    }),
                  );
                  showSaved(`Endpoint ${created.name} created`);
                  await client.invalidateQueries({ queryKey: ['gateway', 'endpoints'] });
                  await navigate(`/admin/gateway/endpoints/${created.id}`, { replace: true });
                } catch (err) {
                  showSaveError(err, form);
                }
              })}
            >
              <Stack>
                <Select
                  label="Vendor preset"
                  description="Fills in the base URL, the authentication and the vendor's routes"
                  placeholder="None: start blank"
                  data={all.map((p) => ({ value: p.id, label: p.name }))}
                  value={presetId}
                  onChange={(id) => choosePreset(id, all)}
                  clearable
                  clearButtonProps={{ 'aria-label': 'Clear vendor preset' }}
                />
                {preset && (
                  <Text size="sm" c="dimmed">
                    {preset.description} {preset.routes.length} routes come with it.{' '}
                    {preset.docsUrl && (
                      <Anchor underline="always" href={preset.docsUrl} target="_blank" rel="noreferrer">
                        Vendor documentation
                      </Anchor>
                    )}
                  </Text>
                )}
                <TextInput
                  label="Name"
                  description="Used in client scopes and /client/v1/gateway/<name>/…; letters, digits, _ and -"
                  required
                  {...form.getInputProps('name')}
                />
                <TextInput
                  label="Base URL"
                  placeholder={preset?.baseUrl ?? 'https://api.example.com/v2'}
                  description={preset ? `Empty: the vendor's ${preset.baseUrl}` : undefined}
                  required={!preset}
                  {...form.getInputProps('baseUrl')}
                />
                <AuthFields value={auth} onChange={setAuth} />
                <Group grow align="flex-start">
                  <NumberInput
                    label="Timeout (ms)"
                    description="Empty: the default"
                    min={100}
                    max={300000}
                    {...form.getInputProps('timeoutMs')}
                  />
                  <NumberInput
                    label="Calls per minute"
                    description="Empty: no limit"
                    min={1}
                    {...form.getInputProps('requestsPerMinute')}
                  />
                </Group>
                <Group justify="flex-end">
                  <Button variant="default" component={Link} to="/admin/gateway/endpoints">
                    Cancel
                  </Button>
                  <Button type="submit" loading={form.submitting}>
                    Create endpoint
                  </Button>
                </Group>
              </Stack>
            </form>
          </Paper>
        )}
      </QueryState>
    </Stack>
  );
}
