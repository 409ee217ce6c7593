import {
  Anchor,
  Badge,
  Button,
  Group,
  NumberInput,
  Paper,
  PasswordInput,
  Select,
  Stack,
  Switch,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useForm } from '@mantine/form';
import { api, ApiError, showSaveError, unwrap } from '../../admin-ui/app/src/sdk/index.ts';
import type { MailSettings, Provider } from './model.ts';

type Security = 'starttls' | 'starttls-required' | 'implicit';

const SECURITY: { value: Security; label: string }[] = [
  { value: 'starttls', label: 'STARTTLS when the server offers it (port 587)' },
  { value: 'starttls-required', label: 'STARTTLS required (port 587)' },
  { value: 'implicit', label: 'TLS from the start (port 465)' },
];

/** A secret stored or not: the API says only that. */
function SecretState({ label, set }: { label: string; set: boolean }) {
  return (
    <Group gap="xs">
      <Text size="sm">{label}:</Text>
      <Badge color={set ? 'green' : 'gray'} variant="light">
        {set ? 'set' : 'not set'}
      </Badge>
    </Group>
  );
}

function initialValues(s: MailSettings, providers: Provider[]) {
  // Per provider and field, so switching providers keeps what was typed for each.
  const config: Record<string, Record<string, string>> = {};
  const secrets: Record<string, Record<string, string>> = {};
  for (const p of providers) {
    config[p.id] = {};
    secrets[p.id] = {};
    for (const f of p.fields)
      if (f.type === 'secret') secrets[p.id]![f.name] = '';
      else config[p.id]![f.name] = (s.provider === p.id ? s.providerConfig?.[f.name] : undefined) ?? f.default ?? '';
  }
  return {
    provider: s.provider ?? 'smtp',
    smtp: {
      host: s.smtp?.host ?? '',
      port: (s.smtp?.port ?? 587) as number | string,
      security: (s.smtp?.secure ? 'implicit' : s.smtp?.requireTls ? 'starttls-required' : 'starttls') as Security,
      user: s.smtp?.user ?? '',
      password: '',
      allowInvalidCertificate: s.smtp?.allowInvalidCertificate ?? false,
    },
    config,
    secrets,
    from: s.from ?? '',
    fromName: s.fromName ?? '',
    replyTo: s.replyTo ?? '',
  };
}

type Values = ReturnType<typeof initialValues>;

/** The `PUT /mail-settings` body: a secret only when one was typed (blank keeps the stored one). */
function body(v: Values, providers: Provider[]) {
  const common = {
    from: v.from.trim() || null,
    fromName: v.fromName.trim() || null,
    replyTo: v.replyTo.trim() || null,
  };
  if (v.provider === 'smtp')
    return {
      provider: 'smtp',
      smtp: {
        host: v.smtp.host.trim(),
        port: Number(v.smtp.port),
        secure: v.smtp.security === 'implicit',
        requireTls: v.smtp.security === 'starttls-required',
        user: v.smtp.user.trim() || null,
        allowInvalidCertificate: v.smtp.allowInvalidCertificate,
        ...(v.smtp.password ? { password: v.smtp.password } : {}),
      },
      ...common,
    };
  const provider = providers.find((p) => p.id === v.provider);
  const providerConfig: Record<string, string | null> = {};
  for (const f of provider?.fields ?? []) {
    if (f.type === 'secret') {
      const typed = v.secrets[v.provider]?.[f.name];
      if (typed) providerConfig[f.name] = typed;
    } else providerConfig[f.name] = v.config[v.provider]?.[f.name]?.trim() || null;
  }
  return { provider: v.provider, providerConfig, ...common };
}

/** The API's field (`smtp.host`, `providerConfig.apiKey`, `from`) as this form's path. */
function formPath(field: string, provider: string, providers: Provider[]): string | undefined {
  if (/^smtp\.(host|port|user|password)$/.test(field) || ['from', 'fromName', 'replyTo', 'provider'].includes(field))
    return field;
  const name = /^providerConfig\.(.+)$/.exec(field)?.[1];
  const f = providers.find((p) => p.id === provider)?.fields.find((x) => x.name === name);
  if (!f) return undefined;
  return f.type === 'secret' ? `secrets.${provider}.${f.name}` : `config.${provider}.${f.name}`;
}

/** Provider, its connection settings and the sender, for one scope. */
export function SettingsForm(props: { settings: MailSettings; providers: Provider[]; onSaved: () => Promise<void> }) {
  const { settings, providers } = props;
  const form = useForm({
    initialValues: initialValues(settings, providers),
    validate: {
      smtp: {
        host: (v, all) => (all.provider === 'smtp' && !v.trim() ? 'The SMTP server’s host name or address' : null),
        port: (v, all) =>
          all.provider === 'smtp' && !(Number(v) >= 1 && Number(v) <= 65535) ? 'A port from 1 to 65535' : null,
      },
    },
  });
  const v = form.values;
  const provider = providers.find((p) => p.id === v.provider);
  const stored = (name: string) =>
    settings.provider === v.provider &&
    Boolean(settings.secretsSet?.[name] ?? (name === 'password' && settings.smtp?.passwordSet));
  return (
    <form
      noValidate
      onSubmit={form.onSubmit(async (values) => {
        try {
          unwrap(
            await api.PUT('/mail-settings', {
              params: { query: settings.websiteId ? { websiteId: settings.websiteId } : {} },
              // Built per provider from its fields; the API checks the shape (400 naming the field).
              body: body(values, providers) as never,
            }),
          );
          await props.onSaved();
        } catch (err) {
          const path =
            err instanceof ApiError && err.field ? formPath(err.field, values.provider, providers) : undefined;
          if (path) form.setFieldError(path, (err as Error).message);
          else showSaveError(err);
        }
      })}
    >
      <Paper withBorder p="lg">
        <Stack>
          <Title order={2} size="h4">
            Provider
          </Title>
          <Select
            label="Send through"
            data={[
              { value: 'smtp', label: 'SMTP server (your relay)' },
              ...providers.map((p) => ({ value: p.id, label: `${p.label} (HTTP API)` })),
            ]}
            allowDeselect={false}
            {...form.getInputProps('provider')}
          />
          {v.provider === 'smtp' ? (
            <>
              <Group grow align="flex-start" wrap="wrap">
                <TextInput label="Host" required miw={220} {...form.getInputProps('smtp.host')} />
                <NumberInput label="Port" required min={1} max={65535} maw={160} {...form.getInputProps('smtp.port')} />
              </Group>
              <Select
                label="Encryption"
                data={SECURITY}
                allowDeselect={false}
                {...form.getInputProps('smtp.security')}
              />
              <TextInput label="User name" autoComplete="off" {...form.getInputProps('smtp.user')} />
              <Stack gap={4}>
                <SecretState label="Password" set={stored('password')} />
                <PasswordInput
                  label={stored('password') ? 'Replace the password' : 'Password'}
                  description={
                    stored('password')
                      ? 'Stored encrypted and never shown again. Leave empty to keep the stored one.'
                      : 'Stored encrypted and never shown again.'
                  }
                  autoComplete="new-password"
                  {...form.getInputProps('smtp.password')}
                />
              </Stack>
              <Switch
                label="Accept a certificate that does not verify (a development relay with a self-signed certificate)"
                {...form.getInputProps('smtp.allowInvalidCertificate', { type: 'checkbox' })}
              />
            </>
          ) : (
            provider && (
              <>
                {provider.docs && (
                  <Text size="sm">
                    <Anchor href={provider.docs} target="_blank" rel="noreferrer">
                      {provider.label} API documentation
                    </Anchor>
                  </Text>
                )}
                {provider.fields.map((f) =>
                  f.type === 'secret' ? (
                    <Stack gap={4} key={f.name}>
                      <SecretState label={f.label} set={stored(f.name)} />
                      <PasswordInput
                        label={stored(f.name) ? `Replace the ${f.label}` : f.label}
                        required={f.required && !stored(f.name)}
                        description={
                          stored(f.name)
                            ? 'Stored encrypted and never shown again. Leave empty to keep the stored one.'
                            : 'Stored encrypted and never shown again.'
                        }
                        autoComplete="new-password"
                        {...form.getInputProps(`secrets.${provider.id}.${f.name}`)}
                      />
                    </Stack>
                  ) : (
                    <TextInput
                      key={f.name}
                      label={f.label}
                      required={f.required}
                      type={f.type === 'url' ? 'url' : 'text'}
                      {...form.getInputProps(`config.${provider.id}.${f.name}`)}
                    />
                  ),
                )}
              </>
            )
          )}
          <Title order={2} size="h4">
            Sender
          </Title>
          <Group grow align="flex-start" wrap="wrap">
            <TextInput label="From address" type="email" miw={220} {...form.getInputProps('from')} />
            <TextInput label="From name" miw={220} {...form.getInputProps('fromName')} />
          </Group>
          <TextInput label="Reply-to address" type="email" {...form.getInputProps('replyTo')} />
          <Group>
            <Button type="submit" loading={form.submitting}>
              Save settings
            </Button>
          </Group>
        </Stack>
      </Paper>
    </form>
  );
}
