import { Button, Group, MultiSelect, Paper, Stack, Switch, Text, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
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
import { KEYS, type User, useRoles } from './queries.ts';

function UserForm({ user }: { user: User }) {
  const roles = useRoles();
  const client = useQueryClient();
  const remove = useRemoveRecord<User>({
    confirm: (u) => ({
      title: `Delete ${u.email}?`,
      removes: `the account ${u.email}, its sessions and its second factor. Its audit entries stay.`,
      confirmLabel: 'Delete the user',
    }),
    run: async (u) => unwrap(await api.DELETE('/auth/users/{id}', { params: { path: { id: u.id } } })),
    saved: (u) => `${u.email} deleted`,
    invalidate: KEYS.users,
    goTo: '/admin/users',
  });
  const form = useForm({
    initialValues: { email: user.email, displayName: user.displayName, active: user.active, roles: user.roles },
  });
  const { setValues, resetDirty } = form;
  useEffect(() => {
    setValues({ email: user.email, displayName: user.displayName, active: user.active, roles: user.roles });
    resetDirty();
  }, [user, setValues, resetDirty]);
  const id = user.id;
  return (
    <Stack>
      <Paper withBorder p="lg">
        <form
          onSubmit={form.onSubmit(async (v) => {
            try {
              unwrap(await api.PATCH('/auth/users/{id}', { params: { path: { id } }, body: v }));
              showSaved('Saved');
              await client.invalidateQueries({ queryKey: KEYS.users });
            } catch (err) {
              showSaveError(err, form);
            }
          })}
        >
          <Stack>
            <TextInput label="E-mail" type="email" required {...form.getInputProps('email')} />
            <TextInput label="Display name" {...form.getInputProps('displayName')} />
            <MultiSelect
              label="Roles"
              data={(roles.data ?? []).map((r) => r.name)}
              searchable
              {...form.getInputProps('roles')}
            />
            <Switch
              label="Active (may sign in)"
              description="Deactivating ends the user's sessions"
              {...form.getInputProps('active', { type: 'checkbox' })}
            />
            <Group>
              <Button type="submit" loading={form.submitting} disabled={!form.isDirty()}>
                Save
              </Button>
            </Group>
          </Stack>
        </form>
      </Paper>
      <Paper withBorder p="lg">
        <Stack gap="sm">
          <Text fw={600}>Password</Text>
          <Text size="sm">
            A forced reset ends the user's sessions and e-mails them a link to choose a new password.
          </Text>
          <Button
            variant="light"
            w="fit-content"
            onClick={async () => {
              try {
                unwrap(await api.POST('/auth/users/{id}/reset-password', { params: { path: { id } }, body: {} }));
                showSaved(`A reset link was sent to ${user.email}`);
              } catch (err) {
                showSaveError(err);
              }
            }}
          >
            Force a password reset
          </Button>
        </Stack>
      </Paper>
      <Paper withBorder p="lg">
        <Stack gap="sm">
          <Text fw={600}>Delete</Text>
          <Button color="red" variant="light" w="fit-content" onClick={() => void remove(user)}>
            Delete the user
          </Button>
        </Stack>
      </Paper>
    </Stack>
  );
}

/** `/admin/users/:id`: one account's e-mail, name, roles and state; forced reset; deletion. */
export default function UserEdit() {
  const { id = '' } = useParams();
  const user = useQuery({
    queryKey: KEYS.user(id),
    queryFn: async () => unwrap(await api.GET('/auth/users/{id}', { params: { path: { id } } })),
  });
  return (
    <Stack maw={720}>
      <PageHeader title={user.data ? user.data.email : 'User'} description="A staff account." />
      <QueryState query={user}>{(u) => <UserForm user={u} />}</QueryState>
    </Stack>
  );
}
