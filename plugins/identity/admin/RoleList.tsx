import { Badge, Button, Group, Modal, Stack, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useDisclosure } from '@mantine/hooks';
import { useQueryClient } from '@tanstack/react-query';
import { IconPlus } from '@tabler/icons-react';
import { useNavigate } from 'react-router';
import { api, ListPage, PageHeader, showSaved, showSaveError, unwrap } from '../../admin-ui/app/src/sdk/index.ts';
import { KEYS } from './queries.ts';

type Role = {
  id: string;
  name: string;
  description: string;
  permissions: string[];
  builtin: boolean;
  userCount: number;
};

function NewRole({ onClose }: { onClose: () => void }) {
  const client = useQueryClient();
  const navigate = useNavigate();
  const form = useForm({
    initialValues: { name: '', description: '' },
    validate: { name: (v) => (v.trim() ? null : 'Name the role') },
  });
  return (
    <form
      onSubmit={form.onSubmit(async (v) => {
        try {
          const role = unwrap(
            await api.POST('/auth/roles', {
              body: { name: v.name.trim(), description: v.description, permissions: [] },
            }),
          );
          showSaved(`Role ${role.name} created: now choose its permissions`);
          await client.invalidateQueries({ queryKey: KEYS.roles });
          onClose();
          await navigate(`/admin/roles/${role.id}`);
        } catch (err) {
          showSaveError(err, form);
        }
      })}
    >
      <Stack>
        <TextInput label="Name" required {...form.getInputProps('name')} />
        <TextInput label="Description" {...form.getInputProps('description')} />
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" loading={form.submitting}>
            Create role
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

/** `/admin/roles`: the roles, how many keys and users each has. */
export default function RoleList() {
  const [creating, { open, close }] = useDisclosure();
  const navigate = useNavigate();
  return (
    <>
      <PageHeader
        title="Roles"
        description="A role is a set of permission keys; a user holds the keys of all their roles."
        actions={
          <Button leftSection={<IconPlus size={16} aria-hidden />} onClick={open}>
            New role
          </Button>
        }
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
      <Modal opened={creating} onClose={close} title="New role">
        <NewRole onClose={close} />
      </Modal>
    </>
  );
}
