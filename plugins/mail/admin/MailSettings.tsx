import { Alert, Button, Group, Paper, Select, Stack, Text, TextInput, Title } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import {
  api,
  ApiError,
  confirmDestructive,
  PageHeader,
  QueryState,
  showSaved,
  showSaveError,
  unwrap,
  useUrlState,
} from '../../admin-ui/app/src/sdk/index.ts';
import { SettingsForm } from './SettingsForm.tsx';
import { KEYS, MAIL_KEY, type MailSettings, type Provider } from './model.ts';

/** The websites for the scope picker; without the right to list them, an id is typed instead. */
function useWebsites() {
  return useQuery({
    queryKey: KEYS.websites,
    queryFn: async () => unwrap(await api.GET('/cms-one/websites')),
    retry: false,
  });
}

function ScopePicker({ websiteId, onChange }: { websiteId: string; onChange: (id: string) => void }) {
  const websites = useWebsites();
  const [typed, setTyped] = useState(websiteId);
  if (websites.error instanceof ApiError && websites.error.status === 403)
    return (
      <Group align="flex-end">
        <TextInput
          label="Website id"
          description="Empty: the default settings"
          value={typed}
          onChange={(e) => setTyped(e.currentTarget.value)}
        />
        <Button variant="default" onClick={() => onChange(typed.trim())}>
          Show
        </Button>
      </Group>
    );
  return (
    <Select
      label="Settings for"
      description="The default serves every website without settings of its own"
      data={[
        { value: '', label: 'Default (every website)' },
        ...(websites.data ?? []).map((w) => ({ value: w.id, label: `Website ${w.name}` })),
      ]}
      value={websiteId}
      onChange={(v) => onChange(v ?? '')}
      allowDeselect={false}
      maw={420}
    />
  );
}

/** What the scope uses now, in words. */
function ScopeState({ settings, providers }: { settings: MailSettings; providers: Provider[] }) {
  if (!settings.configured)
    return (
      <Alert color="blue" title="No settings of its own">
        {settings.uses === 'default'
          ? 'Mail for this website goes out with the default settings. Save settings below to give it its own.'
          : "Nothing is saved: mail goes through the server's SMTP_URL, or is only written to the server log when that is unset."}
      </Alert>
    );
  const label =
    settings.provider === 'smtp'
      ? `SMTP server ${settings.smtp?.host}:${settings.smtp?.port}`
      : (providers.find((p) => p.id === settings.provider)?.label ?? settings.provider);
  return (
    <Text size="sm">
      Sending through <strong>{label}</strong>
      {settings.from ? ` as ${settings.from}` : ''}; saved {new Date(settings.updatedAt ?? '').toLocaleString()}.
    </Text>
  );
}

function TestMail({ websiteId }: { websiteId: string }) {
  const client = useQueryClient();
  const [to, setTo] = useState('');
  const [sending, setSending] = useState(false);
  const [result, setResult] = useState<{ ok: boolean; message: string; id?: string }>();
  const send = async () => {
    setSending(true);
    setResult(undefined);
    try {
      const answer = unwrap(
        await api.POST('/mail-settings/test', {
          params: { query: websiteId ? { websiteId } : {} },
          body: { to: to.trim() },
        }),
      );
      setResult({
        ok: true,
        id: answer.id,
        message: `Sent. The server answered: ${answer.providerAnswer ?? 'accepted'}`,
      });
    } catch (err) {
      const id = err instanceof Error ? /log entry ([0-9a-f-]{36})/.exec(err.message)?.[1] : undefined;
      setResult({ ok: false, id, message: err instanceof Error ? err.message : 'The test mail was not sent' });
    } finally {
      setSending(false);
      await client.invalidateQueries({ queryKey: KEYS.log });
    }
  };
  return (
    <Paper withBorder p="lg">
      <Stack>
        <Title order={2} size="h4">
          Send a test mail
        </Title>
        <Text size="sm" c="dimmed">
          Sent at once with these settings (as saved), without retries; it is kept in the mail log.
        </Text>
        <form
          noValidate
          onSubmit={(e) => {
            e.preventDefault();
            void send();
          }}
        >
          <Group align="flex-end" wrap="wrap">
            <TextInput
              label="Send a test mail to"
              type="email"
              autoComplete="email"
              value={to}
              onChange={(e) => setTo(e.currentTarget.value)}
              miw={260}
            />
            <Button type="submit" loading={sending} disabled={!to.trim()}>
              Send test mail
            </Button>
          </Group>
        </form>
        {result && (
          <Alert color={result.ok ? 'green' : 'red'} title={result.ok ? 'Test mail sent' : 'Not sent'} role="status">
            <Stack gap={4}>
              <Text size="sm">{result.message}</Text>
              {result.id && <Link to={`/admin/mail/log/${result.id}`}>Open the log entry</Link>}
            </Stack>
          </Alert>
        )}
      </Stack>
    </Paper>
  );
}

/** `/admin/mail/settings[?website=]`: the default settings or a website's own, a test mail. */
export default function MailSettingsScreen() {
  const client = useQueryClient();
  const url = useUrlState(['website']);
  const websiteId = url.values.website;
  const settings = useQuery({
    queryKey: KEYS.settings(websiteId),
    queryFn: async () => unwrap(await api.GET('/mail-settings', { params: { query: websiteId ? { websiteId } : {} } })),
  });
  const providers = useQuery({
    queryKey: KEYS.providers,
    queryFn: async () => unwrap(await api.GET('/mail-providers')).providers,
  });
  const remove = async () => {
    const ok = await confirmDestructive({
      title: "Remove this website's own mail settings?",
      removes:
        'the settings of this website, with their stored password or keys. Its mail then uses the default settings.',
      confirmLabel: 'Remove settings',
    });
    if (!ok) return;
    try {
      unwrap(await api.DELETE('/mail-settings', { params: { query: { websiteId } } }));
      showSaved('Website settings removed: it uses the default now');
      await client.invalidateQueries({ queryKey: MAIL_KEY });
    } catch (err) {
      showSaveError(err);
    }
  };
  return (
    <Stack maw={820}>
      <PageHeader
        title="Mail settings"
        description="How the platform sends mail: your SMTP relay or an HTTP mail provider, per website if needed."
      />
      <ScopePicker websiteId={websiteId} onChange={(id) => url.set({ website: id })} />
      <QueryState query={settings}>
        {(s) => (
          <QueryState query={providers}>
            {(list) => (
              <Stack>
                <ScopeState settings={s} providers={list} />
                <SettingsForm
                  key={`${websiteId}:${s.updatedAt ?? 'none'}`}
                  settings={s}
                  providers={list}
                  onSaved={async () => {
                    showSaved('Mail settings saved');
                    await client.invalidateQueries({ queryKey: KEYS.settings(websiteId) });
                  }}
                />
                {websiteId && s.configured && (
                  <Group>
                    <Button color="red" variant="light" onClick={() => void remove()}>
                      Remove this website's settings
                    </Button>
                  </Group>
                )}
                <TestMail websiteId={websiteId} />
              </Stack>
            )}
          </QueryState>
        )}
      </QueryState>
    </Stack>
  );
}
