import {
  ActionIcon,
  Button,
  Group,
  NumberInput,
  Paper,
  Select,
  SimpleGrid,
  Stack,
  Switch,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { IconPlus, IconTrash } from '@tabler/icons-react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { type ReactNode, useState } from 'react';
import {
  api,
  ApiError,
  PageHeader,
  QueryState,
  showSaved,
  showSaveError,
  unwrap,
  useCan,
} from '../../admin-ui/app/src/sdk/index.ts';
import { keys } from './content-api.ts';

type SettingKey =
  | 'autosave'
  | 'default-placeholder-image'
  | 'strip-html-comments'
  | 'logging'
  | 'alpine-presets'
  | 'cdn-mirror';

/** One setting (`GET /cms-one/settings/<key>`). */
function useSetting<T>(key: SettingKey) {
  return useQuery({
    queryKey: [...keys.settings, key],
    queryFn: async () => unwrap<unknown>(await api.GET(`/cms-one/settings/${key}`)) as T,
  });
}

/** Saves one setting (`PUT /cms-one/settings/<key>`); the answer replaces the cached value. */
function useSave(key: SettingKey, label: string) {
  const client = useQueryClient();
  const [busy, setBusy] = useState(false);
  const save = async (body: object): Promise<ApiError | undefined> => {
    setBusy(true);
    try {
      const saved = unwrap<unknown>(await api.PUT(`/cms-one/settings/${key}`, { body: body as never }));
      client.setQueryData([...keys.settings, key], saved);
      showSaved(`${label} saved`);
      return undefined;
    } catch (err) {
      showSaveError(err);
      return err instanceof ApiError ? err : undefined;
    } finally {
      setBusy(false);
    }
  };
  return { save, busy };
}

function Card(props: { title: string; description: string; children: ReactNode }) {
  return (
    <Paper withBorder p="md" component="section" aria-label={props.title}>
      <Title order={2} size="h4">
        {props.title}
      </Title>
      <Text size="sm" c="dimmed" mb="sm">
        {props.description}
      </Text>
      {props.children}
    </Paper>
  );
}

function SaveButton({ busy, label }: { busy: boolean; label: string }) {
  return (
    <Group>
      <Button type="submit" loading={busy}>
        {label}
      </Button>
    </Group>
  );
}

function Autosave({ canEdit }: { canEdit: boolean }) {
  const setting = useSetting<{ enabled: boolean; intervalSeconds: number }>('autosave');
  return (
    <QueryState query={setting}>
      {(v) => <AutosaveForm key={JSON.stringify(v)} initial={v} canEdit={canEdit} />}
    </QueryState>
  );
}

function AutosaveForm({
  initial,
  canEdit,
}: {
  initial: { enabled: boolean; intervalSeconds: number };
  canEdit: boolean;
}) {
  const [enabled, setEnabled] = useState(initial.enabled);
  const [interval, setInterval] = useState<number | string>(initial.intervalSeconds);
  const { save, busy } = useSave('autosave', 'Autosave');
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        void save({ enabled, intervalSeconds: Number(interval) });
      }}
    >
      <Stack>
        <Switch
          label="The editor saves on its own"
          checked={enabled}
          disabled={!canEdit}
          onChange={(e) => setEnabled(e.currentTarget.checked)}
        />
        <NumberInput
          label="Every (seconds)"
          min={5}
          max={3600}
          value={interval}
          onChange={setInterval}
          readOnly={!canEdit}
          maw={220}
        />
        {canEdit && <SaveButton busy={busy} label="Save autosave" />}
      </Stack>
    </form>
  );
}

function Placeholder({ canEdit }: { canEdit: boolean }) {
  const setting = useSetting<{ url: string | null }>('default-placeholder-image');
  return (
    <QueryState query={setting}>
      {(v) => <PlaceholderForm key={v.url ?? ''} initial={v.url ?? ''} canEdit={canEdit} />}
    </QueryState>
  );
}

function PlaceholderForm({ initial, canEdit }: { initial: string; canEdit: boolean }) {
  const [url, setUrl] = useState(initial);
  const [error, setError] = useState<string>();
  const { save, busy } = useSave('default-placeholder-image', 'Placeholder image');
  return (
    <form
      onSubmit={async (e) => {
        e.preventDefault();
        setError((await save({ url: url.trim() || null }))?.message);
      }}
    >
      <Stack>
        <TextInput
          label="Image address"
          description="https://… or a path such as /assets/placeholder.png; empty: none"
          value={url}
          error={error}
          readOnly={!canEdit}
          onChange={(e) => setUrl(e.currentTarget.value)}
        />
        {canEdit && <SaveButton busy={busy} label="Save the placeholder" />}
      </Stack>
    </form>
  );
}

function Comments({ canEdit }: { canEdit: boolean }) {
  const setting = useSetting<{ enabled: boolean }>('strip-html-comments');
  const { save, busy } = useSave('strip-html-comments', 'HTML comments');
  return (
    <QueryState query={setting}>
      {(v) => (
        <Switch
          label="Remove HTML comments from rendered pages and e-mails"
          checked={v.enabled}
          disabled={!canEdit || busy}
          onChange={(e) => void save({ enabled: e.currentTarget.checked })}
        />
      )}
    </QueryState>
  );
}

function Logging({ canEdit }: { canEdit: boolean }) {
  const setting = useSetting<{ level: string }>('logging');
  const { save, busy } = useSave('logging', 'Editor logging');
  return (
    <QueryState query={setting}>
      {(v) => (
        <Select
          label="Level"
          data={['error', 'warn', 'info', 'debug']}
          value={v.level}
          allowDeselect={false}
          readOnly={!canEdit}
          disabled={busy}
          onChange={(level) => level && void save({ level })}
          maw={220}
        />
      )}
    </QueryState>
  );
}

interface Preset {
  name: string;
  description: string;
  directives: { key: string; value: string }[];
}

function Presets({ canEdit }: { canEdit: boolean }) {
  const setting = useSetting<{ presets: { name: string; description?: string; directives: Record<string, string> }[] }>(
    'alpine-presets',
  );
  return (
    <QueryState query={setting}>
      {(v) => (
        <PresetForm
          key={JSON.stringify(v)}
          initial={v.presets.map((p) => ({
            name: p.name,
            description: p.description ?? '',
            directives: Object.entries(p.directives).map(([key, value]) => ({ key, value })),
          }))}
          canEdit={canEdit}
        />
      )}
    </QueryState>
  );
}

function PresetForm({ initial, canEdit }: { initial: Preset[]; canEdit: boolean }) {
  const [presets, setPresets] = useState(initial);
  const [error, setError] = useState<ApiError>();
  const { save, busy } = useSave('alpine-presets', 'Alpine presets');
  const change = (i: number, p: Partial<Preset>) => setPresets(presets.map((x, j) => (j === i ? { ...x, ...p } : x)));
  const errorAt = (path: string) => (error?.field === path ? error.message : undefined);
  return (
    <form
      onSubmit={async (e) => {
        e.preventDefault();
        setError(
          await save({
            presets: presets.map((p) => ({
              name: p.name.trim(),
              description: p.description,
              directives: Object.fromEntries(
                p.directives.filter((d) => d.key.trim()).map((d) => [d.key.trim(), d.value]),
              ),
            })),
          }),
        );
      }}
    >
      <Stack>
        {presets.length === 0 && (
          <Text size="sm" c="dimmed">
            No presets yet.
          </Text>
        )}
        {presets.map((p, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: presets are edited in place, by position
          <Paper key={i} withBorder p="sm" component="fieldset" aria-label={`Preset ${i + 1}`}>
            <Stack gap="xs">
              <Group align="flex-end" wrap="wrap">
                <TextInput
                  label={`Preset ${i + 1} name`}
                  description="lower-case letters, digits and -"
                  value={p.name}
                  error={errorAt(`presets.${i}.name`)}
                  readOnly={!canEdit}
                  onChange={(e) => change(i, { name: e.currentTarget.value })}
                  style={{ flex: 1 }}
                  miw={180}
                />
                <TextInput
                  label={`Preset ${i + 1} description`}
                  value={p.description}
                  readOnly={!canEdit}
                  onChange={(e) => change(i, { description: e.currentTarget.value })}
                  style={{ flex: 2 }}
                  miw={180}
                />
                {canEdit && (
                  <ActionIcon
                    variant="subtle"
                    color="red"
                    size="lg"
                    aria-label={`Remove preset ${p.name || i + 1}`}
                    onClick={() => setPresets(presets.filter((_, j) => j !== i))}
                  >
                    <IconTrash size={16} aria-hidden />
                  </ActionIcon>
                )}
              </Group>
              {p.directives.map((d, k) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: directives are edited in place, by position
                <SimpleGrid key={k} cols={{ base: 1, sm: 2 }} spacing="xs">
                  <TextInput
                    label={`Preset ${i + 1} directive ${k + 1}`}
                    placeholder="x-data, @click, :class"
                    value={d.key}
                    error={errorAt(`presets.${i}.directives`)}
                    readOnly={!canEdit}
                    onChange={(e) =>
                      change(i, {
                        directives: p.directives.map((x, j) => (j === k ? { ...x, key: e.currentTarget.value } : x)),
                      })
                    }
                  />
                  <TextInput
                    label={`Preset ${i + 1} expression ${k + 1}`}
                    placeholder="{ open: false }"
                    value={d.value}
                    readOnly={!canEdit}
                    onChange={(e) =>
                      change(i, {
                        directives: p.directives.map((x, j) => (j === k ? { ...x, value: e.currentTarget.value } : x)),
                      })
                    }
                  />
                </SimpleGrid>
              ))}
              {canEdit && (
                <Group>
                  <Button
                    size="compact-sm"
                    variant="light"
                    onClick={() => change(i, { directives: [...p.directives, { key: '', value: '' }] })}
                  >
                    Add a directive to preset {i + 1}
                  </Button>
                </Group>
              )}
            </Stack>
          </Paper>
        ))}
        {error && !error.field?.match(/^presets\.\d+\.name$/) && (
          <Text size="sm" c="red" role="alert">
            {error.message}
          </Text>
        )}
        {canEdit && (
          <Group>
            <Button
              variant="light"
              leftSection={<IconPlus size={16} aria-hidden />}
              onClick={() =>
                setPresets([...presets, { name: '', description: '', directives: [{ key: 'x-data', value: '' }] }])
              }
            >
              Add a preset
            </Button>
            <Button type="submit" loading={busy}>
              Save the presets
            </Button>
          </Group>
        )}
      </Stack>
    </form>
  );
}

function CdnMirror({ canManage }: { canManage: boolean }) {
  const setting = useSetting<{ enabled: boolean; baseUrl: string | null }>('cdn-mirror');
  return (
    <QueryState query={setting}>
      {(v) => <CdnForm key={JSON.stringify(v)} initial={v} canManage={canManage} />}
    </QueryState>
  );
}

function CdnForm({
  initial,
  canManage,
}: {
  initial: { enabled: boolean; baseUrl: string | null };
  canManage: boolean;
}) {
  const [enabled, setEnabled] = useState(initial.enabled);
  const [baseUrl, setBaseUrl] = useState(initial.baseUrl ?? '');
  const [error, setError] = useState<string>();
  const { save, busy } = useSave('cdn-mirror', 'CDN mirroring');
  return (
    <form
      onSubmit={async (e) => {
        e.preventDefault();
        setError((await save({ enabled, baseUrl: baseUrl.trim() || null }))?.message);
      }}
    >
      <Stack>
        <Switch
          label="Mirror public files to a CDN by default"
          checked={enabled}
          disabled={!canManage}
          onChange={(e) => setEnabled(e.currentTarget.checked)}
        />
        <TextInput
          label="CDN address"
          placeholder="https://cdn.example.com"
          value={baseUrl}
          error={error}
          readOnly={!canManage}
          onChange={(e) => setBaseUrl(e.currentTarget.value)}
        />
        {canManage && <SaveButton busy={busy} label="Save CDN mirroring" />}
      </Stack>
    </form>
  );
}

/** `/admin/content-settings`: the editor's organisation-wide settings. */
export default function EditorSettings() {
  const can = useCan();
  const canEdit = can('content_settings:edit');
  return (
    <>
      <PageHeader
        title="Editor settings"
        description="How the page and snippet editor behaves for everyone in the organisation."
      />
      <Stack gap="lg">
        <Card title="Autosave" description="The default for every editor; each person can still save by hand.">
          <Autosave canEdit={canEdit} />
        </Card>
        <Card title="Placeholder image" description="Shown where an image block has no image yet.">
          <Placeholder canEdit={canEdit} />
        </Card>
        <Card title="HTML comments" description="Comments in the node trees' HTML are kept unless removed here.">
          <Comments canEdit={canEdit} />
        </Card>
        <Card title="Alpine presets" description="Named sets of Alpine.js directives editors can attach to a block.">
          <Presets canEdit={canEdit} />
        </Card>
        <Card title="Editor logging" description="How much the editor writes to the browser console.">
          <Logging canEdit={canEdit} />
        </Card>
        <Card title="CDN mirroring" description="Changing it needs the settings:manage permission.">
          <CdnMirror canManage={can('settings:manage')} />
        </Card>
      </Stack>
    </>
  );
}
