import {
  ActionIcon,
  Alert,
  Badge,
  Button,
  Checkbox,
  Code,
  CopyButton,
  Group,
  MultiSelect,
  Paper,
  PasswordInput,
  Radio,
  Stack,
  Switch,
  TagsInput,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useForm } from '@mantine/form';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { IconPlus, IconTrash } from '@tabler/icons-react';
import {
  api,
  PageHeader,
  QueryState,
  showSaved,
  showSaveError,
  unwrap,
  useCan,
} from '../../admin-ui/app/src/sdk/index.ts';
import { KEYS, useRoles } from './queries.ts';

type Settings = {
  enabled: boolean;
  issuer: string;
  clientId: string;
  clientSecretSet: boolean;
  scopes: string[];
  roleClaim: string;
  roleMapping: Record<string, string[]>;
  provisionUsers: boolean;
  defaultRoles: string[];
  localLogin: 'all' | 'admins' | 'none';
  buttonLabel: string;
  dashboard_url: string;
  redirectUri: string;
};

type Mapping = { claim: string; roles: string[] };

const LOCAL_LOGIN = [
  { value: 'all', label: 'Everyone', description: 'Password sign-in stays open beside single sign-on' },
  {
    value: 'admins',
    label: 'Administrators only (break-glass)',
    description: 'Only accounts holding every permission may still sign in with a password',
  },
  { value: 'none', label: 'Nobody', description: 'Everyone signs in through the provider' },
] as const;

function initialValues(s: Settings) {
  return {
    enabled: s.enabled,
    issuer: s.issuer,
    clientId: s.clientId,
    clientSecret: '',
    removeSecret: false,
    scopes: s.scopes,
    roleClaim: s.roleClaim,
    roleMapping: Object.entries(s.roleMapping).map(([claim, roles]): Mapping => ({ claim, roles })),
    provisionUsers: s.provisionUsers,
    defaultRoles: s.defaultRoles,
    localLogin: s.localLogin as string,
    buttonLabel: s.buttonLabel,
    dashboard_url: s.dashboard_url,
  };
}
type Values = ReturnType<typeof initialValues>;

function toBody(v: Values) {
  const mapping: Record<string, string[]> = {};
  for (const m of v.roleMapping) if (m.claim.trim()) mapping[m.claim.trim()] = m.roles;
  return {
    enabled: v.enabled,
    issuer: v.issuer.trim(),
    clientId: v.clientId.trim(),
    // Blank keeps the stored secret; null removes it (a public client, PKCE only).
    ...(v.removeSecret ? { clientSecret: null } : v.clientSecret ? { clientSecret: v.clientSecret } : {}),
    scopes: v.scopes,
    roleClaim: v.roleClaim.trim(),
    roleMapping: mapping,
    provisionUsers: v.provisionUsers,
    defaultRoles: v.defaultRoles,
    localLogin: v.localLogin as Settings['localLogin'],
    buttonLabel: v.buttonLabel.trim(),
    dashboard_url: v.dashboard_url.trim(),
  };
}

function RoleMappingEditor({ form, roleNames }: { form: ReturnType<typeof useForm<Values>>; roleNames: string[] }) {
  const rows = form.values.roleMapping;
  const error = form.errors.roleMapping;
  return (
    <Stack gap="xs" role="group" aria-labelledby="sso-mapping-title">
      <Text fw={500} size="sm" id="sso-mapping-title">
        Role mapping
      </Text>
      <Text size="sm" c="dimmed">
        A value of the role claim gives these roles. At every sign-in the mapped roles follow the claim; roles given by
        hand stay.
      </Text>
      {rows.length === 0 && (
        <Text size="sm" c="dimmed">
          No mapping: the claim gives no roles.
        </Text>
      )}
      {rows.map((_row, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: rows have no id of their own; the index is their position in the form
        <Group key={i} align="flex-end" wrap="wrap" gap="xs" role="group" aria-label={`Mapping ${i + 1}`}>
          <TextInput
            label="Claim value"
            placeholder="cms-editors"
            style={{ flex: '1 1 180px' }}
            {...form.getInputProps(`roleMapping.${i}.claim`)}
          />
          <MultiSelect
            label="Roles"
            data={roleNames}
            searchable
            style={{ flex: '2 1 220px' }}
            {...form.getInputProps(`roleMapping.${i}.roles`)}
          />
          <ActionIcon
            variant="subtle"
            color="red"
            size="lg"
            aria-label={`Remove mapping ${i + 1}`}
            onClick={() => form.removeListItem('roleMapping', i)}
          >
            <IconTrash size={16} aria-hidden />
          </ActionIcon>
        </Group>
      ))}
      {error && (
        <Text c="red" size="sm" role="alert">
          {error}
        </Text>
      )}
      <Group>
        <Button
          variant="light"
          size="xs"
          leftSection={<IconPlus size={14} aria-hidden />}
          onClick={() => form.insertListItem('roleMapping', { claim: '', roles: [] })}
        >
          Add a mapping
        </Button>
      </Group>
    </Stack>
  );
}

/**
 * Whether the user holds every key: saving needs `*`, and `GET /auth/me` lists `*` expanded, so
 * holding each declared key is the sign (cosmetic: the API's 403 stays the authority).
 */
function useHoldsEveryKey(): boolean | undefined {
  const can = useCan();
  const keys = useQuery({
    queryKey: KEYS.permissions,
    queryFn: async () => unwrap(await api.GET('/auth/permissions')).permissions,
  });
  if (!keys.data) return undefined;
  return keys.data.length > 0 && keys.data.every((p) => can(p.key));
}

function SsoForm({ settings }: { settings: Settings }) {
  const roles = useRoles();
  const client = useQueryClient();
  const mayChange = useHoldsEveryKey();
  const form = useForm<Values>({ initialValues: initialValues(settings) });
  const roleNames = (roles.data ?? []).map((r) => r.name);
  return (
    <form
      noValidate
      onSubmit={form.onSubmit(async (v) => {
        try {
          const saved = unwrap(await api.PUT('/oidc-settings', { body: toBody(v) })) as Settings;
          client.setQueryData(KEYS.sso, saved);
          form.setValues(initialValues(saved));
          form.resetDirty(initialValues(saved));
          showSaved('Single sign-on settings saved');
          await client.invalidateQueries({ queryKey: ['admin-ui', 'sso'] });
        } catch (err) {
          showSaveError(err, form);
        }
      })}
    >
      <fieldset disabled={mayChange !== true} style={{ border: 0, padding: 0, margin: 0, minWidth: 0 }}>
        <Stack>
          {mayChange === false && (
            <Alert color="orange" role="note" title="Read only">
              Only an administrator who holds every permission may change single sign-on: the provider decides who signs
              in as which account.
            </Alert>
          )}
          <Paper withBorder p="lg" component="section" aria-labelledby="sso-provider-title">
            <Stack>
              <Title order={2} size="h4" id="sso-provider-title">
                Provider
              </Title>
              <Switch label="Single sign-on is on" {...form.getInputProps('enabled', { type: 'checkbox' })} />
              <TextInput
                label="Issuer"
                description="The provider's issuer URL; saving reads its /.well-known/openid-configuration"
                placeholder="https://login.example.com/realms/staff"
                {...form.getInputProps('issuer')}
              />
              <TextInput label="Client id" {...form.getInputProps('clientId')} />
              <Stack gap={4}>
                <Group gap="xs">
                  <Text size="sm" fw={500} id="sso-secret-state">
                    Client secret
                  </Text>
                  <Badge variant="light" color={settings.clientSecretSet ? 'green' : 'gray'}>
                    {settings.clientSecretSet ? 'set' : 'not set'}
                  </Badge>
                </Group>
                <PasswordInput
                  label="New client secret"
                  description={
                    settings.clientSecretSet
                      ? 'Stored encrypted and never shown. Leave blank to keep it.'
                      : 'Stored encrypted and never shown. Leave blank for a public client (PKCE only).'
                  }
                  autoComplete="new-password"
                  disabled={form.values.removeSecret}
                  {...form.getInputProps('clientSecret')}
                />
                {settings.clientSecretSet && (
                  <Checkbox
                    label="Remove the stored secret (a public client)"
                    {...form.getInputProps('removeSecret', { type: 'checkbox' })}
                  />
                )}
              </Stack>
              <TagsInput
                label="Scopes"
                description="openid is required; email for the verified e-mail, and the scope that carries the role claim"
                {...form.getInputProps('scopes')}
              />
              <Stack gap={4}>
                <Text size="sm" fw={500}>
                  Redirect URI (register it at the provider)
                </Text>
                <Group gap="xs" wrap="nowrap">
                  <Code style={{ wordBreak: 'break-all' }}>{settings.redirectUri}</Code>
                  <CopyButton value={settings.redirectUri}>
                    {({ copied, copy }) => (
                      <Button size="xs" variant="light" onClick={copy}>
                        {copied ? 'Copied' : 'Copy'}
                      </Button>
                    )}
                  </CopyButton>
                </Group>
                <RedirectOriginNotice redirectUri={settings.redirectUri} />
              </Stack>
            </Stack>
          </Paper>
          <Paper withBorder p="lg" component="section" aria-labelledby="sso-accounts-title">
            <Stack>
              <Title order={2} size="h4" id="sso-accounts-title">
                Accounts and roles
              </Title>
              <Switch
                label="Create an account at the first sign-in (verified e-mail addresses only)"
                {...form.getInputProps('provisionUsers', { type: 'checkbox' })}
              />
              <MultiSelect
                label="Roles of a new account"
                data={roleNames}
                searchable
                {...form.getInputProps('defaultRoles')}
              />
              <TextInput
                label="Role claim"
                description="The ID token claim that lists the person's groups or roles, e.g. groups or realm_access.roles"
                {...form.getInputProps('roleClaim')}
              />
              <RoleMappingEditor form={form} roleNames={roleNames} />
            </Stack>
          </Paper>
          <Paper withBorder p="lg" component="section" aria-labelledby="sso-signin-title">
            <Stack>
              <Title order={2} size="h4" id="sso-signin-title">
                Sign-in page
              </Title>
              <Radio.Group label="Password sign-in while single sign-on is on" {...form.getInputProps('localLogin')}>
                <Stack gap="xs" mt="xs">
                  {LOCAL_LOGIN.map((o) => (
                    <Radio key={o.value} value={o.value} label={o.label} description={o.description} />
                  ))}
                </Stack>
              </Radio.Group>
              <TextInput label="Button label" maxLength={80} {...form.getInputProps('buttonLabel')} />
              <TextInput
                label="After signing in, go to"
                description="A path of this installation (/admin) or an http(s) URL, when the sign-in did not start from a page"
                {...form.getInputProps('dashboard_url')}
              />
            </Stack>
          </Paper>
          {mayChange && (
            <Group>
              <Button type="submit" loading={form.submitting} disabled={!form.isDirty()}>
                Save
              </Button>
            </Group>
          )}
        </Stack>
      </fieldset>
    </form>
  );
}

/** `/admin/single-sign-on`: the OpenID Connect provider, role mapping and the password sign-in rule. */
export default function SingleSignOn() {
  const settings = useQuery({
    queryKey: KEYS.sso,
    queryFn: async () => unwrap(await api.GET('/oidc-settings')) as Settings,
  });
  return (
    <Stack maw={860}>
      <PageHeader
        title="Single sign-on"
        description="Staff sign in through your OpenID Connect provider (Keycloak, Entra ID, Google, Okta, ...)."
      />
      <QueryState query={settings}>{(s) => <SsoForm settings={s} />}</QueryState>
    </Stack>
  );
}

/**
 * The redirect address is built from `PUBLIC_BASE_URL`; when the dashboard is open at another
 * address, a provider registered with the one shown sends people back elsewhere. Say so.
 */
function RedirectOriginNotice(props: { redirectUri: string }) {
  let origin: string | undefined;
  try {
    origin = new URL(props.redirectUri).origin;
  } catch {
    return null;
  }
  if (origin === window.location.origin) return null;
  return (
    <Alert color="yellow" role="note" title="The redirect address is not this dashboard's">
      This address comes from the setting PUBLIC_BASE_URL ({origin}), which differs from the address this dashboard is
      open at ({window.location.origin}). Sign-ins return to {origin}: set PUBLIC_BASE_URL to the address people use.
    </Alert>
  );
}
