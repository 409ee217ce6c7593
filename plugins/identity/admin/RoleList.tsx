import { Badge, Group, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useNavigate } from 'react-router';
import { api, CreateDialog, CreateForm, ListPage, PageHeader, unwrap } from '../../admin-ui/app/src/sdk/index.ts';
import { KEYS, type Role } from './queries.ts';

function NewRole({ onClose }: { onClose: () => void }) {
  const form = useForm({
    initialValues: { name: '', description: '' },
    validate: { name: (v) => (v.trim() ? null : 'Name the role') },
  });
  return (
    <CreateForm
      form={form}
      create={async (v) =>
        unwrap(
          await api.POST('/auth/roles', { body: { name: v.name.trim(), description: v.description, permissions: [] } }),
        )
      }
      saved={(role) => `Role ${role.name} created: now choose its permissions`}
      invalidate={KEYS.roles}
      goTo={(role) => `/admin/roles/${role.id}`}
      submitLabel="Create role"
      onClose={onClose}
    >
      <TextInput label="Name" required data-autofocus {...form.getInputProps('name')} />
      <TextInput label="Description" {...form.getInputProps('description')} />
    </CreateForm>
  );
}

/** `/admin/roles`: the roles, how many keys and users each has. */
export default function RoleList() {
  const navigate = useNavigate();
  return (
    <>
      <PageHeader
        title="Roles"
        description="A role is a set of permission keys; a user holds the keys of all their roles."
        actions={<CreateDialog label="New role">{(close) => <NewRole onClose={close} />}</CreateDialog>}
      />
      <ListPage<Role>
        label="Roles"
        queryKey={KEYS.roles}
        rowKey="id"
        empty={{ title: 'No roles' }}
        pageSize={100}
        fetchPage={async () => {
          const { roles } = unwrap(await api.GET('/auth/roles'));
          return { records: roles, total: roles.length };
        }}
        onRowClick={(r) => navigate(`/admin/roles/${r.id}`)}
        columns={[
          {
            accessor: 'name',
            title: 'Name',
            render: (r) => (
              <Group gap={6}>
                {r.name}
                {r.builtin && <Badge variant="light">built in</Badge>}
              </Group>
            ),
          },
          { accessor: 'description', title: 'Description' },
          { accessor: 'permissions', title: 'Keys', render: (r) => r.permissions.length },
          { accessor: 'userCount', title: 'Users' },
        ]}
      />
    </>
  );
}
