import { Badge, Button, Code, Group, Paper, PasswordInput, Stack, Text, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router';
import {
  api,
  ApiError,
  confirmDestructive,
  PageHeader,
  QueryState,
  showSaved,
  showSaveError,
  TextLink,
  unwrap,
} from '../../admin-ui/app/src/sdk/index.ts';
import { type FigmaSettings as Settings, KEYS } from './model.ts';

/** The token form: write-only, the field starts empty and a blank save keeps the stored token. */
function TokenForm({ settings }: { settings: Settings }) {
  const client = useQueryClient();
  const form = useForm({ initialValues: { token: '' } });
  const save = async (token: string | null) => {
    try {
      const next = unwrap(await api.PUT('/figma/settings', { body: { token } }));
      client.setQueryData(KEYS.settings, next);
      form.reset();
      showSaved(token === null ? 'Figma access token removed' : 'Figma access token saved');
    } catch (err) {
      if (err instanceof ApiError && err.field === 'token') form.setFieldError('token', err.message);
      else showSaveError(err);
    }
  };
  return (
    <form
      noValidate
      onSubmit={form.onSubmit(async (v) => {
        if (!v.token.trim()) {
          form.setFieldError('token', 'Type a personal access token (figd_…) to save it');
          return;
        }
        await save(v.token.trim());
      })}
    >
      <Stack gap="md" maw={560}>
        <PasswordInput
          label={settings.tokenSet ? 'Replace the access token' : 'Access token'}
          description="A Figma personal access token with read access to files (file_content:read). It is stored encrypted and never shown again."
          autoComplete="off"
          {...form.getInputProps('token')}
        />
        <Group>
          <Button type="submit" loading={form.submitting}>
            Save token
          </Button>
          {settings.tokenSet && (
            <Button
              variant="default"
              color="red"
              onClick={async () => {
                const ok = await confirmDestructive({
                  title: 'Remove the Figma access token?',
                  removes: 'the stored Figma access token; imports from Figma stop until a new one is saved.',
                  confirmLabel: 'Remove token',
                });
                if (ok) await save(null);
              }}
            >
              Remove token
            </Button>
          )}
        </Group>
      </Stack>
    </form>
  );
}

/** `/admin/figma/settings`: the workspace's Figma access token and the API the server calls. */
export default function FigmaSettingsScreen() {
  const settings = useQuery({
    queryKey: KEYS.settings,
    queryFn: async () => unwrap(await api.GET('/figma/settings')),
    retry: false,
  });
  return (
    <>
      <PageHeader
        title="Figma settings"
        description="The access token the server uses to read design files when someone imports from Figma."
        actions={
          <Button component={Link} to="/admin/figma/import" variant="light">
            Import from Figma
          </Button>
        }
      />
      <QueryState query={settings}>
        {(s) => (
          <Stack gap="lg">
            <Paper withBorder p="lg">
              <Stack gap="sm">
                <Title order={2} size="h4">
                  Access token
                </Title>
                <Group gap="xs">
                  <Text size="sm">Token:</Text>
                  <Badge color={s.tokenSet ? 'green' : 'gray'} variant="light">
                    {s.tokenSet ? `set, ending in ${s.tokenHint}` : 'not set'}
                  </Badge>
                </Group>
                <TokenForm settings={s} />
              </Stack>
            </Paper>
            <Paper withBorder p="lg">
              <Stack gap="xs">
                <Title order={2} size="h4">
                  Figma API
                </Title>
                <Text size="sm">
                  The server calls <Code>{s.apiUrl}</Code>. It is set by the <Code>FIGMA_API_URL</Code> environment
                  variable, not here; every call goes through the outbound policy.
                </Text>
                <Text size="sm">
                  Imported pages are drafts: <TextLink to="/admin/figma/import">import a frame</TextLink>, then edit and
                  publish it in the page editor.
                </Text>
              </Stack>
            </Paper>
          </Stack>
        )}
      </QueryState>
    </>
  );
}
