import {
  Alert,
  Badge,
  Button,
  Group,
  NumberInput,
  Paper,
  PasswordInput,
  Select,
  Stack,
  Switch,
  Tabs,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useForm } from '@mantine/form';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import {
  api,
  type ApiAnswer,
  type ApiBody,
  PageHeader,
  QueryState,
  showSaved,
  showSaveError,
  unwrap,
} from '../../admin-ui/app/src/sdk/index.ts';

type Kind = 'text' | 'image' | 'translate';
const PATHS = { text: '/ai/settings', image: '/ai/image-settings', translate: '/ai/translate-settings' } as const;
const LABELS: Record<Kind, string> = { text: 'Text', image: 'Images', translate: 'Translation' };
type Settings = ApiAnswer<'/ai/settings', 'get'>;

async function load(kind: Kind): Promise<Settings> {
  const path = PATHS[kind];
  if (path === '/ai/settings') return unwrap(await api.GET('/ai/settings'));
  if (path === '/ai/image-settings') return unwrap(await api.GET('/ai/image-settings'));
  return unwrap(await api.GET('/ai/translate-settings'));
}

async function save(kind: Kind, body: ApiBody<'/ai/settings', 'put'> | { useTextSettings: true }): Promise<Settings> {
  if (kind === 'text') return unwrap(await api.PUT('/ai/settings', { body: body as ApiBody<'/ai/settings', 'put'> }));
  if (kind === 'image')
    return unwrap(await api.PUT('/ai/image-settings', { body: body as ApiBody<'/ai/image-settings', 'put'> }));
  return unwrap(await api.PUT('/ai/translate-settings', { body: body as ApiBody<'/ai/translate-settings', 'put'> }));
}

/**
 * "Test connection": the provider's model list with this kind's saved settings (address, key, model),
 * nothing generated; a refusal is the provider's reason as the server words it.
 */
function TestConnection({ kind }: { kind: Kind }) {
  const [state, setState] = useState<{ ok: boolean; message: string } | null>(null);
  const [testing, setTesting] = useState(false);
  return (
    <Group>
      <Button
        variant="default"
        loading={testing}
        onClick={async () => {
          setTesting(true);
          setState(null);
          try {
            const answer = unwrap(await api.POST('/ai/test-connection', { body: { kind } }));
            const listed = answer.modelListed
              ? `it offers ${answer.model}`
              : `it does not list ${answer.model} among its ${answer.models} models (check the model name)`;
            setState({ ok: answer.modelListed, message: `Connected to ${answer.host}: ${listed}` });
          } catch (err) {
            setState({ ok: false, message: (err as Error).message });
          } finally {
            setTesting(false);
          }
        }}
      >
        Test connection
      </Button>
      {state && (
        <Text size="sm" c={state.ok ? undefined : 'red.8'} role={state.ok ? 'status' : 'alert'}>
          {state.message}
        </Text>
      )}
    </Group>
  );
}

function KindForm({ kind, settings }: { kind: Kind; settings: Settings }) {
  const client = useQueryClient();
  const [saving, setSaving] = useState(false);
  const form = useForm({
    initialValues: {
      useTextSettings: kind === 'translate' && settings.useTextSettings !== false,
      provider: settings.provider ?? 'openai-compatible',
      baseUrl: settings.baseUrl ?? '',
      model: settings.model ?? '',
      apiKey: '',
      organization: settings.organization ?? '',
      temperature: settings.temperature ?? ('' as number | ''),
      maxOutputTokens: settings.maxOutputTokens ?? ('' as number | ''),
      timeoutSeconds: settings.timeoutSeconds ?? 60,
    },
  });
  const v = form.values;
  const submit = form.onSubmit(async (values) => {
    setSaving(true);
    try {
      const body = values.useTextSettings
        ? ({ useTextSettings: true } as const)
        : {
            provider: values.provider as 'openai' | 'openai-compatible',
            ...(values.baseUrl.trim() ? { baseUrl: values.baseUrl.trim() } : {}),
            model: values.model.trim(),
            // Blank keeps the stored key.
            ...(values.apiKey ? { apiKey: values.apiKey } : {}),
            ...(values.organization.trim() ? { organization: values.organization.trim() } : {}),
            ...(values.temperature !== '' ? { temperature: Number(values.temperature) } : {}),
            ...(values.maxOutputTokens !== '' ? { maxOutputTokens: Number(values.maxOutputTokens) } : {}),
            timeoutSeconds: Number(values.timeoutSeconds),
          };
      await save(kind, body);
      form.setFieldValue('apiKey', '');
      showSaved(`${LABELS[kind]} settings saved`);
      await client.invalidateQueries({ queryKey: ['ai', 'settings', kind] });
    } catch (err) {
      showSaveError(err, form);
    } finally {
      setSaving(false);
    }
  });
  return (
    <Paper withBorder p="lg">
      <form onSubmit={submit} aria-label={`${LABELS[kind]} settings`}>
        <Stack maw={560}>
          <Group gap="xs">
            <Text size="sm">State:</Text>
            <Badge color={settings.configured ? 'green' : 'gray'} variant="light">
              {settings.configured ? 'configured' : 'not configured'}
            </Badge>
            <Text size="sm">Key:</Text>
            <Badge color={settings.apiKeySet ? 'green' : 'gray'} variant="light">
              {settings.apiKeySet ? 'set' : 'not set'}
            </Badge>
          </Group>
          {kind === 'translate' && (
            <Switch
              label="Use the text settings for translations"
              {...form.getInputProps('useTextSettings', { type: 'checkbox' })}
            />
          )}
          {!v.useTextSettings && (
            <>
              <Select
                label="Provider"
                description="Any server that speaks the OpenAI wire format: Ollama, vLLM, LM Studio, Azure OpenAI"
                data={[
                  { value: 'openai-compatible', label: 'OpenAI-compatible server' },
                  { value: 'openai', label: 'OpenAI' },
                ]}
                allowDeselect={false}
                {...form.getInputProps('provider')}
              />
              <TextInput
                label="Base URL"
                description={v.provider === 'openai' ? 'Empty: the OpenAI API' : 'e.g. http://localhost:11434/v1'}
                required={v.provider === 'openai-compatible'}
                {...form.getInputProps('baseUrl')}
              />
              <TextInput label="Model" required {...form.getInputProps('model')} />
              <PasswordInput
                label="API key"
                description={
                  settings.apiKeySet
                    ? 'A key is stored (never shown). Leave empty to keep it.'
                    : 'Not needed by a local server without a key'
                }
                autoComplete="new-password"
                {...form.getInputProps('apiKey')}
              />
              <TextInput label="Organization" {...form.getInputProps('organization')} />
              <Group grow>
                <NumberInput
                  label="Temperature"
                  min={0}
                  max={2}
                  step={0.1}
                  decimalScale={2}
                  {...form.getInputProps('temperature')}
                />
                <NumberInput label="Max output tokens" min={1} {...form.getInputProps('maxOutputTokens')} />
                <NumberInput label="Timeout (seconds)" min={1} max={600} {...form.getInputProps('timeoutSeconds')} />
              </Group>
            </>
          )}
          <Group>
            <Button type="submit" loading={saving}>
              Save
            </Button>
          </Group>
        </Stack>
      </form>
    </Paper>
  );
}

function KindPanel({ kind }: { kind: Kind }) {
  const query = useQuery({ queryKey: ['ai', 'settings', kind], queryFn: () => load(kind) });
  return (
    <QueryState query={query}>
      {(settings) => (
        <Stack>
          <KindForm key={JSON.stringify(settings)} kind={kind} settings={settings} />
          {settings.configured && <TestConnection kind={kind} />}
        </Stack>
      )}
    </QueryState>
  );
}

export default function AiSettings() {
  return (
    <>
      <PageHeader
        title="AI settings"
        description="The AI provider for text, images and translations. Keys are stored sealed and never shown again."
      />
      <Alert color="blue" mb="md" title="Provider neutral">
        A self-hosted model server keeps every prompt inside your network.
      </Alert>
      <Tabs defaultValue="text" keepMounted={false}>
        <Tabs.List mb="md">
          {(Object.keys(LABELS) as Kind[]).map((k) => (
            <Tabs.Tab key={k} value={k}>
              {LABELS[k]}
            </Tabs.Tab>
          ))}
        </Tabs.List>
        {(Object.keys(LABELS) as Kind[]).map((k) => (
          <Tabs.Panel key={k} value={k}>
            <Title order={2} size="h4" mb="sm">
              {LABELS[k]} provider
            </Title>
            <KindPanel kind={k} />
          </Tabs.Panel>
        ))}
      </Tabs>
    </>
  );
}
