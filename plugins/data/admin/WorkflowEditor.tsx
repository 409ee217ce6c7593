import { ActionIcon, Button, Group, MultiSelect, Paper, Select, Stack, Text, TextInput, Title } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { IconPlus, IconTrash } from '@tabler/icons-react';
import { useEffect, useState } from 'react';
import {
  ApiError,
  api,
  confirmDestructive,
  showSaved,
  showSaveError,
  unwrap,
  useCan,
  useMe,
} from '../../admin-ui/app/src/sdk/index.ts';
import { type DataClass, keys, type Workflow } from './model.ts';

const EMPTY: Workflow = { places: [{ name: 'draft' }], transitions: [] };

/**
 * The permission keys a transition may declare: every key (`GET /auth/permissions`, which needs
 * `users:manage`), otherwise the keys the user holds.
 */
function usePermissionKeys(): string[] {
  const can = useCan();
  const me = useMe();
  const all = useQuery({
    queryKey: ['data', 'permission-keys'],
    enabled: can('users:manage'),
    queryFn: async () => unwrap(await api.GET('/auth/permissions')).permissions.map((p) => p.key),
  });
  return all.data ?? me.data?.permissions ?? [];
}

/** A class's workflow: places, transitions between them and the keys each transition needs. */
export function WorkflowEditor({ cls, canManage }: { cls: DataClass; canManage: boolean }) {
  const client = useQueryClient();
  // The class carries its workflow (null without one): no request of its own, which would answer 404.
  const stored = cls.workflow;
  const refresh = () => client.invalidateQueries({ queryKey: keys.class(cls.id) });
  const permissionKeys = usePermissionKeys();
  const [draft, setDraft] = useState<Workflow | null>(null);
  const [error, setError] = useState<ApiError>();
  const [busy, setBusy] = useState(false);
  useEffect(() => setDraft(stored), [stored]);
  const ro = !canManage;
  if (!draft)
    return (
      <Stack align="flex-start">
        <Text size="sm">
          This class has no workflow: objects are only drafts or published. A workflow adds places (such as “in review”)
          and the transitions editors may run between them.
        </Text>
        {canManage && <Button onClick={() => setDraft(EMPTY)}>Add a workflow</Button>}
      </Stack>
    );
  const places = draft.places.map((p) => p.name).filter(Boolean);
  const set = (w: Partial<Workflow>) => setDraft({ ...draft, ...w });
  const fieldError = (path: string) => (error?.field === path ? error.message : undefined);
  const save = async () => {
    setBusy(true);
    setError(undefined);
    try {
      unwrap(await api.PUT('/data-classes/{id}/workflow', { params: { path: { id: cls.id } }, body: draft as never }));
      await refresh();
      showSaved('Workflow saved');
    } catch (err) {
      if (err instanceof ApiError) setError(err);
      showSaveError(err);
    } finally {
      setBusy(false);
    }
  };
  const remove = async () => {
    if (!stored) {
      setDraft(null);
      return;
    }
    const ok = await confirmDestructive({
      title: `Remove the workflow of ${cls.label || cls.name}?`,
      removes: `its ${stored.places.length} places and ${stored.transitions.length} transitions. Objects keep their current place name and are no longer moved by transitions.`,
      confirmLabel: 'Remove the workflow',
    });
    if (!ok) return;
    try {
      unwrap<unknown>(await api.DELETE('/data-classes/{id}/workflow', { params: { path: { id: cls.id } } }));
      await refresh();
      showSaved('Workflow removed');
    } catch (err) {
      showSaveError(err);
    }
  };
  return (
    <Stack
      component="form"
      aria-label="Workflow"
      // A form, so the dashboard's unsaved-changes guard covers the workflow's edits.
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
    >
      <section aria-labelledby="wf-places">
        <Title order={2} size="h4" id="wf-places" mb="xs">
          Places
        </Title>
        <Stack gap="xs">
          {draft.places.map((p, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: the position is the place's identity while editing
            <Group key={i} align="flex-end" wrap="nowrap">
              <TextInput
                label={`Place ${i + 1} name`}
                readOnly={ro}
                value={p.name}
                error={fieldError(`places.${i}.name`)}
                onChange={(e) =>
                  set({ places: draft.places.map((x, j) => (j === i ? { ...x, name: e.currentTarget.value } : x)) })
                }
              />
              <TextInput
                label={`Place ${i + 1} label`}
                readOnly={ro}
                value={p.label ?? ''}
                onChange={(e) =>
                  set({ places: draft.places.map((x, j) => (j === i ? { ...x, label: e.currentTarget.value } : x)) })
                }
              />
              {!ro && (
                <ActionIcon
                  variant="subtle"
                  color="red"
                  mb={4}
                  aria-label={`Remove place ${p.name || i + 1}`}
                  onClick={() => set({ places: draft.places.filter((_, j) => j !== i) })}
                >
                  <IconTrash size={16} />
                </ActionIcon>
              )}
            </Group>
          ))}
          {!ro && (
            <Group>
              <Button
                variant="light"
                size="xs"
                leftSection={<IconPlus size={14} />}
                onClick={() => set({ places: [...draft.places, { name: '' }] })}
              >
                Add a place
              </Button>
            </Group>
          )}
          <Select
            label="Objects start in"
            readOnly={ro}
            data={places}
            value={draft.initialPlace ?? places[0] ?? null}
            error={fieldError('initialPlace')}
            onChange={(v) => set({ initialPlace: v ?? undefined })}
            maw={320}
          />
        </Stack>
      </section>
      <section aria-labelledby="wf-transitions">
        <Title order={2} size="h4" id="wf-transitions" mb="xs">
          Transitions
        </Title>
        <Stack gap="xs">
          {draft.transitions.length === 0 && (
            <Text size="sm" c="dimmed">
              No transitions yet.
            </Text>
          )}
          {draft.transitions.map((t, i) => {
            const setT = (c: Partial<Workflow['transitions'][number]>) =>
              set({ transitions: draft.transitions.map((x, j) => (j === i ? { ...x, ...c } : x)) });
            return (
              // biome-ignore lint/suspicious/noArrayIndexKey: the position is the transition's identity while editing
              <Paper key={i} withBorder p="sm" role="group" aria-label={`Transition ${t.name || i + 1}`}>
                <Group grow align="flex-start" wrap="wrap">
                  <TextInput
                    label="Name"
                    readOnly={ro}
                    value={t.name}
                    error={fieldError(`transitions.${i}.name`)}
                    onChange={(e) => setT({ name: e.currentTarget.value })}
                    miw={160}
                  />
                  <TextInput
                    label="Label"
                    readOnly={ro}
                    value={t.label ?? ''}
                    onChange={(e) => setT({ label: e.currentTarget.value })}
                    miw={160}
                  />
                  <MultiSelect
                    label="From"
                    readOnly={ro}
                    data={places}
                    value={t.from}
                    error={error?.field?.startsWith(`transitions.${i}.from`) ? error.message : undefined}
                    onChange={(from) => setT({ from })}
                    miw={160}
                  />
                  <Select
                    label="To"
                    readOnly={ro}
                    data={places}
                    value={t.to || null}
                    error={fieldError(`transitions.${i}.to`)}
                    onChange={(to) => setT({ to: to ?? '' })}
                    miw={140}
                  />
                </Group>
                <Group align="flex-end" mt="xs" wrap="nowrap">
                  <MultiSelect
                    label="Permissions needed"
                    description="Every key listed; none means the editor's write permission"
                    readOnly={ro}
                    data={[...new Set([...permissionKeys, ...t.permissions])]}
                    value={t.permissions}
                    searchable
                    onChange={(permissions) => setT({ permissions })}
                    style={{ flex: 1 }}
                  />
                  {!ro && (
                    <ActionIcon
                      variant="subtle"
                      color="red"
                      mb={4}
                      aria-label={`Remove transition ${t.name || i + 1}`}
                      onClick={() => set({ transitions: draft.transitions.filter((_, j) => j !== i) })}
                    >
                      <IconTrash size={16} />
                    </ActionIcon>
                  )}
                </Group>
              </Paper>
            );
          })}
          {!ro && (
            <Group>
              <Button
                variant="light"
                size="xs"
                leftSection={<IconPlus size={14} />}
                onClick={() =>
                  set({ transitions: [...draft.transitions, { name: '', from: [], to: '', permissions: [] }] })
                }
              >
                Add a transition
              </Button>
            </Group>
          )}
        </Stack>
      </section>
      {canManage && (
        <Group>
          <Button type="submit" loading={busy}>
            Save the workflow
          </Button>
          <Button variant="default" color="red" onClick={remove}>
            Remove the workflow
          </Button>
        </Group>
      )}
    </Stack>
  );
}
