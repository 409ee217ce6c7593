import { Button, Group, MultiSelect, Select, Stack, Switch, TagsInput, Text, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useQuery } from '@tanstack/react-query';
import { api, ApiError, showSaveError, unwrap } from '../../admin-ui/app/src/sdk/index.ts';
import { EVENT_TYPES, type EventType, type Subscription } from './model.ts';

export interface SubscriptionBody {
  name: string;
  events: EventType[];
  endpointId: string;
  routeId: string;
  classId: string | null;
  enabled: boolean;
  ignoreActors: string[];
  signingSecretRef: string | null;
}

const EVENT_OPTIONS = ['object', 'asset', 'page'].map((group) => ({
  group: group === 'object' ? 'Data objects' : group === 'asset' ? 'Assets' : 'Pages',
  items: EVENT_TYPES.filter((t) => t.startsWith(`${group}.`)),
}));

/** The gateway's endpoints and the routes a delivery can use (POST, PUT or PATCH, no path parameters). */
function useTargets(endpointId: string) {
  const endpoints = useQuery({
    queryKey: ['object-events', 'endpoints'],
    queryFn: async () => unwrap(await api.GET('/api/v1/gateway/endpoints')).items,
  });
  const routes = useQuery({
    queryKey: ['object-events', 'routes', endpointId],
    queryFn: async () =>
      unwrap(await api.GET('/api/v1/gateway/endpoints/{id}/routes', { params: { path: { id: endpointId } } })).items,
    enabled: Boolean(endpointId) && Boolean(endpoints.data),
  });
  const classes = useQuery({
    queryKey: ['object-events', 'classes'],
    queryFn: async () =>
      (unwrap(await api.GET('/data-classes')) as unknown as { classes: { id: string; name: string }[] }).classes,
  });
  return { endpoints, routes, classes };
}

/** Create or edit a subscription: what to send (events, class) and where (endpoint and route). */
export function SubscriptionForm(props: {
  subscription?: Subscription;
  submitLabel: string;
  onSubmit: (body: SubscriptionBody) => Promise<void>;
  onCancel?: () => void;
}) {
  const s = props.subscription;
  const form = useForm({
    initialValues: {
      name: s?.name ?? '',
      events: (s?.events ?? []) as string[],
      endpointId: s?.endpointId ?? '',
      routeId: s?.routeId ?? '',
      classId: s?.classId ?? '',
      enabled: s?.enabled ?? true,
      ignoreActors: s?.ignoreActors ?? [],
      signingSecretRef: s?.signingSecretRef ?? '',
    },
    validate: {
      name: (v) => (v.trim() ? null : 'A name for the log and the list'),
      events: (v) => (v.length ? null : 'Tick at least one event'),
      endpointId: (v) => (v ? null : 'Choose the endpoint that receives the events'),
      routeId: (v) => (v ? null : 'Choose the route the events are sent to'),
      signingSecretRef: (v) =>
        !v || /^OBJECT_EVENTS_SECRET_[A-Z0-9_]+$/.test(v) ? null : 'An environment variable OBJECT_EVENTS_SECRET_…',
    },
  });
  const { endpoints, routes, classes } = useTargets(form.values.endpointId);
  // Without the right to list gateway endpoints, ids are typed (the API still checks them).
  const pick = !(endpoints.error instanceof ApiError && endpoints.error.status === 403);
  const usable = (routes.data ?? []).filter((r) => ['POST', 'PUT', 'PATCH'].includes(r.method) && !r.pathParams.length);
  return (
    <form
      noValidate
      onSubmit={form.onSubmit(async (v) => {
        try {
          await props.onSubmit({
            name: v.name.trim(),
            events: v.events as SubscriptionBody['events'],
            endpointId: v.endpointId,
            routeId: v.routeId,
            classId: v.classId || null,
            enabled: v.enabled,
            ignoreActors: v.ignoreActors,
            signingSecretRef: v.signingSecretRef || null,
          });
        } catch (err) {
          showSaveError(err, form);
        }
      })}
    >
      <Stack>
        <TextInput label="Name" required data-autofocus {...form.getInputProps('name')} />
        <MultiSelect
          label="Events"
          placeholder="Choose the changes to send"
          data={EVENT_OPTIONS}
          required
          searchable
          {...form.getInputProps('events')}
        />
        {classes.data && (
          <Select
            label="Class"
            description="Which data objects; asset and page events are not filtered by class"
            data={[{ value: '', label: 'Every class' }, ...classes.data.map((c) => ({ value: c.id, label: c.name }))]}
            allowDeselect={false}
            {...form.getInputProps('classId')}
          />
        )}
        {pick ? (
          <Group grow align="flex-start">
            <Select
              label="Endpoint"
              placeholder={endpoints.isPending ? 'Loading' : 'Choose an endpoint'}
              data={(endpoints.data ?? []).map((e) => ({ value: e.id, label: e.name }))}
              required
              searchable
              nothingFoundMessage="No endpoint: add one under Gateway endpoints"
              {...form.getInputProps('endpointId')}
              onChange={(v) => {
                form.setFieldValue('endpointId', v ?? '');
                form.setFieldValue('routeId', '');
              }}
            />
            <Select
              label="Route"
              description="POST, PUT or PATCH, without path parameters"
              placeholder={form.values.endpointId ? 'Choose a route' : 'Choose an endpoint first'}
              data={usable.map((r) => ({ value: r.id, label: `${r.method} ${r.path}` }))}
              required
              disabled={!form.values.endpointId}
              nothingFoundMessage="This endpoint has no POST, PUT or PATCH route without parameters"
              {...form.getInputProps('routeId')}
            />
          </Group>
        ) : (
          <Group grow align="flex-start">
            <TextInput label="Endpoint id" required {...form.getInputProps('endpointId')} />
            <TextInput label="Route id" required {...form.getInputProps('routeId')} />
          </Group>
        )}
        <TextInput
          label="Signing secret variable"
          description="Name of the gateway's environment variable holding the secret (OBJECT_EVENTS_SECRET_…); empty: unsigned"
          {...form.getInputProps('signingSecretRef')}
        />
        <TagsInput
          label="Ignore changes by"
          description="Actor ids (users, API clients) whose changes are not sent, for example the receiver's own client"
          clearable
          clearButtonProps={{ 'aria-label': 'Clear ignore changes by' }}
          {...form.getInputProps('ignoreActors')}
        />
        <Switch label="Enabled" {...form.getInputProps('enabled', { type: 'checkbox' })} />
        <Text size="xs" c="dimmed">
          Only changes after the subscription exists are sent; nothing is replayed.
        </Text>
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
