import { Button, Group, NumberInput, SegmentedControl, Stack, TagsInput, Text, TextInput } from '@mantine/core';
import { DateTimePicker } from '@mantine/dates';
import { useForm } from '@mantine/form';
import { showSaveError } from '../../admin-ui/app/src/sdk/index.ts';
import type { ApiClient } from './model.ts';
import { useScopeChoices } from './scope-choices.ts';

export interface ClientBody {
  name: string;
  authMode: 'key' | 'jwt';
  scopes: string[];
  limits: { requestsPerMinute?: number };
  allowedAddresses: string[];
  expiresAt: string | null;
  jwt?: { issuer: string; audience: string; scopeClaim?: string };
}

/** Create or edit a client: name, kind, scopes, limits, addresses, expiry and the provider of a jwt client. */
export function ClientForm(props: {
  client?: ApiClient;
  submitLabel: string;
  onSubmit: (body: ClientBody) => Promise<void>;
  onCancel?: () => void;
}) {
  const c = props.client;
  const form = useForm({
    initialValues: {
      name: c?.name ?? '',
      authMode: c?.authMode ?? ('key' as 'key' | 'jwt'),
      scopes: c?.scopes ?? [],
      requestsPerMinute: (c?.limits.requestsPerMinute ?? '') as number | string,
      allowedAddresses: c?.allowedAddresses ?? [],
      expiresAt: c?.expiresAt ?? (null as string | null),
      issuer: c?.jwt?.issuer ?? '',
      audience: c?.jwt?.audience ?? '',
      scopeClaim: c?.jwt?.scopeClaim ?? '',
    },
    validate: {
      name: (v) => (v.trim() ? null : 'A name people recognise, for example “Shop backend”'),
      issuer: (v, all) => (all.authMode === 'jwt' && !v ? 'The identity provider’s issuer URL' : null),
      audience: (v, all) => (all.authMode === 'jwt' && !v ? 'The audience its tokens carry' : null),
    },
  });
  const jwt = form.values.authMode === 'jwt';
  const scopeChoices = useScopeChoices();
  return (
    <form
      noValidate
      onSubmit={form.onSubmit(async (v) => {
        try {
          await props.onSubmit({
            name: v.name.trim(),
            authMode: v.authMode,
            scopes: v.scopes,
            limits: v.requestsPerMinute === '' ? {} : { requestsPerMinute: Number(v.requestsPerMinute) },
            allowedAddresses: v.allowedAddresses,
            expiresAt: v.expiresAt ? new Date(v.expiresAt).toISOString() : null,
            ...(jwt
              ? {
                  jwt: {
                    issuer: v.issuer,
                    audience: v.audience,
                    ...(v.scopeClaim ? { scopeClaim: v.scopeClaim } : {}),
                  },
                }
              : {}),
          });
        } catch (err) {
          // The API names fields as `scopes.2` or `jwt.issuer`: put them on the input they belong to.
          showSaveError(err, {
            values: form.values,
            setFieldError: (path, message) =>
              form.setFieldError(path.replace(/^jwt\./, '').replace(/\.\d+$/, ''), message),
          });
        }
      })}
    >
      <Stack>
        <TextInput label="Name" required data-autofocus {...form.getInputProps('name')} />
        <Stack gap={4}>
          <Text size="sm" fw={500} id="client-kind-label">
            Kind
          </Text>
          <SegmentedControl
            aria-labelledby="client-kind-label"
            w="fit-content"
            data={[
              { value: 'key', label: 'API key (servers)' },
              { value: 'jwt', label: 'Identity provider tokens (browsers, apps)' },
            ]}
            {...form.getInputProps('authMode')}
          />
          {c && c.authMode === 'key' && jwt && (
            <Text size="xs" c="red.9">
              Switching to tokens revokes every key of this client.
            </Text>
          )}
        </Stack>
        {jwt && (
          <Group grow align="flex-start">
            <TextInput label="Issuer" placeholder="https://id.example.com" required {...form.getInputProps('issuer')} />
            <TextInput label="Audience" required {...form.getInputProps('audience')} />
            <TextInput label="Scope claim" placeholder="scope" {...form.getInputProps('scopeClaim')} />
          </Group>
        )}
        <TagsInput
          label="Scopes"
          description="Pick from the list, or type one and press Enter: data:read:<Class>, data:write:<Class>, gateway:call:<endpoint>, automation:run:<endpoint>:<route>"
          placeholder="data:read:Product"
          data={scopeChoices.filter((choice) => !form.values.scopes.includes(choice))}
          limit={50}
          clearable
          clearButtonProps={{ 'aria-label': 'Clear scopes' }}
          {...form.getInputProps('scopes')}
        />
        <Group grow align="flex-start">
          <NumberInput
            label="Requests per minute"
            description="Empty: the product’s default"
            min={1}
            max={1000000}
            {...form.getInputProps('requestsPerMinute')}
          />
          <DateTimePicker
            label="Expires"
            description="Empty: never"
            clearable
            clearButtonProps={{ 'aria-label': 'Clear expires' }}
            valueFormat="YYYY-MM-DD HH:mm"
            {...form.getInputProps('expiresAt')}
          />
        </Group>
        <TagsInput
          label="Allowed addresses"
          description="IP addresses or CIDR blocks (203.0.113.0/24); empty: any address"
          clearable
          clearButtonProps={{ 'aria-label': 'Clear allowed addresses' }}
          {...form.getInputProps('allowedAddresses')}
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
