import { Alert, Button } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { IconSend } from '@tabler/icons-react';
import { useParams } from 'react-router';
import {
  type ApiBody,
  api,
  RecordPage,
  SavedSwitch,
  Section,
  showSaved,
  showSaveError,
  unwrap,
} from '../../admin-ui/app/src/sdk/index.ts';
import { DeliveryLog } from './DeliveryLog.tsx';
import { SubscriptionForm } from './SubscriptionForm.tsx';
import { SUBSCRIPTIONS_KEY } from './model.ts';

/** `/admin/events/subscriptions/:id`: a subscription, a test event, its delivery log. */
export default function SubscriptionDetail() {
  const { id = '' } = useParams();
  const client = useQueryClient();
  const key = [...SUBSCRIPTIONS_KEY, id];
  const query = useQuery({
    queryKey: key,
    queryFn: async () => unwrap(await api.GET('/object-event-subscriptions/{id}', { params: { path: { id } } })),
  });
  const patch = async (body: ApiBody<'/object-event-subscriptions/{id}', 'patch'>) => {
    const saved = unwrap(await api.PATCH('/object-event-subscriptions/{id}', { params: { path: { id } }, body }));
    client.setQueryData(key, saved);
    await client.invalidateQueries({ queryKey: SUBSCRIPTIONS_KEY });
  };
  const sendTest = async () => {
    try {
      unwrap(await api.POST('/object-event-subscriptions/{id}/test', { params: { path: { id } } }));
      showSaved('Test event queued: it shows in the log below');
      await client.invalidateQueries({ queryKey: ['object-events', 'deliveries', id] });
    } catch (err) {
      showSaveError(err);
    }
  };
  return (
    <RecordPage
      query={query}
      maw={1100}
      title={(s) => s.name}
      back={{ to: '/admin/events/subscriptions', label: 'All subscriptions' }}
      actions={() => (
        <Button variant="light" leftSection={<IconSend size={16} aria-hidden />} onClick={sendTest}>
          Send a test event
        </Button>
      )}
      remove={{
        label: 'Delete subscription',
        confirm: (s) => ({
          title: `Delete the subscription ${s.name}?`,
          removes: `the subscription ${s.name} and its whole delivery log; deliveries still waiting or retrying are cancelled and never sent.`,
          confirmLabel: 'Delete subscription',
        }),
        run: async (s) =>
          unwrap(await api.DELETE('/object-event-subscriptions/{id}', { params: { path: { id: s.id } } })),
        saved: (s) => `Subscription ${s.name} deleted`,
        invalidate: SUBSCRIPTIONS_KEY,
        goTo: '/admin/events/subscriptions',
      }}
    >
      {(s) => (
        <>
          {s.loopGuard.tripped && (
            <Alert color="orange" title="Loop guard tripped">
              Some deliveries were stopped because API clients changed the same record too often
              {s.loopGuard.lastTrippedAt ? ` (last at ${new Date(s.loopGuard.lastTrippedAt).toLocaleString()})` : ''}.
              Check that the receiver does not write back what it is told about, or add its client to “Ignore changes
              by”.
            </Alert>
          )}
          <SavedSwitch
            checked={s.enabled}
            label={(enabled) => (enabled ? 'Enabled: matching changes are queued' : 'Paused: changes are not queued')}
            save={(enabled) => patch({ enabled })}
            saved={(enabled) => (enabled ? `${s.name} is enabled` : `${s.name} is paused`)}
          />
          <DeliveryLog subscription={s} />
          <Section title="Settings">
            <SubscriptionForm
              key={s.updatedAt}
              subscription={s}
              submitLabel="Save settings"
              onSubmit={async (body) => {
                await patch({ ...body });
                showSaved('Subscription saved');
              }}
            />
          </Section>
        </>
      )}
    </RecordPage>
  );
}
