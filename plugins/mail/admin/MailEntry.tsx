import { Anchor, Badge, Button, Code, Paper, Stack, Table, Text, Title } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { ReactNode } from 'react';
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
import { HtmlPreview } from './HtmlPreview.tsx';
import { KEYS, type LogEntry, statusOf, when } from './model.ts';

const FINISHED = ['sent', 'failed'];

function Row({ label, children }: { label: string; children: ReactNode }) {
  return (
    <Table.Tr>
      <Table.Th scope="row" w={180}>
        {label}
      </Table.Th>
      <Table.Td style={{ overflowWrap: 'anywhere' }}>{children}</Table.Td>
    </Table.Tr>
  );
}

function Entry({ mail }: { mail: LogEntry }) {
  const navigate = useNavigate();
  const client = useQueryClient();
  const finished = FINISHED.includes(mail.status);
  const resend = async () => {
    try {
      const copy = unwrap(await api.POST('/mail-log/{id}/resend', { params: { path: { id: mail.id } } }));
      showSaved('Queued again as a new mail');
      await client.invalidateQueries({ queryKey: KEYS.log });
      await navigate(`/admin/mail/log/${copy.id}`);
    } catch (err) {
      showSaveError(err);
    }
  };
  const remove = async () => {
    const ok = await confirmDestructive({
      title: 'Delete this log entry?',
      removes: `the log entry of the mail “${mail.subject}” to ${mail.to.join(', ')}, with its bodies.`,
      confirmLabel: 'Delete entry',
    });
    if (!ok) return;
    try {
      unwrap(await api.POST('/mail-log/delete', { body: { ids: [mail.id] } }));
      showSaved('Log entry deleted');
      await client.invalidateQueries({ queryKey: KEYS.log });
      await navigate('/admin/mail/log');
    } catch (err) {
      showSaveError(err);
    }
  };
  return (
    <Stack>
      <PageHeader
        title={mail.subject || '(no subject)'}
        description={
          <Anchor component={Link} to="/admin/mail/log" size="sm">
            Back to the mail log
          </Anchor>
        }
        actions={
          finished && (
            <>
              <Button onClick={() => void resend()}>Resend</Button>
              <Button color="red" variant="light" onClick={() => void remove()}>
                Delete
              </Button>
            </>
          )
        }
      />
      <Paper withBorder p="lg">
        <Table aria-label="Mail details" variant="vertical" layout="fixed">
          <Table.Tbody>
            <Row label="Status">
              <Badge variant="light" color={statusOf(mail).color}>
                {statusOf(mail).label}
              </Badge>
              {mail.nextAttemptAt && <Text size="sm">Next try {when(mail.nextAttemptAt)}</Text>}
            </Row>
            <Row label="To">{mail.to.join(', ')}</Row>
            {mail.cc.length > 0 && <Row label="Cc">{mail.cc.join(', ')}</Row>}
            <Row label="From">{mail.from}</Row>
            {mail.replyTo && <Row label="Reply-to">{mail.replyTo}</Row>}
            <Row label="Kind">
              {mail.kind}
              {mail.templateKey ? ` (template ${mail.templateKey})` : ''}
            </Row>
            <Row label="Provider">{mail.provider ?? '—'}</Row>
            <Row label="Provider's answer">{mail.providerAnswer ?? '—'}</Row>
            {mail.error && <Row label="Problem">{mail.error}</Row>}
            <Row label="Tries">{mail.attempts}</Row>
            <Row label="Queued">{when(mail.createdAt)}</Row>
            <Row label="Sent">{when(mail.sentAt)}</Row>
            <Row label="Message-ID">
              <Code>{mail.messageId}</Code>
            </Row>
            {mail.resentFrom && (
              <Row label="Resent from">
                <Link to={`/admin/mail/log/${mail.resentFrom}`}>the earlier mail</Link>
              </Row>
            )}
          </Table.Tbody>
        </Table>
      </Paper>
      {mail.html && (
        <Paper withBorder p="lg">
          <Stack>
            <Title order={2} size="h4">
              HTML part
            </Title>
            <HtmlPreview html={mail.html} title="The mail's HTML part" />
          </Stack>
        </Paper>
      )}
      <Paper withBorder p="lg">
        <Stack>
          <Title order={2} size="h4">
            Text part
          </Title>
          <Code block style={{ whiteSpace: 'pre-wrap' }}>
            {mail.text}
          </Code>
          <Text size="xs" c="dimmed">
            Secrets a mail carried (a password reset link) show as [hidden]: the log never keeps them.
          </Text>
        </Stack>
      </Paper>
    </Stack>
  );
}

/** `/admin/mail/log/:id`: one mail with its bodies, resend and delete. */
export default function MailEntry() {
  const { id = '' } = useParams();
  const mail = useQuery({
    queryKey: KEYS.entry(id),
    queryFn: async () => unwrap(await api.GET('/mail-log/{id}', { params: { path: { id } } })),
    // A queued mail changes on its own: look again until it is finished.
    refetchInterval: (q) => (q.state.data && !FINISHED.includes(q.state.data.status) ? 2000 : false),
  });
  return <QueryState query={mail}>{(m) => <Entry mail={m} />}</QueryState>;
}
