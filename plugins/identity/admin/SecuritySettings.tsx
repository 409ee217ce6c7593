import { Button, Group, MultiSelect, NumberInput, Paper, Stack, Switch } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api, PageHeader, QueryState, showSaved, showSaveError, unwrap } from '../../admin-ui/app/src/sdk/index.ts';
import { KEYS, useRoles } from './queries.ts';

type Settings = {
  mfaRequiredRoles: string[];
  passwordPolicy: { minLength: number; requireThreeClasses: boolean };
  mailLogRetentionDays?: number | null;
};

function SettingsForm({ settings }: { settings: Settings }) {
  const roles = useRoles();
  const client = useQueryClient();
  const form = useForm({
    initialValues: {
      mfaRequiredRoles: settings.mfaRequiredRoles,
      minLength: settings.passwordPolicy.minLength,
      requireThreeClasses: settings.passwordPolicy.requireThreeClasses,
      mailLogRetentionDays: settings.mailLogRetentionDays ?? '',
    },
  });
  return (
    <form
      onSubmit={form.onSubmit(async (v) => {
        try {
          unwrap(
            await api.PUT('/security-settings', {
              body: {
                mfaRequiredRoles: v.mfaRequiredRoles,
                passwordPolicy: { minLength: Number(v.minLength), requireThreeClasses: v.requireThreeClasses },
                mailLogRetentionDays: v.mailLogRetentionDays === '' ? null : Number(v.mailLogRetentionDays),
              },
            }),
          );
          showSaved('Security settings saved');
          await client.invalidateQueries({ queryKey: KEYS.settings });
        } catch (err) {
          showSaveError(err, form);
        }
      })}
    >
      <Paper withBorder p="lg">
        <Stack>
          <MultiSelect
            label="Roles that must use two-factor sign-in"
            description="Their users get no session until they have set up a second factor"
            data={(roles.data ?? []).map((r) => r.name)}
            searchable
            {...form.getInputProps('mfaRequiredRoles')}
          />
          <NumberInput
            label="Shortest password"
            description="Characters; applies wherever a password is set"
            min={8}
            max={1024}
            {...form.getInputProps('minLength')}
          />
          <Switch
            label="Passwords mix three kinds of characters (lower case, upper case, digits, others)"
            {...form.getInputProps('requireThreeClasses', { type: 'checkbox' })}
          />
          <NumberInput
            label="Keep the mail log for (days)"
            description="Empty: keep it"
            min={1}
            max={36500}
            {...form.getInputProps('mailLogRetentionDays')}
          />
          <Group>
            <Button type="submit" loading={form.submitting} disabled={!form.isDirty()}>
              Save
            </Button>
          </Group>
        </Stack>
      </Paper>
    </form>
  );
}

/** `/admin/security-settings`: mandatory 2FA by role, the password policy, mail log retention. */
export default function SecuritySettings() {
  const settings = useQuery({
    queryKey: KEYS.settings,
    queryFn: async () => unwrap(await api.GET('/security-settings')) as Settings,
  });
  return (
    <Stack maw={720}>
      <PageHeader title="Security settings" description="Sign-in rules for every account." />
      <QueryState query={settings}>{(s) => <SettingsForm settings={s} />}</QueryState>
    </Stack>
  );
}
