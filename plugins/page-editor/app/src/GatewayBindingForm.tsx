import {
  ActionIcon,
  Alert,
  Button,
  Checkbox,
  Code,
  Fieldset,
  Group,
  NumberInput,
  Radio,
  Select,
  Stack,
  Text,
  TextInput,
} from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { ApiError } from '../../../admin-ui/app/src/sdk/index.ts';
import {
  fieldsAt,
  type GatewayBinding,
  type GatewayRoute,
  listEndpoints,
  listRoutes,
  type PreviewAnswer,
  previewBinding,
  refreshRouteSchema,
  routeSchema,
} from './gateway.ts';

/** The binding being edited: the form's values, turned into a binding when applied. */
export interface BindingDraft {
  endpointId: string | null;
  routeId: string | null;
  /** The selected route's path parameters (from its template): each needs a value. */
  pathParams: string[];
  path: Record<string, string>;
  query: Array<{ name: string; value: string }>;
  filterPath: string;
  pick: string[];
  rename: Record<string, string>;
  limit: number | null;
  mode: 'resolve' | 'submit';
}

export function draftOf(binding: GatewayBinding | null): BindingDraft {
  return {
    endpointId: binding?.endpointId || null,
    routeId: binding?.routeId || null,
    pathParams: Object.keys(binding?.parameters?.path ?? {}),
    path: { ...(binding?.parameters?.path ?? {}) },
    query: Object.entries(binding?.parameters?.query ?? {}).map(([name, value]) => ({ name, value })),
    filterPath: binding?.resultFilter?.path ?? '',
    pick: [...(binding?.resultFilter?.pick ?? [])],
    rename: { ...(binding?.resultFilter?.rename ?? {}) },
    limit: binding?.resultFilter?.limit ?? null,
    mode: binding?.mode ?? 'resolve',
  };
}

/** The binding the draft stands for, only what is set; null while a route or a path parameter is missing. */
export function bindingOfDraft(draft: BindingDraft): GatewayBinding | null {
  if (!draft.endpointId || !draft.routeId || draft.pathParams.some((p) => !draft.path[p]?.trim())) return null;
  const path = Object.fromEntries(draft.pathParams.map((p) => [p, draft.path[p]!.trim()]));
  const query = Object.fromEntries(draft.query.filter((q) => q.name.trim()).map((q) => [q.name.trim(), q.value]));
  const rename = Object.fromEntries(
    Object.entries(draft.rename).filter(([from, to]) => to.trim() && to.trim() !== from && draft.pick.includes(from)),
  );
  const resultFilter: NonNullable<GatewayBinding['resultFilter']> = {};
  if (draft.filterPath.trim()) resultFilter.path = draft.filterPath.trim();
  if (draft.pick.length) resultFilter.pick = draft.pick;
  if (Object.keys(rename).length) resultFilter.rename = rename;
  if (draft.limit) resultFilter.limit = draft.limit;
  const parameters: NonNullable<GatewayBinding['parameters']> = {};
  if (draft.pathParams.length) parameters.path = path;
  if (Object.keys(query).length) parameters.query = query;
  return {
    endpointId: draft.endpointId,
    routeId: draft.routeId,
    ...(Object.keys(parameters).length ? { parameters } : {}),
    ...(Object.keys(resultFilter).length ? { resultFilter } : {}),
    mode: draft.mode,
  };
}

/** The filtered data as the preview shows it: indented JSON, cut for the panel. */
export function previewText(data: unknown): string {
  const text = typeof data === 'string' ? data : JSON.stringify(data, null, 2);
  return text.length > 4000 ? `${text.slice(0, 4000)}\n…` : text;
}

interface FormProps {
  draft: BindingDraft;
  onDraft(draft: BindingDraft): void;
  problemOf(err: unknown): string;
  routeLabel(route: GatewayRoute): string;
}

/** Endpoint, route, parameters, mode, result filter and the live preview of a binding being edited. */
export function GatewayBindingForm({ draft, onDraft, problemOf, routeLabel }: FormProps) {
  const queryClient = useQueryClient();
  const set = (change: Partial<BindingDraft>) => onDraft({ ...draft, ...change });
  const endpoints = useQuery({ queryKey: ['page-editor', 'gateway', 'endpoints'], queryFn: listEndpoints });
  const routes = useQuery({
    queryKey: ['page-editor', 'gateway', 'routes', draft.endpointId],
    queryFn: () => listRoutes(draft.endpointId!),
    enabled: !!draft.endpointId,
  });
  const route = routes.data?.find((r) => r.id === draft.routeId);
  const schema = useQuery({
    queryKey: ['page-editor', 'gateway', 'schema', draft.routeId],
    queryFn: () => routeSchema(draft.routeId!),
    enabled: !!draft.routeId,
  });
  const [preview, setPreview] = useState<{ answer?: PreviewAnswer; problem?: string; field?: string } | null>(null);
  const [previewing, setPreviewing] = useState(false);
  const [reading, setReading] = useState<string | null>(null);

  // A stored binding names its path parameters by its values; the route's template is the authority.
  useEffect(() => {
    if (route && route.pathParams.join('/') !== draft.pathParams.join('/')) set({ pathParams: route.pathParams });
  }, [route?.id]);

  const binding = () => {
    // For the preview: what is filled so far (a missing path parameter is the server's 400, shown at its field).
    const complete = { ...draft, pathParams: draft.pathParams.filter((p) => draft.path[p]?.trim()) };
    return draft.endpointId && draft.routeId ? (bindingOfDraft(complete) as GatewayBinding) : null;
  };

  const runPreview = async () => {
    const b = binding();
    if (!b) return;
    setPreviewing(true);
    try {
      setPreview({ answer: await previewBinding(b) });
    } catch (err) {
      setPreview({ problem: problemOf(err), field: err instanceof ApiError ? err.field : undefined });
    } finally {
      setPreviewing(false);
    }
  };

  const readFields = async () => {
    const b = binding();
    if (!b) return;
    setReading(null);
    try {
      queryClient.setQueryData(['page-editor', 'gateway', 'schema', b.routeId], await refreshRouteSchema(b.routeId, b));
    } catch (err) {
      setReading(problemOf(err));
    }
  };

  const fields = schema.data ? fieldsAt(schema.data, draft.filterPath.trim()) : [];
  const fieldNames = [...new Set([...fields.map((f) => f.name), ...draft.pick])];
  const paramError = (name: string) =>
    preview?.field === `params.${name}` || preview?.field === `parameters.path.${name}` ? preview.problem : undefined;

  return (
    <Stack gap="xs">
      {endpoints.isError && (
        <Alert color="red" p="xs" title="The gateway's endpoints could not be read">
          {problemOf(endpoints.error)}
        </Alert>
      )}
      <Select
        label="Endpoint"
        placeholder={endpoints.isLoading ? 'Loading endpoints…' : 'Choose an endpoint'}
        searchable
        data={(endpoints.data ?? []).map((e) => ({ value: e.id, label: `${e.name} (${e.baseUrl})` }))}
        value={draft.endpointId}
        nothingFoundMessage="No endpoint: add one in the dashboard's Integrations"
        onChange={(value) => onDraft({ ...draft, endpointId: value, routeId: null, pathParams: [], path: {} })}
      />
      <Select
        label="Route"
        placeholder={routes.isLoading ? 'Loading routes…' : 'Choose a route'}
        searchable
        disabled={!draft.endpointId}
        data={(routes.data ?? []).map((r) => ({ value: r.id, label: routeLabel(r) }))}
        value={draft.routeId}
        error={routes.isError ? problemOf(routes.error) : undefined}
        onChange={(value) => {
          const next = routes.data?.find((r) => r.id === value);
          onDraft({ ...draft, routeId: value, pathParams: next?.pathParams ?? [], path: {} });
          setPreview(null);
        }}
      />
      {draft.pathParams.map((name) => (
        <TextInput
          key={name}
          label={`Path parameter ${name}`}
          required
          value={draft.path[name] ?? ''}
          error={paramError(name)}
          onChange={(e) => set({ path: { ...draft.path, [name]: e.currentTarget.value } })}
        />
      ))}
      <Fieldset legend="Query parameters" p="xs">
        <Stack gap={4}>
          {draft.query.map((q, i) => (
            <Group key={i} gap={4} wrap="nowrap" align="end">
              <TextInput
                size="xs"
                label={`Name of query parameter ${i + 1}`}
                value={q.name}
                onChange={(e) =>
                  set({ query: draft.query.map((row, j) => (j === i ? { ...row, name: e.currentTarget.value } : row)) })
                }
              />
              <TextInput
                size="xs"
                label={`Value of query parameter ${i + 1}`}
                value={q.value}
                onChange={(e) =>
                  set({
                    query: draft.query.map((row, j) => (j === i ? { ...row, value: e.currentTarget.value } : row)),
                  })
                }
              />
              <ActionIcon
                variant="default"
                aria-label={`Remove query parameter ${i + 1}`}
                onClick={() => set({ query: draft.query.filter((_, j) => j !== i) })}
              >
                ×
              </ActionIcon>
            </Group>
          ))}
          <Button
            size="compact-xs"
            variant="default"
            onClick={() => set({ query: [...draft.query, { name: '', value: '' }] })}
          >
            Add a query parameter
          </Button>
        </Stack>
      </Fieldset>
      <Radio.Group
        label="Mode"
        value={draft.mode}
        onChange={(value) => set({ mode: value === 'submit' ? 'submit' : 'resolve' })}
      >
        <Group gap="sm" mt={4}>
          <Radio value="resolve" label="Show data" />
          <Radio value="submit" label="Send a form" />
        </Group>
      </Radio.Group>
      <Fieldset legend="Result filter" p="xs">
        <Stack gap={6}>
          <TextInput
            label="Path to the data"
            description="A dot path into the answer, e.g. data.items"
            value={draft.filterPath}
            error={draft.filterPath.length > 500 ? 'At most 500 characters' : undefined}
            onChange={(e) => set({ filterPath: e.currentTarget.value })}
          />
          {draft.filterPath && (
            <Button size="compact-xs" variant="default" onClick={() => set({ filterPath: '' })}>
              Back to the top of the answer
            </Button>
          )}
          <Checkbox.Group
            label="Fields to keep"
            description={
              fieldNames.length ? 'None checked keeps every field' : 'The fields show once the route has a schema'
            }
            value={draft.pick}
            onChange={(pick) => set({ pick })}
          >
            <Stack gap={4} mt={4}>
              {fieldNames.map((name) => {
                const kind = fields.find((f) => f.name === name)?.kind;
                return (
                  <Group key={name} gap="xs" wrap="nowrap">
                    <Checkbox value={name} label={name} size="xs" />
                    {(kind === 'object' || kind === 'array') && (
                      <Button
                        size="compact-xs"
                        variant="subtle"
                        onClick={() =>
                          set({ filterPath: draft.filterPath.trim() ? `${draft.filterPath.trim()}.${name}` : name })
                        }
                      >
                        Open {name}
                      </Button>
                    )}
                  </Group>
                );
              })}
            </Stack>
          </Checkbox.Group>
          {draft.routeId && draft.mode === 'resolve' && (
            <Button size="compact-xs" variant="default" onClick={() => void readFields()}>
              Read the fields from a live call
            </Button>
          )}
          {reading && (
            <Text size="xs" c="red.8">
              {reading}
            </Text>
          )}
          {draft.pick.map((name) => (
            <TextInput
              key={name}
              size="xs"
              label={`Rename ${name} to`}
              placeholder={name}
              value={draft.rename[name] ?? ''}
              onChange={(e) => set({ rename: { ...draft.rename, [name]: e.currentTarget.value } })}
            />
          ))}
          <NumberInput
            label="Rows at most"
            description="For a list: the first rows only (1-1000)"
            min={1}
            max={1000}
            allowDecimal={false}
            value={draft.limit ?? ''}
            onChange={(value) => set({ limit: typeof value === 'number' && value >= 1 ? Math.min(1000, value) : null })}
          />
        </Stack>
      </Fieldset>
      {draft.mode === 'submit' ? (
        <Text size="xs" c="dimmed">
          A form binding sends what visitors enter to the route; it is not called from here.
        </Text>
      ) : (
        <Button
          size="xs"
          variant="light"
          disabled={!draft.endpointId || !draft.routeId}
          loading={previewing}
          onClick={() => void runPreview()}
        >
          Preview the data
        </Button>
      )}
      {preview?.problem && !draft.pathParams.some((name) => paramError(name)) && (
        <Alert color="red" p="xs" title="No preview">
          {preview.problem}
        </Alert>
      )}
      {preview?.answer && (
        <Stack gap={4} className="cms-gateway-preview">
          <Text size="sm" c={preview.answer.status >= 300 ? 'red.8' : undefined}>
            {preview.answer.status >= 300
              ? `The upstream answered ${preview.answer.status}: a published site gets an error for this binding.`
              : `The upstream answered ${preview.answer.status}${preview.answer.truncated ? ' (cut off: the answer was too large)' : ''}.`}
          </Text>
          <Code block className="cms-gateway-data" role="region" aria-label="Preview data" tabIndex={0}>
            {previewText(preview.answer.data)}
          </Code>
        </Stack>
      )}
    </Stack>
  );
}
