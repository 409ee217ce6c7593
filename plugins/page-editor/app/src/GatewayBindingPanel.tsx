import { Alert, Button, Code, CopyButton, Group, Stack, Text, TextInput, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { ApiError, useMe } from '../../../admin-ui/app/src/sdk/index.ts';
import {
  bindingIdOf,
  bindingKey,
  bindingOf,
  GATEWAY_KEY,
  type GatewayBinding,
  type GatewayRoute,
  listEndpoints,
  listRoutes,
  previewSavedBinding,
  withBinding,
  withoutBinding,
} from './gateway.ts';
import { type BindingDraft, bindingOfDraft, draftOf, GatewayBindingForm, previewText } from './GatewayBindingForm.tsx';
import type { ContentNode } from './tree.ts';

/** What a refused catalog read means for the user. */
export function gatewayProblem(err: unknown): string {
  if (!(err instanceof ApiError)) return (err as Error).message;
  if (err.status === 403 && err.code === 'FORBIDDEN')
    return `Your role may not read or call the gateway's endpoints (the ${GATEWAY_KEY} key).`;
  if (err.status === 403 && err.code === 'OUTBOUND_REFUSED')
    return `The gateway's outbound policy refuses this endpoint's address: ${err.message}`;
  if (err.code === 'BINDING_NOT_FOUND')
    return 'The gateway knows no such binding: the page is not saved with it, or its route is gone.';
  if (err.status === 404) return 'The endpoint or route does not exist (any more).';
  if (err.status === 429) return 'Too many calls to this endpoint right now: try again in a moment.';
  if (err.status === 502) return `The upstream failed: ${err.message}`;
  if (err.status === 504) return `The upstream did not answer in time: ${err.message}`;
  return err.message;
}

const routeLabel = (r: Pick<GatewayRoute, 'method' | 'path' | 'name'>) =>
  `${r.method} ${r.path}${r.name ? ` (${r.name})` : ''}`;

/** What the saved binding answers a site now (the page as stored, published or not). */
function SavedBindingData(props: { bindingId: string }) {
  const [shown, setShown] = useState<{ data?: unknown; problem?: string } | null>(null);
  const [loading, setLoading] = useState(false);
  const show = async () => {
    setLoading(true);
    try {
      setShown({ data: await previewSavedBinding(props.bindingId) });
    } catch (err) {
      setShown({ problem: gatewayProblem(err) });
    } finally {
      setLoading(false);
    }
  };
  return (
    <>
      <Button size="compact-xs" variant="default" loading={loading} onClick={() => void show()}>
        Show what the site gets (as saved)
      </Button>
      {shown?.problem && (
        <Text size="sm" c="red.8">
          {shown.problem}
        </Text>
      )}
      {shown && !shown.problem && (
        <Code block className="cms-gateway-data" role="region" aria-label="Saved binding data" tabIndex={0}>
          {previewText(shown.data)}
        </Code>
      )}
    </>
  );
}

/** The bound block's binding in one sentence, with the id the site's script needs (copyable). */
function BindingSummary(props: { binding: GatewayBinding; bindingId: string | null; mayManage: boolean }) {
  const { binding } = props;
  const endpoints = useQuery({
    queryKey: ['page-editor', 'gateway', 'endpoints'],
    queryFn: listEndpoints,
    enabled: props.mayManage,
  });
  const routes = useQuery({
    queryKey: ['page-editor', 'gateway', 'routes', binding.endpointId],
    queryFn: () => listRoutes(binding.endpointId),
    enabled: props.mayManage && !!binding.endpointId,
  });
  const endpoint = endpoints.data?.find((e) => e.id === binding.endpointId);
  const route = routes.data?.find((r) => r.id === binding.routeId);
  return (
    <Stack gap={4} className="cms-binding-summary">
      <Text size="sm">
        {binding.mode === 'submit' ? 'Sends a form to ' : 'Shows data from '}
        <strong>{endpoint?.name ?? `endpoint ${binding.endpointId}`}</strong>
        {': '}
        {route ? routeLabel(route) : `route ${binding.routeId}`}
      </Text>
      {props.bindingId ? (
        <TextInput
          label="Binding id"
          description="The site's script asks for the data with it"
          readOnly
          value={props.bindingId}
          rightSectionWidth={70}
          rightSection={
            <CopyButton value={props.bindingId}>
              {({ copied, copy }) => (
                <Button size="compact-xs" variant="default" onClick={copy} aria-label="Copy the binding id">
                  {copied ? 'Copied' : 'Copy'}
                </Button>
              )}
            </CopyButton>
          }
        />
      ) : (
        <Text size="sm" c="dimmed">
          The binding id is assigned when the page is saved.
        </Text>
      )}
      {props.bindingId && binding.mode !== 'submit' && <SavedBindingData bindingId={props.bindingId} />}
      <Text size="xs" c="dimmed">
        The published page marks this block with <Code>data-gateway-binding-id</Code>; the site's script reads the data
        with it from <Code>/api/v1/gateway/{binding.mode === 'submit' ? 'submit' : 'resolve'}</Code>.
      </Text>
    </Stack>
  );
}

/**
 * The inspector's gateway content binding of the selected block: what it is bound to (everyone
 * sees that), and for users with the gateway's key the picker (endpoint, route, parameters, result
 * filter, mode), a live preview, apply and remove. The API's 403 stays the authority.
 */
export function GatewayBindingPanel(props: {
  node: ContentNode;
  onChange(change: (node: ContentNode) => ContentNode, field: string): void;
}) {
  const me = useMe();
  const mayManage = me.data?.permissions.includes(GATEWAY_KEY) ?? false;
  const binding = bindingOf(props.node);
  const bindingId = bindingIdOf(props.node);
  const appliedJson = bindingKey(binding);
  const [draft, setDraft] = useState<BindingDraft | null>(() => (binding ? draftOf(binding) : null));
  // The draft follows the node when its binding changes from elsewhere (undo, redo, a restore).
  const synced = useRef(appliedJson);
  useEffect(() => {
    if (synced.current === appliedJson) return;
    synced.current = appliedJson;
    setDraft(binding ? draftOf(binding) : null);
  }, [appliedJson]);
  if (!binding && !mayManage) return null;

  const apply = (next: GatewayBinding) => {
    synced.current = bindingKey(next);
    props.onChange((n) => withBinding(n, next), 'binding');
  };
  const remove = () => {
    synced.current = bindingKey(null);
    setDraft(null);
    props.onChange(withoutBinding, 'binding');
  };
  const pending = draft !== null && bindingKey(bindingOfDraft(draft)) !== appliedJson;

  return (
    <Stack gap="xs" component="section" aria-label="Gateway data" className="cms-gateway-panel">
      <Title order={3} size="h6">
        Gateway data
      </Title>
      {binding ? (
        <BindingSummary binding={binding} bindingId={bindingId} mayManage={mayManage} />
      ) : (
        <Text size="sm">Fill this block with data from a third-party API through the gateway.</Text>
      )}
      {!mayManage && (
        <Text size="xs" c="dimmed">
          Changing the binding needs the {GATEWAY_KEY} key.
        </Text>
      )}
      {mayManage && !draft && (
        <Button size="xs" variant="light" onClick={() => setDraft(draftOf(null))}>
          Bind to gateway data
        </Button>
      )}
      {mayManage && draft && (
        <GatewayBindingForm draft={draft} onDraft={setDraft} problemOf={gatewayProblem} routeLabel={routeLabel} />
      )}
      {mayManage && draft && (
        <Group gap="xs">
          <Button
            size="xs"
            disabled={!pending || bindingOfDraft(draft) === null}
            onClick={() => {
              const next = bindingOfDraft(draft);
              if (next) apply(next);
            }}
          >
            Apply the binding
          </Button>
          {binding ? (
            <Button size="xs" color="red" variant="light" onClick={remove}>
              Remove the binding
            </Button>
          ) : (
            <Button size="xs" variant="default" onClick={() => setDraft(null)}>
              Cancel
            </Button>
          )}
        </Group>
      )}
      {pending && bindingOfDraft(draft!) !== null && (
        <Alert color="orange" p="xs">
          Not applied yet: the block keeps its {binding ? 'current binding' : 'content'} until you apply.
        </Alert>
      )}
    </Stack>
  );
}
