import { Button, Checkbox, Group, NumberInput, PasswordInput, Select, Stack, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { type ApiBody, showSaveError } from '../../admin-ui/app/src/sdk/index.ts';
import type { Source } from './model.ts';

export type SourceBody = ApiBody<'/migration-sources', 'post'>;

/**
 * Create or edit a source: its name, the Pimcore database and the server folders of its class files
 * and asset files. The password is write-only: an edit that leaves it empty keeps the stored one.
 */
export function SourceForm(props: {
  source?: Source;
  submitLabel: string;
  onSubmit: (body: SourceBody) => Promise<void>;
  onCancel?: () => void;
}) {
  const s = props.source;
  const form = useForm({
    initialValues: {
      name: s?.name ?? '',
      host: s?.connection.host ?? '',
      port: (s?.connection.port ?? 3306) as number | string,
      database: s?.connection.database ?? '',
      user: s?.connection.user ?? '',
      password: '',
      ssl: s?.connection.ssl ?? false,
      classPath: s?.classPath ?? '',
      assetsPath: s?.assetsPath ?? '',
    },
    validate: {
      name: (v) => (v.trim() ? null : 'A name people recognise, for example “Shop (Pimcore)”'),
      host: (v) => (v.trim() ? null : 'The database server, for example db.internal'),
      port: (v) => (Number(v) >= 1 && Number(v) <= 65535 ? null : 'A port from 1 to 65535'),
      database: (v) => (v.trim() ? null : 'The Pimcore database'),
      user: (v) => (v.trim() ? null : 'The database user'),
      classPath: (v) => (v.trim().startsWith('/') ? null : 'An absolute folder on the server, like var/classes'),
    },
  });
  return (
    <form
      noValidate
      onSubmit={form.onSubmit(async (v) => {
        try {
          await props.onSubmit({
            name: v.name.trim(),
            kind: 'pimcore',
            connection: {
              host: v.host.trim(),
              port: Number(v.port),
              database: v.database.trim(),
              user: v.user.trim(),
              ssl: v.ssl,
              ...(v.password ? { password: v.password } : {}),
            },
            classPath: v.classPath.trim(),
            assetsPath: v.assetsPath.trim() || null,
          });
        } catch (err) {
          // The API names connection fields as `connection.host`: put them on their input.
          showSaveError(err, {
            values: form.values,
            setFieldError: (path, message) => form.setFieldError(path.replace(/^connection\./, ''), message),
          });
        }
      })}
    >
      <Stack>
        <Group grow align="flex-start">
          <TextInput label="Name" required data-autofocus {...form.getInputProps('name')} />
          <Select
            label="Kind"
            data={[{ value: 'pimcore', label: 'Pimcore 11' }]}
            value="pimcore"
            allowDeselect={false}
          />
        </Group>
        <Group grow align="flex-start">
          <TextInput label="Database host" required {...form.getInputProps('host')} />
          <NumberInput label="Port" required min={1} max={65535} {...form.getInputProps('port')} />
        </Group>
        <Group grow align="flex-start">
          <TextInput label="Database name" required {...form.getInputProps('database')} />
          <TextInput label="Database user" required autoComplete="off" {...form.getInputProps('user')} />
        </Group>
        <PasswordInput
          label="Database password"
          autoComplete="new-password"
          description={s?.passwordSet ? 'Password set. Leave empty to keep it.' : 'Kept encrypted, never shown again.'}
          {...form.getInputProps('password')}
        />
        <Checkbox label="Connect with TLS (ssl)" {...form.getInputProps('ssl', { type: 'checkbox' })} />
        <TextInput
          label="Class folder"
          description="Pimcore's var/classes on this server (definition_<Name>.php, fieldcollections/, objectbricks/)"
          placeholder="/srv/pimcore/var/classes"
          required
          {...form.getInputProps('classPath')}
        />
        <TextInput
          label="Asset folder"
          description="Pimcore's public/var/assets on this server; empty: assets are not copied"
          placeholder="/srv/pimcore/public/var/assets"
          {...form.getInputProps('assetsPath')}
        />
        <Group justify="flex-end">
          {props.onCancel && (
            <Button variant="default" onClick={props.onCancel}>
              Cancel
            </Button>
          )}
          <Button type="submit" loading={form.submitting}>
            {props.submitLabel}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
