import {
  Alert,
  Button,
  Code,
  CopyButton,
  Group,
  NumberInput,
  Paper,
  Select,
  SimpleGrid,
  Stack,
  Text,
  Textarea,
  TextInput,
  Title,
} from '@mantine/core';
import { useForm } from '@mantine/form';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import {
  type ApiAnswer,
  api,
  EmptyState,
  ErrorState,
  LoadingState,
  PageHeader,
  QueryState,
  showSaveError,
  unwrap,
  useUrlState,
} from '../../admin-ui/app/src/sdk/index.ts';

/** A website as `GET /cms-one/websites` lists it. */
type Website = ApiAnswer<'/cms-one/websites', 'get'>[number];
/** A send as `GET /pwa/send/{id}` reads it back. */
type Send = ApiAnswer<'/pwa/send/{id}', 'get'>;
const RUNNING: readonly string[] = ['queued', 'sending'];

const KEYS = {
  websites: ['push', 'websites'] as const,
  publicKey: ['push', 'vapid-public-key'] as const,
  subscribers: (websiteId: string) => ['push', 'subscribers', websiteId] as const,
  send: (id: string) => ['push', 'send', id] as const,
};

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

function outcomeText(o: Send): string {
  if (o.status === 'queued') return 'Waiting to be sent…';
  if (o.status === 'failed' || o.status === 'interrupted')
    return `The send stopped: ${o.problem ?? 'see the server log'}. Sent to ${plural(o.sent, 'subscriber', 'subscribers')}.`;
  const parts = [`Sent to ${plural(o.sent, 'subscriber', 'subscribers')}`];
  if (o.removed) parts.push(`${plural(o.removed, 'expired subscription', 'expired subscriptions')} removed`);
  if (o.failed) parts.push(`${o.failed} failed (see the server log)`);
  if (o.unsent) parts.push(`${o.unsent} not tried: the send ran out of time`);
  return `${parts.join('; ')}${o.status === 'sending' ? '…' : '.'}`;
}

/** The outcome of a send, read back until it ended (the send runs in the background). */
function SendOutcome({ id, websiteId }: { id: string; websiteId: string }) {
  const client = useQueryClient();
  const send = useQuery({
    queryKey: KEYS.send(id),
    queryFn: async () => {
      const answer = unwrap(await api.GET('/pwa/send/{id}', { params: { path: { id } } }));
      if (!RUNNING.includes(answer.status)) await client.invalidateQueries({ queryKey: KEYS.subscribers(websiteId) });
      return answer;
    },
    refetchInterval: (q) => (q.state.data && !RUNNING.includes(q.state.data.status) ? false : 1000),
  });
  if (!send.data) return null;
  const o = send.data;
  const ended = !RUNNING.includes(o.status);
  const trouble = o.failed > 0 || o.unsent > 0 || o.status === 'failed' || o.status === 'interrupted';
  return (
    <Alert
      color={!ended ? 'blue' : trouble ? 'orange' : 'green'}
      role="status"
      title={ended ? 'Notification sent' : 'Sending the notification'}
    >
      {outcomeText(o)}
    </Alert>
  );
}

function SendForm({ website, subscribers }: { website: Website; subscribers: number }) {
  const [sendId, setSendId] = useState<string>();
  const form = useForm({
    initialValues: { title: '', body: '', url: '', ttlHours: 24 as number | string },
    validate: { title: (v) => (v.trim() ? null : 'Give the notification a title') },
  });
  return (
    <Paper withBorder p="lg" component="section" aria-labelledby="push-send-title">
      <form
        noValidate
        onSubmit={form.onSubmit(async (v) => {
          setSendId(undefined);
          try {
            const answer = unwrap(
              await api.POST('/pwa/send', {
                body: {
                  websiteId: website.id,
                  title: v.title.trim(),
                  ...(v.body.trim() ? { body: v.body.trim() } : {}),
                  ...(v.url.trim() ? { url: v.url.trim() } : {}),
                  ttlSeconds: Math.round(Number(v.ttlHours || 0) * 3600),
                },
              }),
            );
            setSendId(answer.id);
          } catch (err) {
            showSaveError(err, form);
          }
        })}
      >
        <Stack>
          <Title order={2} size="h4" id="push-send-title">
            Send a notification
          </Title>
          {sendId && <SendOutcome id={sendId} websiteId={website.id} />}
          <TextInput label="Title" required maxLength={200} {...form.getInputProps('title')} />
          <Textarea label="Text" autosize minRows={2} maxLength={1000} {...form.getInputProps('body')} />
          <TextInput
            label="Link"
            description="Opened when the notification is clicked, e.g. /shop/sale"
            maxLength={2000}
            {...form.getInputProps('url')}
          />
          <NumberInput
            label="Keep trying for (hours)"
            description="How long push services hold the message for a device that is offline (at most 28 days)"
            min={0}
            max={672}
            {...form.getInputProps('ttlHours')}
          />
          <Group>
            <Button type="submit" loading={form.submitting} disabled={subscribers === 0}>
              {subscribers === 0
                ? 'No subscribers to send to'
                : `Send to ${plural(subscribers, 'subscriber', 'subscribers')}`}
            </Button>
          </Group>
        </Stack>
      </form>
    </Paper>
  );
}

function WebsitePush({ website }: { website: Website }) {
  const publicKey = useQuery({
    queryKey: KEYS.publicKey,
    queryFn: async () => unwrap(await api.GET('/pwa/vapid-public-key')).publicKey,
    staleTime: Number.POSITIVE_INFINITY,
  });
  const subscribers = useQuery({
    queryKey: KEYS.subscribers(website.id),
    queryFn: async () =>
      unwrap(await api.GET('/pwa/subscribers', { params: { query: { websiteId: website.id } } })).subscribers,
  });
  return (
    <Stack>
      <SimpleGrid cols={{ base: 1, sm: 2 }}>
        <Paper withBorder p="md" role="group" aria-label="Subscribers">
          <Text size="sm" c="dimmed">
            Subscribers
          </Text>
          {subscribers.isPending ? (
            <LoadingState label="Counting subscribers" />
          ) : subscribers.error ? (
            <ErrorState error={subscribers.error} onRetry={() => subscribers.refetch()} />
          ) : (
            <Text fw={600} size="xl">
              {subscribers.data}
            </Text>
          )}
        </Paper>
        <Paper withBorder p="md">
          <Text size="sm" c="dimmed">
            VAPID public key (the website's script passes it to <Code>pushManager.subscribe</Code>)
          </Text>
          <QueryState query={publicKey}>
            {(key) => (
              <Group gap="xs" wrap="nowrap" align="flex-start">
                <Code block style={{ wordBreak: 'break-all', whiteSpace: 'pre-wrap', flex: 1 }}>
                  {key}
                </Code>
                <CopyButton value={key}>
                  {({ copied, copy }) => (
                    <Button size="xs" variant="light" onClick={copy}>
                      {copied ? 'Copied' : 'Copy key'}
                    </Button>
                  )}
                </CopyButton>
              </Group>
            )}
          </QueryState>
        </Paper>
      </SimpleGrid>
      {subscribers.data !== undefined && <SendForm website={website} subscribers={subscribers.data} />}
    </Stack>
  );
}

/** `/admin/push?website=<id>`: a website's push subscribers and a notification to all of them. */
export default function PushNotifications() {
  const url = useUrlState(['website'] as const);
  const websites = useQuery({
    queryKey: KEYS.websites,
    queryFn: async () => unwrap(await api.GET('/cms-one/websites')),
  });
  const chosen = websites.data?.find((w) => w.id === url.values.website);
  return (
    <Stack maw={960}>
      <PageHeader
        title="Push notifications"
        description="Visitors who allowed notifications on a website get what you send here."
      />
      <QueryState query={websites}>
        {(list) =>
          list.length === 0 ? (
            <EmptyState title="No website yet">Create a website first; its visitors can then subscribe.</EmptyState>
          ) : (
            <Stack>
              <Select
                label="Website"
                placeholder="Choose a website"
                maw={420}
                data={list.map((w) => ({ value: w.id, label: `${w.name} (${w.rootPath})` }))}
                value={chosen?.id ?? null}
                onChange={(id) => url.set({ website: id ?? '' })}
                allowDeselect={false}
              />
              {url.values.website && !chosen && (
                <Alert color="orange" role="alert" title="No such website">
                  The link names a website that does not exist (any more). Choose one above.
                </Alert>
              )}
              {chosen ? (
                <WebsitePush key={chosen.id} website={chosen} />
              ) : (
                !url.values.website && (
                  <EmptyState title="Choose a website">Its subscribers and the send form appear here.</EmptyState>
                )
              )}
            </Stack>
          )
        }
      </QueryState>
    </Stack>
  );
}
