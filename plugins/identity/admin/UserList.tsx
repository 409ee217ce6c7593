import { Badge, Group, MultiSelect, PasswordInput, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useNavigate } from 'react-router';
import { api, CreateDialog, CreateForm, ListPage, PageHeader, unwrap } from '../../admin-ui/app/src/sdk/index.ts';
import { KEYS, type User, useRoles } from './queries.ts';

function NewUser({ onClose }: { onClose: () => void }) {
  const roles = useRoles();
  const form = useForm({
    initialValues: { email: '', displayName: '', password: '', roles: [] as string[] },
    validate: { email: (v) => (/^\S+@\S+$/.test(v.trim()) ? null : 'Enter an e-mail address') },
  });
  return (
    <CreateForm
      form={form}
      create={async (v) =>
        unwrap(
          await api.POST('/auth/users', {
            body: {
              email: v.email.trim(),
              roles: v.roles,
              ...(v.displayName.trim() ? { displayName: v.displayName.trim() } : {}),
              ...(v.password ? { password: v.password } : {}),
            },
          }),
        )
      }
      saved={(user) => `User ${user.email} created`}
      invalidate={KEYS.users}
      goTo={(user) => `/admin/users/${user.id}`}
      submitLabel="Create user"
      onClose={onClose}
    >
      <TextInput label="E-mail" type="email" required data-autofocus {...form.getInputProps('email')} />
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
    </CreateForm>
  );
}

/** `/admin/users`: staff accounts, searchable, with their roles and second-factor state. */
export default function UserList() {
  const navigate = useNavigate();
  return (
    <>
      <PageHeader
        title="Users"
        description="Staff accounts that sign in to this dashboard and the API."
        actions={<CreateDialog label="New user">{(close) => <NewUser onClose={close} />}</CreateDialog>}
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
    </>
  );
}
