import { Accordion, Badge, Button, Checkbox, Group, Paper, Stack, Text, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useMemo } from 'react';
import { useParams } from 'react-router';
import {
  api,
  useRemoveRecord,
  PageHeader,
  QueryState,
  showSaved,
  showSaveError,
  unwrap,
} from '../../admin-ui/app/src/sdk/index.ts';
import { KEYS, type Permission, type Role } from './queries.ts';

/** The group of the keys several plugins declare (their `owner` lists them all, comma-separated). */
const SHARED = 'shared by several plugins';

/** Permission keys by the plugin that declares them, in name order; shared keys first, in a group of their own. */
function byOwner(keys: Permission[]): [string, Permission[]][] {
  const groups = new Map<string, Permission[]>();
  for (const p of keys) {
    const group = p.owner.includes(',') ? SHARED : p.owner;
    groups.set(group, [...(groups.get(group) ?? []), p]);
  }
  return [...groups.entries()].sort(([a], [b]) => (a === SHARED ? -1 : b === SHARED ? 1 : a.localeCompare(b)));
}

/** An accordion value: it ends up in element ids and ARIA references, so no spaces or commas. */
const groupId = (group: string) => group.replace(/[^A-Za-z0-9_-]+/g, '-');

/** A key's description, and where else it comes from. */
function permissionNote(p: Permission, through: string | undefined, held: boolean): string {
  if (through && !held) return `${p.description} (granted by ${through === '*' ? 'every permission, *' : through})`;
  return p.grantedBy.length > 0 ? `${p.description} (also granted by ${p.grantedBy.join(', ')})` : p.description;
}

function RoleForm({ role, permissions }: { role: Role; permissions: Permission[] }) {
  const client = useQueryClient();
  const remove = useRemoveRecord<Role>({
    confirm: (r) => ({
      title: `Delete the role ${r.name}?`,
      removes: `the role ${r.name} and its ${r.permissions.length} keys from ${r.userCount} user(s), who lose what only this role gave them.`,
      confirmLabel: 'Delete the role',
    }),
    run: async (r) => unwrap(await api.DELETE('/auth/roles/{id}', { params: { path: { id: r.id } } })),
    saved: (r) => `Role ${r.name} deleted`,
    invalidate: KEYS.roles,
    goTo: '/admin/roles',
  });
  const form = useForm({
    initialValues: { name: role.name, description: role.description, permissions: role.permissions },
  });
  const { setValues, resetDirty } = form;
  useEffect(() => {
    setValues({ name: role.name, description: role.description, permissions: role.permissions });
    resetDirty();
  }, [role, setValues, resetDirty]);
  const groups = useMemo(() => byOwner(permissions), [permissions]);
  const chosen = new Set(form.values.permissions);
  // A key the role gets through another of its keys (or through `*`) is granted: it shows ticked,
  // and can only be taken away with the key that grants it.
  const grantedThrough = (p: Permission): string | undefined =>
    chosen.has('*') ? '*' : p.grantedBy.find((key) => chosen.has(key));
  const holds = (p: Permission) => chosen.has(p.key) || grantedThrough(p) !== undefined;
  const id = role.id;
  return (
    <form
      onSubmit={form.onSubmit(async (v) => {
        try {
          unwrap(await api.PATCH('/auth/roles/{id}', { params: { path: { id } }, body: v }));
          showSaved('Role saved');
          await client.invalidateQueries({ queryKey: KEYS.roles });
        } catch (err) {
          showSaveError(err, form);
        }
      })}
    >
      <Stack>
        <Paper withBorder p="lg">
          <Stack>
            <TextInput label="Name" required disabled={role.builtin} {...form.getInputProps('name')} />
            <TextInput label="Description" {...form.getInputProps('description')} />
            <Text size="sm">
              {role.userCount} user{role.userCount === 1 ? '' : 's'} hold{role.userCount === 1 ? 's' : ''} this role.
            </Text>
          </Stack>
        </Paper>
        <Paper withBorder p="lg">
          <Text fw={600} mb="xs" component="h2">
            Permissions ({permissions.filter(holds).length})
          </Text>
          {chosen.has('*') && (
            <Text size="sm" mb="xs">
              This role holds every permission (*), including those of plugins added later.
            </Text>
          )}
          <Accordion multiple defaultValue={groups.map(([owner]) => groupId(owner))} variant="separated">
            {groups.map(([owner, keys]) => (
              <Accordion.Item key={owner} value={groupId(owner)}>
                <Accordion.Control>
                  <Group gap="xs">
                    <Text fw={600}>{owner}</Text>
                    <Badge variant="light">
                      {keys.filter(holds).length}/{keys.length}
                    </Badge>
                  </Group>
                </Accordion.Control>
                <Accordion.Panel>
                  <Stack gap="xs">
                    {keys.map((p) => (
                      <Checkbox
                        key={p.key}
                        label={p.key}
                        description={permissionNote(p, grantedThrough(p), chosen.has(p.key))}
                        checked={holds(p)}
                        disabled={!chosen.has(p.key) && grantedThrough(p) !== undefined}
                        onChange={(e) =>
                          form.setFieldValue(
                            'permissions',
                            e.currentTarget.checked
                              ? [...form.values.permissions, p.key]
                              : form.values.permissions.filter((k) => k !== p.key),
                          )
                        }
                      />
                    ))}
                  </Stack>
                </Accordion.Panel>
              </Accordion.Item>
            ))}
          </Accordion>
        </Paper>
        <Group>
          <Button type="submit" loading={form.submitting} disabled={!form.isDirty()}>
            Save
          </Button>
          {!role.builtin && (
            <Button color="red" variant="light" onClick={() => void remove(role)}>
              Delete the role
            </Button>
          )}
        </Group>
      </Stack>
    </form>
  );
}

/** `/admin/roles/:id`: a role's name and its permission keys, grouped by the plugin declaring them. */
export default function RoleEdit() {
  const { id = '' } = useParams();
  const role = useQuery({
    queryKey: [...KEYS.roles, id],
    queryFn: async () => unwrap(await api.GET('/auth/roles/{id}', { params: { path: { id } } })),
  });
  const permissions = useQuery({
    queryKey: KEYS.permissions,
    queryFn: async () => unwrap(await api.GET('/auth/permissions')).permissions,
    staleTime: 5 * 60_000,
  });
  return (
    <Stack maw={860}>
      <PageHeader title={role.data ? `Role ${role.data.name}` : 'Role'} />
      <QueryState query={role}>
        {(r) => <QueryState query={permissions}>{(keys) => <RoleForm role={r} permissions={keys} />}</QueryState>}
      </QueryState>
    </Stack>
  );
}
