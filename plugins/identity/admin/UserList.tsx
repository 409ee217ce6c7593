import { Badge, Button, Group, Modal, MultiSelect, PasswordInput, Stack, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useDisclosure } from '@mantine/hooks';
import { useQueryClient } from '@tanstack/react-query';
import { IconPlus } from '@tabler/icons-react';
import { useNavigate } from 'react-router';
import { api, ListPage, PageHeader, showSaved, showSaveError, unwrap } from '../../admin-ui/app/src/sdk/index.ts';
import { KEYS, useRoles } from './queries.ts';

type User = { id: string; email: string; displayName: string; active: boolean; roles: string[]; mfaEnabled: boolean };

function NewUser({ onClose }: { onClose: () => void }) {
  const roles = useRoles();
  const client = useQueryClient();
  const navigate = useNavigate();
  const form = useForm({
    initialValues: { email: '', displayName: '', password: '', roles: [] as string[] },
    validate: { email: (v) => (/^\S+@\S+$/.test(v.trim()) ? null : 'Enter an e-mail address') },
  });
  return (
    <form
      onSubmit={form.onSubmit(async (v) => {
        try {
          const user = unwrap(
            await api.POST('/auth/users', {
              body: {
                email: v.email.trim(),
                roles: v.roles,
                ...(v.displayName.trim() ? { displayName: v.displayName.trim() } : {}),
                ...(v.password ? { password: v.password } : {}),
              },
            }),
          );
          showSaved(`User ${user.email} created`);
          await client.invalidateQueries({ queryKey: KEYS.users });
          onClose();
          await navigate(`/admin/users/${user.id}`);
        } catch (err) {
          showSaveError(err, form);
        }
      })}
    >
      <Stack>
        <TextInput label="E-mail" type="email" required {...form.getInputProps('email')} />
        <TextInput label="Display name" {...form.getInputProps('displayName')} />
        <PasswordInput
          label="Password"
          description="Leave empty to send the user a link to choose one"
          autoComplete="new-password"
          {...form.getInputProps('password')}
        />
        <MultiSelect
          label="Roles"
          data={(roles.data ?? []).map((r) => r.name)}
          searchable
          {...form.getInputProps('roles')}
        />
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" loading={form.submitting}>
            Create user
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

/** `/admin/users`: staff accounts, searchable, with their roles and second-factor state. */
export default function UserList() {
  const [creating, { open, close }] = useDisclosure();
  const navigate = useNavigate();
  return (
    <>
      <PageHeader
        title="Users"
        description="Staff accounts that sign in to this dashboard and the API."
        actions={
          <Button leftSection={<IconPlus size={16} aria-hidden />} onClick={open}>
            New user
          </Button>
        }
      />
      <ListPage<User>
        label="Users"
        queryKey={KEYS.users}
        rowKey="id"
        filters={[{ name: 'q', label: 'Search', type: 'text', placeholder: 'e-mail or name' }]}
        empty={{ title: 'No user matches' }}
        fetchPage={async ({ page, pageSize, filters }) => {
          const answer = unwrap(
            await api.GET('/auth/users', {
              params: {
                query: { limit: pageSize, offset: (page - 1) * pageSize, ...(filters.q ? { q: filters.q } : {}) },
              },
            }),
          );
          return { records: answer.users, total: answer.total };
        }}
        onRowClick={(u) => navigate(`/admin/users/${u.id}`)}
        columns={[
          { accessor: 'email', title: 'E-mail' },
          { accessor: 'displayName', title: 'Name' },
          { accessor: 'roles', title: 'Roles', render: (u) => u.roles.join(', ') },
          {
            accessor: 'active',
            title: 'State',
            render: (u) => (
              <Group gap={4}>
                <Badge color={u.active ? 'green' : 'gray'} variant="light">
                  {u.active ? 'Active' : 'Deactivated'}
                </Badge>
                {u.mfaEnabled && <Badge variant="light">2FA</Badge>}
              </Group>
            ),
          },
        ]}
      />
      <Modal opened={creating} onClose={close} title="New user">
        <NewUser onClose={close} />
      </Modal>
    </>
  );
}
