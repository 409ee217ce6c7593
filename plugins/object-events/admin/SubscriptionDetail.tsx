import { Alert, Anchor, Button, Paper, Stack, Switch, Title } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { IconSend } from '@tabler/icons-react';
import { Link, useNavigate, useParams } from 'react-router';
import {
  api,
  confirmDestructive,
  PageHeader,
  QueryState,
  showSaved,
  showSaveError,
  unwrap,
} from '../../admin-ui/app/src/sdk/index.ts';
import { DeliveryLog } from './DeliveryLog.tsx';
import { SubscriptionForm } from './SubscriptionForm.tsx';
import { type Subscription, SUBSCRIPTIONS_KEY } from './types.ts';

/** `/admin/events/subscriptions/:id`: a subscription, a test event, its delivery log. */
export default function SubscriptionDetail() {
  const { id = '' } = useParams();
  const navigate = useNavigate();
  const client = useQueryClient();
  const key = [...SUBSCRIPTIONS_KEY, id];
  const query = useQuery({
    queryKey: key,
    queryFn: async () =>
      unwrap(
        await api.GET('/object-event-subscriptions/{id}', { params: { path: { id } } }),
      ) as unknown as Subscription,
  });
  const patch = async (body: Record<string, unknown>) => {
    const saved = unwrap(
      await api.PATCH('/object-event-subscriptions/{id}', { params: { path: { id } }, body }),
    ) as unknown as Subscription;
    client.setQueryData(key, saved);
    await client.invalidateQueries({ queryKey: SUBSCRIPTIONS_KEY });
  };
  const remove = async (s: Subscription) => {
    const ok = await confirmDestructive({
      title: `Delete the subscription ${s.name}?`,
      removes: `the subscription ${s.name} and its whole delivery log; deliveries still waiting or retrying are cancelled and never sent.`,
      confirmLabel: 'Delete subscription',
    });
    if (!ok) return;
    try {
      unwrap(await api.DELETE('/object-event-subscriptions/{id}', { params: { path: { id: s.id } } }));
      showSaved(`Subscription ${s.name} deleted`);
      await client.invalidateQueries({ queryKey: SUBSCRIPTIONS_KEY });
      await navigate('/admin/events/subscriptions', { replace: true });
    } catch (err) {
      showSaveError(err);
    }
  };
  return (
    <QueryState query={query}>
      {(s) => (
        <Stack maw={1100}>
          <PageHeader
            title={s.name}
            description={
              <Anchor underline="always" component={Link} to="/admin/events/subscriptions">
                All subscriptions
              </Anchor>
            }
            actions={
              <>
                <Button
                  variant="light"
                  leftSection={<IconSend size={16} aria-hidden />}
                  onClick={async () => {
                    try {
                      unwrap(await api.POST('/object-event-subscriptions/{id}/test', { params: { path: { id } } }));
                      showSaved('Test event queued: it shows in the log below');
                      await client.invalidateQueries({ queryKey: ['object-events', 'deliveries', id] });
                    } catch (err) {
                      showSaveError(err);
                    }
                  }}
                >
                  Send a test event
                </Button>
                <Button color="red" variant="light" onClick={() => void remove(s)}>
                  Delete subscription
                </Button>
              </>
            }
          />
          {s.loopGuard.tripped && (
            <Alert color="orange" title="Loop guard tripped">
              Some deliveries were stopped because API clients changed the same record too often
              {s.loopGuard.lastTrippedAt ? ` (last at ${new Date(s.loopGuard.lastTrippedAt).toLocaleString()})` : ''}.
              Check that the receiver does not write back what it is told about, or add its client to “Ignore changes
              by”.
            </Alert>
          )}
          <Paper withBorder p="lg">
            <Switch
              label={s.enabled ? 'Enabled: matching changes are queued' : 'Paused: changes are not queued'}
              checked={s.enabled}
              onChange={async (e) => {
                const enabled = e.currentTarget.checked;
                try {
                  await patch({ enabled });
                  showSaved(enabled ? `${s.name} is enabled` : `${s.name} is paused`);
                } catch (err) {
                  showSaveError(err);
                }
              }}
            />
          </Paper>
          <DeliveryLog subscription={s} />
          <Paper withBorder p="lg">
            <Title order={2} size="h4" mb="md">
              Settings
            </Title>
            <SubscriptionForm
              key={s.updatedAt}
              subscription={s}
              submitLabel="Save settings"
              onSubmit={async (body) => {
                await patch({ ...body });
                showSaved('Subscription saved');
              }}
            />
          </Paper>
        </Stack>
      )}
    </QueryState>
  );
}
